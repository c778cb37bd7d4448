/**
 * Year lists and ranges, the category filter of the lists of lines, the organization search and
 * the Link header of pages, over the hand-checked `small` drop (test/fixtures/small.ts).
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { appFor, type TestApp } from './helpers/app.js';
import { getCsv } from './helpers/downloads.js';
import { figuresOnly } from './helpers/rollups.js';

let t: TestApp;
beforeAll(async () => {
  t = await appFor(small);
});
afterAll(() => t.close());

async function get(url: string) {
  const res = await request(t.app).get(url);
  expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(200);
  res.body = figuresOnly(url, res.body);
  return res;
}

async function refused(url: string, parameter: string) {
  const res = await request(t.app).get(url);
  expect(res.status, url).toBe(400);
  expect(res.body.code).toBe('invalid_parameter');
  expect(res.body.errors).toEqual([expect.objectContaining({ parameter })]);
  return res.body.detail as string;
}

const years = (rows: { year: number }[]) => rows.map((r) => r.year);
const ids = (rows: { id: number }[]) => rows.map((r) => r.id);

describe('year as a list or a range', () => {
  it('takes a list, in any order, and answers in year order', async () => {
    expect(years((await get('/budget/api/totals/?year=2024,2022,2023')).body)).toEqual([2023, 2024]);
    expect(years((await get('/budget/api/debt/?year=2023,2022&parent=null')).body)).toEqual([2022, 2022, 2023, 2023]);
  });
  it('takes a range, both ends included', async () => {
    expect(years((await get('/budget/api/outstanding-debt/?year=2020..2022')).body)).toEqual([2022]);
    expect(years((await get('/budget/api/deficit/?year=2022..2024')).body)).toEqual([2022, 2024]);
  });
  it('takes 50 years, the limit, as a range or a list', async () => {
    expect(years((await get('/budget/api/totals/?year=1975..2024')).body)).toEqual([2023, 2024]);
    const fifty = Array.from({ length: 50 }, (_, i) => 1975 + i).join(',');
    expect(years((await get(`/budget/api/totals/?year=${fifty}`)).body)).toEqual([2023, 2024]);
  });
  it('refuses 51 years, as a range or a list', async () => {
    expect(await refused('/budget/api/totals/?year=1974..2024', 'year')).toBe('year must hold at most 50 years');
    const fiftyOne = Array.from({ length: 51 }, (_, i) => 1974 + i).join(',');
    await refused(`/budget/api/totals/?year=${fiftyOne}`, 'year');
  });
  it('refuses a range that runs backwards', async () => {
    expect(await refused('/budget/api/totals/?year=2024..2020', 'year')).toContain('backwards');
  });
  it.each(['2020,', ',2020', '2020,,2021', '2020..', '..2020', '2020...2021', '2020..2021..2022', '1899..1901', '2020,abc', '2020;2021'])(
    'refuses year=%s',
    async (year) => {
      await refused(`/budget/api/totals/?year=${year}`, 'year');
    },
  );
  it('sums budget-categories and organization/stats over the years listed', async () => {
    const rows = (await get('/budget/api/budget-categories/?year=2023,2024&type=expense')).body;
    // 10: 350.35 in 2023 and 0.3 in 2024.
    expect(rows[0]).toMatchObject({ id: 10, expenses: 350.65 });
    const stats = (await get('/budget/api/organization/stats/?year=2023..2024')).body;
    expect(stats).toEqual([
      { organization_id: 1, total_expenses: 300.6, total_resources: 500.5 },
      { organization_id: 2, total_expenses: 350.05, total_resources: 800 },
    ]);
  });
  it('keeps the years listed in each budget of the organization list', async () => {
    const { body } = await get('/budget/api/organization/?year=2023,2024');
    expect(body.results.map((o: { id: number; budget: { year: number }[] }) => [o.id, years(o.budget)])).toEqual([
      [1, [2023, 2024]],
      [2, [2023, 2024]],
    ]);
  });
  it('pages lines of several years', async () => {
    const { body } = await get('/budget/api/expenses/?year=2023,2024&limit=2&offset=2');
    expect(body.count).toBe(6);
    expect(ids(body.results)).toEqual([3, 4]);
  });
  it('accepts last, a list or a range on outstanding-debt', async () => {
    expect(years((await get('/budget/api/outstanding-debt/?year=last')).body)).toEqual([2023]);
    expect(years((await get('/budget/api/outstanding-debt/?year=2022,2023')).body)).toEqual([2022, 2023]);
  });
});

describe('category on the lists of lines', () => {
  it('keeps the lines of a category and of its whole subtree', async () => {
    const { body } = await get('/budget/api/expenses/?category=10');
    expect(body.count).toBe(5);
    expect(ids(body.results)).toEqual([1, 2, 3, 5, 6]);
    // 13 Primes is a child of 11 Rémunérations.
    expect(ids((await get('/budget/api/expenses/?category=11')).body.results)).toEqual([1, 2, 5, 6]);
    expect(ids((await get('/budget/api/resources/?category=30')).body.results)).toEqual([1, 2, 4]);
  });
  it('combines with year, organization and paging', async () => {
    expect(ids((await get('/budget/api/expenses/?category=11&year=2024')).body.results)).toEqual([5, 6]);
    expect(ids((await get('/budget/api/expenses/?category=10&organization=2')).body.results)).toEqual([3]);
    const { body } = await get('/budget/api/expenses/?category=10&limit=2&offset=2');
    expect(body).toMatchObject({ count: 5, next: '/budget/api/expenses/?limit=2&offset=4&category=10' });
    expect(ids(body.results)).toEqual([3, 5]);
  });
  it('answers an empty page for an unknown category, or one of the other kind', async () => {
    expect((await get('/budget/api/expenses/?category=999')).body).toEqual({ count: 0, next: null, previous: null, results: [] });
    expect((await get('/budget/api/expenses/?category=30')).body.count).toBe(0);
  });
  it('filters the full CSV export too', async () => {
    const { rows } = await getCsv(t.app, '/budget/api/resources/?category=30&year=2023&format=csv');
    expect(rows.map((r) => r.id)).toEqual(['1', '2']);
  });
  it("makes each year's tree that category's subtree with hierarchy=true", async () => {
    const { body } = await get('/budget/api/expenses/?hierarchy=true&category=11');
    expect(body.count).toBe(2);
    expect(
      body.results.map((r: { year: number; id: number; amount: number; children: { id: number }[] }) => [r.year, r.id, r.amount, ids(r.children)]),
    ).toEqual([
      [2023, 11, 300.3, [13]],
      [2024, 11, 0.3, []],
    ]);
    expect((await get('/budget/api/resources/?hierarchy=true&category=40')).body.results).toEqual([
      { id: 40, name: 'Emprunts', year: 2023, amount: 99.999, children: [] },
    ]);
  });
  it('refuses a category that is not an id', async () => {
    await refused('/budget/api/expenses/?category=abc', 'category');
  });
});

describe('search on the organization list', () => {
  const found = async (search: string) => ids((await get(`/budget/api/organization/?search=${encodeURIComponent(search)}`)).body.results);
  it('finds a part of the name whatever the case and the accents', async () => {
    expect(await found('éducation')).toEqual([1]);
    expect(await found('EDUCATION')).toEqual([1]);
    expect(await found('Santé')).toEqual([2]);
    expect(await found('sante')).toEqual([2]);
    expect(await found('ministere')).toEqual([1, 2]);
  });
  it('finds a part of the code', async () => {
    expect(await found('none')).toEqual([3]);
  });
  it('answers an empty page when nothing matches, and counts the matches', async () => {
    expect((await get('/budget/api/organization/?search=zzz')).body).toEqual({ count: 0, next: null, previous: null, results: [] });
    expect((await get('/budget/api/organization/?search=minist&limit=1')).body).toMatchObject({
      count: 2,
      next: '/budget/api/organization/?limit=1&offset=1&search=minist',
    });
  });
  it('combines with year, and filters the full CSV export', async () => {
    expect(ids((await get('/budget/api/organization/?search=minist&year=2024')).body.results)).toEqual([1, 2]);
    const { rows } = await getCsv(t.app, '/budget/api/organization/?search=sant%C3%A9&format=csv');
    expect(rows.map((r) => [r.id, r.year])).toEqual([
      ['2', '2023'],
      ['2', '2024'],
    ]);
  });
});

describe('the Link header of paged answers', () => {
  it('points to the next page on the first one', async () => {
    const res = await get('/budget/api/expenses/?limit=2');
    expect(res.headers.link).toBe('</budget/api/expenses/?limit=2&offset=2>; rel="next"');
  });
  it('points both ways in the middle, keeping the other parameters', async () => {
    const res = await get('/budget/api/expenses/?limit=2&offset=2&year=2023,2024');
    expect(res.headers.link).toBe(
      '</budget/api/expenses/?limit=2&offset=4&year=2023%2C2024>; rel="next", </budget/api/expenses/?limit=2&offset=0&year=2023%2C2024>; rel="prev"',
    );
  });
  it('points back only on the last page, and is absent on a single page', async () => {
    expect((await get('/budget/api/resources/?limit=3&offset=3')).headers.link).toBe('</budget/api/resources/?limit=3&offset=0>; rel="prev"');
    expect((await get('/budget/api/organization/')).headers.link).toBeUndefined();
  });
  it('is sent again with a cached answer and with a 304', async () => {
    const first = await get('/budget/api/organization/?limit=1');
    const again = await get('/budget/api/organization/?limit=1');
    expect(again.headers.link).toBe(first.headers.link);
    const fresh = await request(t.app).get('/budget/api/organization/?limit=1').set('If-None-Match', first.headers.etag!);
    expect(fresh.status).toBe(304);
    expect(fresh.headers.link).toBe('</budget/api/organization/?limit=1&offset=1>; rel="next"');
  });
});
