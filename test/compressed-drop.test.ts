/**
 * Large drops are stored compressed (src/data/drop.ts, COMPRESS_FROM_LINES), small ones are not:
 * the same drop must answer the same bytes either way. Loads the staged drop twice, once made to
 * compress whatever its size.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staged } from './fixtures/staged.js';
import { appServing, type TestApp } from './helpers/app.js';
import { writeDrop } from './helpers/drop.js';

let plain: TestApp;
let compressed: TestApp;
beforeAll(async () => {
  const dir = await writeDrop(staged);
  plain = await appServing(dir);
  compressed = await appServing(dir, {}, { compressFromLines: 0 });
});
afterAll(() => {
  plain.close();
  compressed.close();
});

const URLS = [
  '/budget/api/totals/?year=2024',
  '/budget/api/expenses/',
  '/budget/api/expenses/?stage=outturn&limit=2&offset=1',
  '/budget/api/expenses/?year=2024&organization=1',
  '/budget/api/expenses/?hierarchy=true&stage=initial',
  '/budget/api/resources/?stage=amended',
  '/budget/api/organization/',
  '/budget/api/organization/stats/?year=2024',
  '/budget/api/deficit/',
  '/budget/api/expenses/?format=csv',
  '/budget/api/resources/?format=csv&stage=outturn',
];

describe('a drop stored compressed', () => {
  it('answers 2024 totals as worked out by hand', async () => {
    const res = await request(compressed.app).get('/budget/api/totals/?year=2024');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject([{ year: 2024, total_expenses: 160.5, total_resources: 170, balance: 9.5 }]);
  });
  it.each(URLS)('answers %s with the same bytes as the same drop uncompressed', async (url) => {
    const [a, b] = await Promise.all([request(plain.app).get(url), request(compressed.app).get(url)]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.text).toBe(a.text);
  });
});
