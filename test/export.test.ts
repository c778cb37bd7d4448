/**
 * Full exports (docs/api.md#full-exports): on the paged endpoints, CSV, Arrow and Parquet without
 * limit and offset hold every matching row, past the 1000-row page cap, streamed from DuckDB chunk by chunk;
 * with limit or offset they hold just that page.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { loadDrop } from '../src/data/drop.js';
import { appFor, type TestApp } from './helpers/app.js';
import { writeDrop, type DropData } from './helpers/drop.js';
import { csvCells, getArrow, getCsv, getParquet, type Cells } from './helpers/downloads.js';

const LINES = 2500;
const ORGANIZATIONS = 2500;
let t: TestApp;

beforeAll(async () => {
  t = await appFor({
    ...small,
    organizations: {
      sql: `SELECT i AS id, 'Organisme n°' || i || ' — Santé' AS name, 'ORG' || i AS code FROM range(1, ${ORGANIZATIONS + 1}) AS r(i)`,
    },
    expenses: {
      sql: `SELECT i AS id, 2020 + i % 3 AS year, (i * 1.5 + 0.001)::DECIMAL(18,3) AS amount,
                   [11, 12, 13, 20][i % 4 + 1] AS category_id, 1 + i % 7 AS organization_id, i % 5 = 0 AS complementary
            FROM range(1, ${LINES + 1}) AS r(i)`,
    },
    resources: {
      sql: `SELECT i AS id, 2020 + i % 2 AS year, (i + 0.25)::DECIMAL(18,3) AS amount,
                   [31, 32, 40][i % 3 + 1] AS category_id, NULL::BIGINT AS organization_id, false AS complementary
            FROM range(1, ${LINES + 1}) AS r(i)`,
    },
  });
});
afterAll(() => t.close());

type Item = Record<string, any>;

/** Every JSON item of a paged URL, following next links in pages of 1000. */
async function allItems(url: string): Promise<Item[]> {
  const items: Item[] = [];
  let next: string | null = `${url}${url.includes('?') ? '&' : '?'}limit=1000`;
  while (next) {
    const res: request.Response = await request(t.app).get(next);
    expect(res.status).toBe(200);
    items.push(...res.body.results);
    next = res.body.next;
  }
  return items;
}

const expenseRow = ({ organization, ...line }: Item): Cells => ({
  ...line,
  organization_id: organization.id,
  organization_name: organization.name,
  organization_code: organization.code,
});
const organizationRows = ({ budget, ...org }: Item): Cells[] =>
  budget.length ? budget.map((year: Item) => ({ ...org, ...year })) : [{ ...org, year: null, expenses: null, resources: null }];

describe('a CSV, Arrow or Parquet download without limit and offset', () => {
  it(`holds all ${LINES} expense lines in CSV, in id order, equal to the JSON pages flattened`, async () => {
    const expected = (await allItems('/budget/api/expenses/')).map(expenseRow);
    expect(expected).toHaveLength(LINES);
    const csv = await getCsv(t.app, '/budget/api/expenses/?format=csv');
    expect(csv.rows).toHaveLength(LINES);
    expect(csv.rows).toEqual(expected.map(csvCells));
  });
  it(`holds all ${LINES} expense lines in Arrow, written as several record batches`, async () => {
    const expected = (await allItems('/budget/api/expenses/')).map(expenseRow);
    const arrow = await getArrow(t.app, '/budget/api/expenses/?format=arrow');
    expect(arrow.rows).toEqual(expected);
    expect(arrow.table.batches.length).toBeGreaterThan(1);
  });
  it(`holds all ${LINES} expense lines in Parquet`, async () => {
    const expected = (await allItems('/budget/api/expenses/')).map(expenseRow);
    const { rows } = await getParquet(t.app, '/budget/api/expenses/?format=parquet');
    expect(rows.map((r) => ({ ...r, id: Number(r.id), organization_id: Number(r.organization_id) }))).toEqual(expected);
  });
  it('applies the filters of the query', async () => {
    const url = '/budget/api/expenses/?year=2021&organization=3';
    const expected = (await allItems(url)).map(expenseRow);
    expect(expected.length).toBeGreaterThan(100);
    expect((await getArrow(t.app, `${url}&format=arrow`)).rows).toEqual(expected);
  });
  it(`holds all ${LINES} resource lines`, async () => {
    const expected = await allItems('/budget/api/resources/');
    const csv = await getCsv(t.app, '/budget/api/resources/?format=csv');
    expect(csv.header).toEqual(['id', 'year', 'amount', 'source', 'stage', 'source_id', 'derived']);
    expect(csv.rows).toEqual(expected.map(csvCells));
  });
  it(`holds all ${ORGANIZATIONS} organizations, one row per organization and year`, async () => {
    const expected = (await allItems('/budget/api/organization/')).flatMap(organizationRows);
    expect(expected.length).toBeGreaterThan(ORGANIZATIONS);
    expect((await getCsv(t.app, '/budget/api/organization/?format=csv')).rows).toEqual(expected.map(csvCells));
    expect((await getArrow(t.app, '/budget/api/organization/?format=arrow')).rows).toEqual(expected);
    const parquet = await getParquet(t.app, '/budget/api/organization/?format=parquet');
    expect(parquet.rows.map((r) => ({ ...r, id: Number(r.id) }))).toEqual(expected);
  });
  it('keeps only organizations with lines that year, with that year alone, with year=', async () => {
    const expected = (await allItems('/budget/api/organization/?year=2022')).flatMap(organizationRows);
    expect(expected.map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect((await getArrow(t.app, '/budget/api/organization/?year=2022&format=arrow')).rows).toEqual(expected);
  });
  it('holds every node of every tree with hierarchy=true', async () => {
    const roots = (await request(t.app).get('/budget/api/expenses/?hierarchy=true&limit=1000')).body.results;
    const csv = await getCsv(t.app, '/budget/api/expenses/?hierarchy=true&format=csv');
    expect(csv.rows.filter((r) => r.depth === '0')).toHaveLength(roots.length);
    expect(csv.rows.map((r) => [r.year, r.id])).toContainEqual(['2020', '13']);
  });
  it('is sent in chunks as it is written, with no Content-Length, the first time it is asked', async () => {
    // An export no other test here asks for: once asked, it is sent from a file (test/export-files.test.ts).
    const res = await request(t.app).get('/budget/api/resources/?format=csv&year=2021');
    expect(res.status).toBe(200);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['content-length']).toBeUndefined();
  });
});

