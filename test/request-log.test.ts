/**
 * Knowing what happened: every response carries X-Request-Id and helmet's security headers, and
 * every request leaves one JSON log line with that id, and never a client's secret.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { loadDrop } from '../src/data/drop.js';
import { Store } from '../src/data/store.js';
import { small } from './fixtures/small.js';
import { writeDrop } from './helpers/drop.js';

/** The app with its request log written to `lines`, one parsed JSON object per line. */
async function loggedApp(env: Record<string, string> = {}) {
  const dir = await writeDrop(small);
  const store = new Store();
  store.swap(await loadDrop(dir));
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = createApp({ config: parseConfig({ RATE_LIMIT: '0', DATA_DIR: dir, ...env }), store, log: pino(sink) });
  return { app, store, lines };
}

/** The log line of the response `res`, found by its X-Request-Id; waits for the close event that writes it. */
async function lineOf(lines: Record<string, unknown>[], res: request.Response) {
  const id = res.headers['x-request-id'];
  for (let tries = 0; tries < 50 && !lines.some((line) => line.id === id); tries++) await new Promise((r) => setTimeout(r, 10));
  const found = lines.filter((line) => line.id === id);
  expect(found).toHaveLength(1);
  return found[0]!;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: Awaited<ReturnType<typeof loggedApp>>;
beforeAll(async () => {
  t = await loggedApp();
});
afterAll(() => t.store.close());

describe('X-Request-Id', () => {
  it('echoes the client id when it is 1-128 characters of letters, digits, dot, underscore and dash', async () => {
    const id = 'Trace_1.2-' + 'x'.repeat(118);
    const res = await request(t.app).get('/budget/api/totals/').set('X-Request-Id', id);
    expect(res.headers['x-request-id']).toBe(id);
  });
  it.each([
    ['too long', 'x'.repeat(129)],
    ['with a space', 'two words'],
    ['with a header-splitting attempt', 'abc%0d%0aSet-Cookie:x'],
    ['with a slash', 'a/b'],
  ])('replaces a client id %s by a generated one', async (_why, id) => {
    const res = await request(t.app).get('/budget/api/totals/').set('X-Request-Id', id);
    expect(res.headers['x-request-id']).toMatch(UUID);
  });
  it('generates a different id for every request that brings none', async () => {
    const [a, b] = await Promise.all([request(t.app).get('/healthz'), request(t.app).get('/healthz')]);
    expect(a.headers['x-request-id']).toMatch(UUID);
    expect(b.headers['x-request-id']).toMatch(UUID);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });
  it('is on cached answers, 304s, errors and preflights, and exposed to scripts of other origins', async () => {
    const first = await request(t.app).get('/budget/api/deficit/');
    const cached = await request(t.app).get('/budget/api/deficit/');
    const notModified = await request(t.app).get('/budget/api/deficit/').set('If-None-Match', String(first.headers.etag));
    const notFound = await request(t.app).get('/nowhere');
    const invalid = await request(t.app).get('/budget/api/totals/?year=1');
    const preflight = await request(t.app).options('/budget/api/totals/');
    for (const res of [first, cached, notModified, notFound, invalid, preflight]) expect(res.headers['x-request-id']).toMatch(UUID);
    expect([cached.status, notModified.status, notFound.status, invalid.status, preflight.status]).toEqual([200, 304, 404, 400, 204]);
    expect(first.headers['access-control-expose-headers']).toContain('X-Request-Id');
  });
});

describe('the request log', () => {
  it('has one line per request with its id, method, path, status, duration, bytes and cache use', async () => {
    const miss = await request(t.app).get('/budget/api/outstanding-debt/?year=2023').set('X-Request-Id', 'first-call');
    const hit = await request(t.app).get('/budget/api/outstanding-debt/?year=2023').set('X-Request-Id', 'second-call');
    const missLine = await lineOf(t.lines, miss);
    expect(missLine).toMatchObject({
      level: 30,
      msg: 'request',
      id: 'first-call',
      method: 'GET',
      path: '/budget/api/outstanding-debt/',
      status: 200,
      cache: 'miss',
    });
    expect(missLine.duration_ms).toEqual(expect.any(Number));
    // Headers and body: more than the body alone.
    expect(missLine.bytes).toBeGreaterThan(Number(miss.headers['content-length']));
    expect(await lineOf(t.lines, hit)).toMatchObject({ id: 'second-call', status: 200, cache: 'hit' });
  });
  it('logs errors too, 4xx at info level', async () => {
    const res = await request(t.app).get('/budget/api/debt/?parent=-1');
    expect(await lineOf(t.lines, res)).toMatchObject({ level: 30, status: 400, path: '/budget/api/debt/' });
  });
  it('never holds an API key, a query string or any other header a client sends', async () => {
    const res = await request(t.app)
      .get('/budget/api/totals/?year=2023&token=query-secret')
      .set('X-API-Key', 'key-secret-123')
      .set('Authorization', 'Bearer bearer-secret')
      .set('Cookie', 'session=cookie-secret');
    const line = JSON.stringify(await lineOf(t.lines, res));
    expect(line).not.toMatch(/secret/);
    expect(JSON.stringify(t.lines)).not.toMatch(/secret/);
  });
  it('logs a 5xx at error level with the stack, which the client never sees', async () => {
    const broken = await loggedApp();
    broken.store.served!.instance.closeSync();
    const res = await request(broken.app).get('/budget/api/expenses/?year=2023');
    expect(res.status).toBe(500);
    const line = await lineOf(broken.lines, res);
    expect(line).toMatchObject({ level: 50, status: 500, path: '/budget/api/expenses/' });
    // DuckDB's native errors carry their message as their whole stack.
    const err = line.err as { stack: string; message: string };
    expect(err.message).toBe('Failed to connect: instance closed');
    expect(err.stack).toContain(err.message);
    expect(res.text).not.toContain('instance closed');
    expect(res.text).not.toMatch(/\bat /);
  });
});

describe('security headers', () => {
  const expectSecurityHeaders = (res: request.Response) => {
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    // Public data: pages of any site may load it.
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
  };
  it('are on answers, cached answers, 304s, errors, preflights and 429s, with a CSP that loads nothing', async () => {
    const limited = await loggedApp({ RATE_LIMIT: '1' });
    const first = await request(t.app).get('/budget/api/totals/');
    const responses = [
      first,
      await request(t.app).get('/budget/api/totals/'),
      await request(t.app).get('/budget/api/totals/').set('If-None-Match', String(first.headers.etag)),
      await request(t.app).get('/budget/api/totals/?format=csv'),
      await request(t.app).get('/budget/api/nope'),
      await request(t.app).get('/budget/api/totals/?year=x'),
      await request(t.app).options('/budget/api/totals/'),
      await request(t.app).get('/budget/api/'),
      await request(limited.app).get('/budget/api/deficit/'),
      await request(limited.app).get('/budget/api/deficit/'),
    ];
    expect(responses.map((res) => res.status)).toEqual([200, 200, 304, 200, 404, 400, 204, 200, 200, 429]);
    for (const res of responses) {
      expectSecurityHeaders(res);
      expect(res.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    }
    limited.store.close();
  });
  it('leave the docs page its own CSP, sent once', async () => {
    const res = await request(t.app).get('/budget/api/docs/');
    expectSecurityHeaders(res);
    expect(res.headers['content-security-policy']).toMatch(/^default-src 'self'; script-src 'self';/);
    expect(res.text).toContain('swagger-ui');
  });
});
