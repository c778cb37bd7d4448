/** Pages of lines checked against the lines a test wrote, worked out in JS. */
import request from 'supertest';
import { expect } from 'vitest';
import { LINE_STAGES, LINES_OF, STAGES } from '../../src/domain/stages.js';
import type { TestApp } from './app.js';

/**
 * Asks `app` for the page of `limit` lines past `offset` of `path` under each filter at every
 * stage, and expects the count and ids that sorting, filtering and slicing `lines` give.
 */
export async function expectPagesAtEveryStage<L extends { id: number; stage: (typeof LINE_STAGES)[number] }>(
  app: TestApp['app'],
  path: string,
  lines: L[],
  filters: [string, (line: L) => boolean][],
  limit: number,
  offset: number,
) {
  for (const stage of STAGES) {
    for (const [query, keep] of filters) {
      const url = `${path}?limit=${limit}&offset=${offset}&stage=${stage}${query}`;
      const ids = lines
        .filter((line) => LINES_OF[stage].includes(line.stage) && keep(line))
        .map((line) => line.id)
        .sort((a, b) => a - b);
      const res = await request(app).get(url);
      expect(res.status, url).toBe(200);
      expect({ count: res.body.count, ids: res.body.results.map((r: { id: number }) => r.id) }, url).toEqual({
        count: ids.length,
        ids: ids.slice(offset, offset + limit),
      });
    }
  }
}