describe('a CSV, Arrow or Parquet download with limit or offset', () => {
  it('holds just that page', async () => {
    const csv = await getCsv(t.app, '/budget/api/expenses/?format=csv&limit=10&offset=2495');
    expect(csv.rows.map((r) => Number(r.id))).toEqual([2496, 2497, 2498, 2499, 2500]);
    const arrow = await getArrow(t.app, '/budget/api/resources/?format=arrow&limit=3&offset=0');
    expect(arrow.rows.map((r) => r.id)).toEqual([1, 2, 3]);
  });
  it('holds the default page of 100 when only offset is given', async () => {
    const csv = await getCsv(t.app, '/budget/api/expenses/?format=csv&offset=2000');
    expect(csv.rows.map((r) => Number(r.id))).toEqual(Array.from({ length: 100 }, (_, i) => 2001 + i));
  });
  it('pages organizations, not their years, and matches the JSON page', async () => {
    const page = (await request(t.app).get('/budget/api/organization/?limit=5&offset=2')).body.results;
    const csv = await getCsv(t.app, '/budget/api/organization/?format=csv&limit=5&offset=2');
    expect(csv.rows).toEqual(page.flatMap(organizationRows).map(csvCells));
  });
});

/** Expense lines of `small` with these amounts (DECIMAL(38,6) in the file), all of 2023. */
const withAmounts = (amounts: readonly string[]): DropData => ({
  ...small,
  expenses: {
    sql: `SELECT * FROM (VALUES ${amounts.map((amount, i) => `(${i + 1}, 2023, ${amount}::DECIMAL(38,6), 11, 1, false)`).join(', ')})
          AS t(id, year, amount, category_id, organization_id, complementary)`,
  },
});

describe('a full export of amounts past 10^12 and of halves', () => {
  // Amounts under 10^12 are rounded in a narrower decimal than the rest (sql/derive/all_lines.sql):
  // both sides of that line, halves and a whole number must come out as the JSON pages write them.
  let big: TestApp;
  beforeAll(async () => {
    big = await appFor(withAmounts(['1234567890123.4565', '-0.0005', '999999999999.9995', '100', '2.0045']));
  });
  afterAll(() => big.close());

  it('rounds each half away from zero, in CSV, Arrow and Parquet as in JSON', async () => {
    const amounts = [1234567890123.457, -0.001, 1000000000000, 100, 2.005];
    const json = await request(big.app).get('/budget/api/expenses/');
    expect(json.body.results.map((r: Item) => r.amount)).toEqual(amounts);
    const csv = await getCsv(big.app, '/budget/api/expenses/?format=csv');
    expect(csv.rows.map((r) => r.amount)).toEqual(['1234567890123.457', '-0.001', '1000000000000', '100', '2.005']);
    expect((await getArrow(big.app, '/budget/api/expenses/?format=arrow')).rows.map((r) => r.amount)).toEqual(amounts);
    expect((await getParquet(big.app, '/budget/api/expenses/?format=parquet')).rows.map((r) => r.amount)).toEqual(amounts);
  });
});

