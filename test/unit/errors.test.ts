import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROBLEMS, problem } from '../../src/domain/errors.js';

describe('the error catalogue', () => {
  it('is the table of codes docs/api.md lists, each with its status', () => {
    const docs = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const rows = [...docs.matchAll(/^\| `([a-z_]+)` \| (\d{3})/gm)].map(([, code, status]) => [code, Number(status)]);
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(Object.entries(PROBLEMS).map(([code, { status }]) => [code, status])));
  });

  it('builds a problem document whose title is the status text', () => {
    expect(problem.invalidParameter('year', 'must be an integer').body()).toEqual({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: 'year must be an integer',
      code: 'invalid_parameter',
      errors: [{ parameter: 'year', message: 'must be an integer' }],
    });
    expect(problem.invalidRequest('too large', 431).body()).toMatchObject({
      status: 431,
      title: 'Request Header Fields Too Large',
      code: 'invalid_request',
    });
  });

  it('makes problems without a stack, and leaves the stacks of every other error as they were', () => {
    const limit = Error.stackTraceLimit;
    const refused = problem.rateLimited('too many requests, retry in 30 seconds');
    expect(refused.stack).not.toMatch(/\n\s+at /);
    expect(Error.stackTraceLimit).toBe(limit);
    // A bug's error, logged with a 500, still says where it came from.
    expect(new Error('a bug').stack).toMatch(/\n\s+at /);
  });

  it('has one data_unavailable message, whatever the reason', () => {
    expect(problem.dataUnavailable().detail).toBe(
      'no data drop is served right now (none is loaded yet, or the server is shutting down); try again shortly',
    );
  });
});
