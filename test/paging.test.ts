/** The paged envelope and its links (contract section 2), over a drop of 25 expense lines. */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { appFor, type TestApp } from './helpers/app.js';

const LINES = 25;
let t: TestApp;
beforeAll(async () => {
  const expenses = Array.from({ length: LINES }, (_, i) => ({
    id: 100 + i,
    year: i % 2 ? 2023 : 2024,
    amount: i + 0.5,
    category_id: 11,
    organization_id: 1,
    complementary: false,
  }));
  t = await appFor({ ...small, expenses });
});
afterAll(() => t.close());

describe('GET /budget/api/expenses/ paging', () => {
  it('walks every line exactly once by following next links', async () => {
    const seen: number[] = [];
    let url: string | null = '/budget/api/expenses/?limit=7';
    let pages = 0;
    while (url) {
      const res = await request(t.app).get(url);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(LINES);
      seen.push(...res.body.results.map((r: { id: number }) => r.id));
      url = res.body.next;
      pages += 1;
    }
    expect(pages).toBe(4);
    expect(seen).toEqual(Array.from({ length: LINES }, (_, i) => 100 + i));
  });

  it('defaults to 100 items from offset 0', async () => {
    const res = await request(t.app).get('/budget/api/expenses/');
    expect(res.body.results).toHaveLength(LINES);
    expect(res.body.next).toBeNull();
    expect(res.body.previous).toBeNull();
  });

  it('keeps every other parameter in next and previous, as relative URLs', async () => {
    const res = await request(t.app).get('/budget/api/expenses/?year=2023&limit=5&offset=5&organization=1');
    expect(res.body.count).toBe(12);
    expect(res.body.next).toBe('/budget/api/expenses/?limit=5&offset=10&year=2023&organization=1');
    expect(res.body.previous).toBe('/budget/api/expenses/?limit=5&offset=0&year=2023&organization=1');
  });

  it('uses the canonical path with its slash even when asked without it', async () => {
    const res = await request(t.app).get('/budget/api/expenses?limit=10');
    expect(res.body.next).toBe('/budget/api/expenses/?limit=10&offset=10');
  });

  it('answers an empty page with the true count past the end, previous clamped at 0', async () => {
    const res = await request(t.app).get('/budget/api/expenses/?limit=10&offset=500');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      count: LINES,
      next: null,
      previous: '/budget/api/expenses/?limit=10&offset=490',
      results: [],
    });
    const near = await request(t.app).get('/budget/api/expenses/?limit=10&offset=3');
    expect(near.body.previous).toBe('/budget/api/expenses/?limit=10&offset=0');
  });

  it('has no next link on the exact last page', async () => {
    const res = await request(t.app).get('/budget/api/expenses/?limit=5&offset=20');
    expect(res.body.results).toHaveLength(5);
    expect(res.body.next).toBeNull();
  });

  it('encodes parameter values in links', async () => {
    const res = await request(t.app).get('/budget/api/resources/?limit=1&hierarchy=TRUE');
    expect(res.body.next).toBe('/budget/api/resources/?limit=1&offset=1&hierarchy=TRUE');
  });
});