describe('amounts stored in a narrower decimal when every one is under 10^12', () => {
  // The lines' amounts are stored as DECIMAL(18,6) when they all fit (src/data/drop.ts), else as
  // DECIMAL(38,6): the same lines on either side of that choice give the same answers.
  const UNDER = ['-0.0005', '999999999999.9995', '100', '2.0045', '0.000001', '-999999999999.999999'];
  const storedAs = async (amounts: readonly string[]) => {
    const drop = await loadDrop(await writeDrop(withAmounts(amounts)));
    const connection = await drop.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT data_type FROM duckdb_columns() WHERE table_name = 'expenses' AND column_name = 'amount'`,
      );
      return reader.getRows()[0]![0];
    } finally {
      connection.closeSync();
      drop.instance.closeSync();
    }
  };

  it('stores DECIMAL(18,6) when every amount is under 10^12, else DECIMAL(38,6)', async () => {
    expect(await storedAs(UNDER)).toBe('DECIMAL(18,6)');
    expect(await storedAs([...UNDER, '1000000000000'])).toBe('DECIMAL(38,6)');
    expect(await storedAs([...UNDER, '-1000000000000.5'])).toBe('DECIMAL(38,6)');
  });

  it('gives the same lines, exports and totals either way', async () => {
    const narrow = await appFor(withAmounts(UNDER));
    // The same lines, and one of 10^12 in 2024, which keeps the amounts wide.
    const wide = await appFor({
      ...withAmounts(UNDER),
      expenses: {
        sql: `${(withAmounts(UNDER).expenses as { sql: string }).sql} UNION ALL SELECT 99, 2024, 1000000000000::DECIMAL(38,6), 11, 1, false`,
      },
    });
    try {
      const answers = async (app: TestApp['app']) => ({
        json: (await request(app).get('/budget/api/expenses/?year=2023')).body.results.map((r: Item) => r.amount),
        csv: (await getCsv(app, '/budget/api/expenses/?format=csv&year=2023')).rows.map((r) => r.amount),
        parquet: (await getParquet(app, '/budget/api/expenses/?format=parquet&year=2023')).rows.map((r) => r.amount),
        totals: (await request(app).get('/budget/api/totals/?year=2023')).body,
        categories: (await request(app).get('/budget/api/categories/?year=2023')).body,
      });
      const expected = await answers(wide.app);
      expect(expected.json).toEqual([-0.001, 1000000000000, 100, 2.005, 0, -1000000000000]);
      expect(expected.totals[0].total_expenses).toBe(102.004);
      expect(await answers(narrow.app)).toEqual(expected);
    } finally {
      await narrow.close();
      await wide.close();
    }
  });
});

describe('a full export of one category', () => {
  // A category without subcategories is bound as its id alone, one with them as its subtree's list
  // (src/api/endpoints/lines.ts): either way the export holds the lines the JSON pages list.
  let smallApp: TestApp;
  beforeAll(async () => {
    smallApp = await appFor(small);
  });
  afterAll(() => smallApp.close());

  it('holds the lines of the category and its subcategories, in CSV, Arrow and Parquet as in JSON', async () => {
    const cases = [...[10, 11, 12, 13, 20, 50].map((id) => ['expenses', id] as const), ...[30, 31, 32, 40].map((id) => ['resources', id] as const)];
    const seen = new Set<number>();
    for (const [table, category] of cases) {
      const url = `/budget/api/${table}/?category=${category}`;
      const ids = (await request(smallApp.app).get(url)).body.results.map((r: Item) => r.id as number);
      ids.forEach((id: number) => seen.add(id));
      expect(
        (await getCsv(smallApp.app, `${url}&format=csv`)).rows.map((r) => Number(r.id)),
        url,
      ).toEqual(ids);
      expect(
        (await getArrow(smallApp.app, `${url}&format=arrow`)).rows.map((r) => Number(r.id)),
        url,
      ).toEqual(ids);
      expect(
        (await getParquet(smallApp.app, `${url}&format=parquet`)).rows.map((r) => Number(r.id)),
        url,
      ).toEqual(ids);
    }
    // Categories 10 and 11 have subcategories; 13 and 12 have lines and none.
    expect((await request(smallApp.app).get('/budget/api/expenses/?category=10')).body.results.map((r: Item) => r.id)).toEqual([1, 2, 3, 5, 6]);
    expect((await request(smallApp.app).get('/budget/api/expenses/?category=13')).body.results.map((r: Item) => r.id)).toEqual([2]);
    expect(seen.size).toBeGreaterThan(5);
  });
});
