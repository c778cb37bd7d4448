/**
 * Pages of a category or an organization whose lines are few and far apart among the ids are read
 * from the copies of the lines kept in category and organization order (sql/derive/
 * lines_by_category.sql, expenses_by_organization.sql), chosen in src/api/endpoints/lines.ts
 * (`located`); denser ones between two anchors of the lines in id order. Either way a page holds
 * the lines that match, in id order, past the offset, and counts them all.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { appFor, appServing, type TestApp } from './helpers/app.js';
import { writeDrop } from './helpers/drop.js';
import { LINE_STAGES } from '../src/domain/stages.js';
import { expectPagesAtEveryStage } from './helpers/pages.js';

// 12,000 lines of every year from 2000 to 2011 in turn, most of them of category 12 and
// organization 1; category 13 (under 11, under 10) on one line in 97, 11 on one in 89, resource
// category 32 on one in 61, organization 2 on one in 101 and organization 3 on one in 53.
const expenses = Array.from({ length: 12_000 }, (_, k) => ({
  id: 5 + k * 3,
  year: 2000 + ((k * 7) % 12),
  amount: k + 0.5,
  category_id: k % 97 === 0 ? 13 : k % 89 === 0 ? 11 : 12,
  organization_id: k % 101 === 0 ? 2 : k % 53 === 0 ? 3 : 1,
  stage: LINE_STAGES[(k * 5 + Math.floor(k / 11)) % 3]!,
}));
const resources = expenses.map(({ organization_id: _, ...line }, k) => ({ ...line, category_id: k % 61 === 0 ? 32 : 31 }));

// The same lines as DuckDB writes them: a drop written row by row took 30 s.
const LINE_SQL = `SELECT 5 + 3 * k AS id, 2000 + (7 * k) % 12 AS year, (k + 0.5)::DECIMAL(18,3) AS amount,
    CASE WHEN k % 97 = 0 THEN 13 WHEN k % 89 = 0 THEN 11 ELSE 12 END AS category_id,
    CASE WHEN k % 101 = 0 THEN 2 WHEN k % 53 = 0 THEN 3 ELSE 1 END AS organization_id,
    ${JSON.stringify(LINE_STAGES).replaceAll('"', "'")}[(k * 5 + k // 11) % 3 + 1] AS stage
  FROM range(${expenses.length}) AS r(k)`;
const LINES = {
  ...small,
  expenses: { sql: LINE_SQL },
  resources: {
    sql: `SELECT * REPLACE (NULL::BIGINT AS organization_id, CASE WHEN (id - 5) // 3 % 61 = 0 THEN 32 ELSE 31 END AS category_id) FROM (${LINE_SQL})`,
  },
};

type Line = (typeof expenses)[number];
const inYears = (years: number[]) => (line: { year: number }) => years.includes(line.year);
const years = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

const EXPENSE_FILTERS: [string, (line: Line) => boolean][] = [
  ['&category=13', (e) => e.category_id === 13],
  ['&category=11', (e) => e.category_id === 11 || e.category_id === 13],
  ['&category=13&year=2003', (e) => e.category_id === 13 && e.year === 2003],
  ['&category=11&year=2002..2006', (e) => (e.category_id === 11 || e.category_id === 13) && e.year >= 2002 && e.year <= 2006],
  ['&category=13&year=2001,2004,2010', (e) => e.category_id === 13 && inYears([2001, 2004, 2010])(e)],
  ['&category=10&year=2001..2003', (e) => inYears(years(2001, 2003))(e)],
  ['&category=12&year=2005', (e) => e.category_id === 12 && e.year === 2005],
  ['&organization=2', (e) => e.organization_id === 2],
  ['&organization=3&year=2007', (e) => e.organization_id === 3 && e.year === 2007],
  ['&organization=3&year=2000..2004', (e) => e.organization_id === 3 && e.year <= 2004],
  ['&organization=2&year=2000,2011', (e) => e.organization_id === 2 && inYears([2000, 2011])(e)],
  ['&organization=1&year=2004..2005', (e) => e.organization_id === 1 && inYears([2004, 2005])(e)],
  ['&organization=2&year=1990..1999', () => false],
  ['&category=13&year=2012', () => false],
];
const RESOURCE_FILTERS: [string, (line: (typeof resources)[number]) => boolean][] = [
  ['&category=32', (r) => r.category_id === 32],
  ['&category=32&year=2008..2011', (r) => r.category_id === 32 && r.year >= 2008],
  ['&category=30&year=2009', (r) => r.year === 2009],
];

describe('pages of a category or an organization whose lines are few and far apart', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await appFor(LINES);
  });
  afterAll(() => t.close());

  it.each([
    [100, 0],
    [7, 3],
    [50, 130],
    [1000, 0],
    [3, 600],
  ] as const)('hold the lines that match with limit=%i&offset=%i, in id order, at every stage', async (limit, offset) => {
    await expectPagesAtEveryStage(t.app, '/budget/api/expenses/', expenses, EXPENSE_FILTERS, limit, offset);
    await expectPagesAtEveryStage(t.app, '/budget/api/resources/', resources, RESOURCE_FILTERS, limit, offset);
  });

  it('name each line of a page read in category order as a page of every line names it', async () => {
    const page = await request(t.app).get('/budget/api/expenses/?category=13&year=2003&limit=2');
    const line = page.body.results[1];
    const all = await request(t.app).get(`/budget/api/expenses/?year=2003&limit=1000`);
    expect(all.body.results.find((r: { id: number }) => r.id === line.id)).toEqual(line);
    expect(line).toMatchObject({ year: 2003, category: 'Primes', organization: { id: 1 } });
  });
});

describe('the same drop stored compressed, without copies in category or organization order', () => {
  let plain: TestApp;
  let compressed: TestApp;
  beforeAll(async () => {
    const dir = await writeDrop(LINES);
    plain = await appServing(dir);
    compressed = await appServing(dir, {}, { compressFromLines: 0 });
  });
  afterAll(() => {
    plain.close();
    compressed.close();
  });

  it.each([
    ...EXPENSE_FILTERS.map(([q]) => `/budget/api/expenses/?offset=20${q}`),
    ...RESOURCE_FILTERS.map(([q]) => `/budget/api/resources/?offset=20${q}`),
  ])('answers %s with the same bytes', async (url) => {
    const [a, b] = await Promise.all([request(plain.app).get(url), request(compressed.app).get(url)]);
    expect(a.status).toBe(200);
    expect(b.text).toBe(a.text);
  });
});
