/**
 * Parquet downloads over the hand-checked `small` drop, read back with DuckDB as an analyst would:
 * the columns and types of the Arrow stream, the rows of the JSON answer, a tree, a full export of
 * a paged endpoint, the HTTP details (attachment name, its own ETag, HEAD, 304).
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { appFor, type TestApp } from './helpers/app.js';
import { bytes, getParquet } from './helpers/downloads.js';

let t: TestApp;
beforeAll(async () => {
  t = await appFor(small);
});
afterAll(() => t.close());

const PARQUET = 'application/vnd.apache.parquet';

describe('GET /budget/api/expenses/?format=parquet', () => {
  it('is one Parquet file of every expense line: ids BIGINT, years INTEGER, amounts DOUBLE, names VARCHAR', async () => {
    const { columns, rows } = await getParquet(t.app, '/budget/api/expenses/?format=parquet');
    expect(columns).toEqual([
      { name: 'id', type: 'BIGINT', nullable: false },
      { name: 'year', type: 'INTEGER', nullable: false },
      { name: 'amount', type: 'DOUBLE', nullable: false },
      { name: 'category', type: 'VARCHAR', nullable: false },
      { name: 'organization_id', type: 'BIGINT', nullable: false },
      { name: 'organization_name', type: 'VARCHAR', nullable: false },
      { name: 'organization_code', type: 'VARCHAR', nullable: false },
      { name: 'stage', type: 'VARCHAR', nullable: false },
      { name: 'source_id', type: 'BIGINT', nullable: true },
      { name: 'derived', type: 'BOOLEAN', nullable: false },
    ]);
    const edu = { organization_id: 1n, organization_name: "Ministère de l'Éducation", organization_code: 'EDU' };
    const san = { organization_id: 2n, organization_name: 'Ministère de la Santé', organization_code: 'SAN' };
    // small has no stage column: complementary gives the stage; no sources, nothing derived.
    const initial = { stage: 'initial', source_id: null, derived: false };
    expect(rows).toEqual([
      { id: 1n, year: 2023, amount: 100.1, category: 'Rémunérations', ...edu, ...initial },
      { id: 2n, year: 2023, amount: 200.2, category: 'Primes', ...edu, ...initial },
      { id: 3n, year: 2023, amount: 50.05, category: 'Fonctionnement', ...san, ...initial, stage: 'amendment' },
      { id: 4n, year: 2024, amount: 300, category: 'Investissement', ...san, ...initial },
      { id: 5n, year: 2024, amount: 0.1, category: 'Rémunérations', ...edu, ...initial },
      { id: 6n, year: 2024, amount: 0.2, category: 'Rémunérations', ...edu, ...initial },
    ]);
  });
  it('holds just the page asked for with limit or offset', async () => {
    const { rows } = await getParquet(t.app, '/budget/api/expenses/?format=parquet&limit=2&offset=3');
    expect(rows.map((r) => r.id)).toEqual([4n, 5n]);
  });
  it('applies the filters of the query to a full export', async () => {
    const { rows } = await getParquet(t.app, '/budget/api/expenses/?format=parquet&year=2024&organization=1');
    expect(rows.map((r) => [r.id, r.amount])).toEqual([
      [5n, 0.1],
      [6n, 0.2],
    ]);
  });
  it('is a file with its columns and no rows when nothing matches', async () => {
    const { columns, rows } = await getParquet(t.app, '/budget/api/expenses/?format=parquet&year=1999');
    expect(rows).toEqual([]);
    expect(columns.map((c) => c.name)).toEqual([
      'id',
      'year',
      'amount',
      'category',
      'organization_id',
      'organization_name',
      'organization_code',
      'stage',
      'source_id',
      'derived',
    ]);
  });
});

describe('the footer of a full export in Parquet', () => {
  it('keeps the range of each number and boolean column: readers skip row groups by ids, years and amounts', async () => {
    const { ranges } = await getParquet(t.app, '/budget/api/expenses/?format=parquet');
    expect(ranges).toHaveLength(1);
    const numbers = {
      id: ['1', '6'],
      year: ['2023', '2024'],
      amount: ['0.1', '300.0'],
      organization_id: ['1', '2'],
      source_id: [null, null],
      derived: ['false', 'false'],
    };
    expect(ranges[0]).toMatchObject(numbers);
    // The same ranges as a page of the same lines, whose statistics hyparquet-writer computes itself.
    const page = await getParquet(t.app, '/budget/api/expenses/?format=parquet&limit=6');
    expect(page.ranges[0]).toMatchObject(numbers);
  });
});

describe('a full export of more lines than one row group, in Parquet', () => {
  // Row groups of 100,000 lines: each group's numbers are gathered in one array, used again for
  // the next group (src/formats/parquet.ts), so every group must hold its own lines.
  it('holds every line once, in id order, each row group with the range of its own lines', async () => {
    const many = await appFor({
      ...small,
      expenses: {
        sql: `SELECT i AS id, 2023 + i % 2 AS year, (i % 1000 / 8)::DECIMAL(38,6) AS amount, 11 AS category_id, 1 + i % 2 AS organization_id, false AS complementary
              FROM range(1, 250001) t(i)`,
      },
    });
    try {
      const { rows, rowGroups, ranges } = await getParquet(many.app, '/budget/api/expenses/?format=parquet');
      expect(rows).toHaveLength(250_000);
      rows.forEach((row, i) => {
        const id = i + 1;
        expect([row.id, row.year, row.amount, row.organization_id]).toEqual([BigInt(id), 2023 + (id % 2), (id % 1000) / 8, BigInt(1 + (id % 2))]);
      });
      // Groups of at least 100,000 lines but the last, ids running on from one group to the next.
      expect(rowGroups).toBe(3);
      const ids = ranges.map((range) => range.id!.map(Number));
      expect(ids[0]![0]).toBe(1);
      expect(ids[2]![1]).toBe(250_000);
      for (const i of [1, 2]) {
        expect(ids[i - 1]![1]! - ids[i - 1]![0]!).toBeGreaterThanOrEqual(99_999);
        expect(ids[i]![0]).toBe(ids[i - 1]![1]! + 1);
      }
    } finally {
      await many.close();
    }
  });
});

describe('a tree (hierarchy=true) in Parquet', () => {
  it('is one row per node, depth-first, with parent_id and depth, roots at depth 0', async () => {
    const { columns, rows } = await getParquet(t.app, '/budget/api/resources/?format=parquet&hierarchy=true');
    expect(columns).toEqual([
      { name: 'id', type: 'BIGINT', nullable: false },
      { name: 'parent_id', type: 'BIGINT', nullable: true },
      { name: 'name', type: 'VARCHAR', nullable: false },
      { name: 'year', type: 'INTEGER', nullable: false },
      { name: 'amount', type: 'DOUBLE', nullable: false },
      { name: 'depth', type: 'INTEGER', nullable: false },
    ]);
    expect(rows).toEqual([
      { id: 30n, parent_id: null, name: 'Recettes fiscales', year: 2023, amount: 1500.5, depth: 0 },
      { id: 31n, parent_id: 30n, name: 'Impôts directs', year: 2023, amount: 1000, depth: 1 },
      { id: 32n, parent_id: 30n, name: 'Impôts indirects', year: 2023, amount: 500.5, depth: 1 },
      { id: 40n, parent_id: null, name: 'Emprunts', year: 2023, amount: 99.999, depth: 0 },
      { id: 30n, parent_id: null, name: 'Recettes fiscales', year: 2024, amount: 800, depth: 0 },
      { id: 31n, parent_id: 30n, name: 'Impôts directs', year: 2024, amount: 800, depth: 1 },
    ]);
  });
});

describe('the other endpoints in Parquet', () => {
  it('gives the organization without lines nulls, in nullable columns', async () => {
    const { columns, rows } = await getParquet(t.app, '/budget/api/organization/?format=parquet');
    expect(columns.map((c) => [c.name, c.type, c.nullable])).toEqual([
      ['id', 'BIGINT', false],
      ['name', 'VARCHAR', false],
      ['code', 'VARCHAR', false],
      ['year', 'INTEGER', true],
      ['expenses', 'DOUBLE', true],
      ['resources', 'DOUBLE', true],
    ]);
    expect(rows).toEqual([
      { id: 1n, name: "Ministère de l'Éducation", code: 'EDU', year: 2023, expenses: 300.3, resources: 500.5 },
      { id: 1n, name: "Ministère de l'Éducation", code: 'EDU', year: 2024, expenses: 0.3, resources: 0 },
      { id: 2n, name: 'Ministère de la Santé', code: 'SAN', year: 2023, expenses: 50.05, resources: 0 },
      { id: 2n, name: 'Ministère de la Santé', code: 'SAN', year: 2024, expenses: 300, resources: 800 },
      { id: 3n, name: 'Agence sans crédits', code: 'NONE', year: null, expenses: null, resources: null },
    ]);
  });
  it('flattens a debt origin like CSV does', async () => {
    const { rows } = await getParquet(t.app, '/budget/api/debt/?format=parquet&year=2023&parent=2');
    expect(rows).toEqual([
      {
        year: 2023,
        debt_origin_id: 3n,
        debt_origin_parent: 2n,
        debt_origin_name: 'Multilatérale',
        value: 60,
        stage: null,
        source_id: null,
        derived: false,
      },
    ]);
  });
  it('answers the percentages rounded as in JSON', async () => {
    const { rows } = await getParquet(t.app, '/budget/api/outstanding-debt/?format=parquet&year=2022');
    expect(rows).toEqual([
      { year: 2022, outstanding_debt: 43.45, gdp: 1000, value: 4.35, published_value: null, stage: null, source_id: null, derived: false },
    ]);
  });
});

describe('Parquet over HTTP', () => {
  it('is chosen by Accept: application/vnd.apache.parquet too, and named like the CSV', async () => {
    const { res } = await getParquet(t.app, '/budget/api/expenses/?organization=1&year=2023', { Accept: PARQUET });
    expect(res.headers['content-disposition']).toBe('attachment; filename="expenses-year-2023-organization-1.parquet"');
    expect(res.headers.vary).toBe('Accept, Accept-Encoding');
  });
  it('has its own ETag, and answers 304 to it', async () => {
    const url = '/budget/api/deficit/';
    const parquet = (await request(t.app).get(`${url}?format=parquet`).buffer(true).parse(bytes)).headers.etag!;
    const csv = (await request(t.app).get(`${url}?format=csv`).buffer(true).parse(bytes)).headers.etag!;
    const json = (await request(t.app).get(url)).headers.etag!;
    expect(new Set([parquet, csv, json]).size).toBe(3);
    const again = await request(t.app).get(url).set({ Accept: PARQUET, 'If-None-Match': parquet });
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(parquet);
    expect(again.text ?? '').toBe('');
  });
  it('answers HEAD with the download headers and no body', async () => {
    const res = await request(t.app).head('/budget/api/expenses/?format=parquet&hierarchy=true');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(PARQUET);
    expect(res.headers['content-disposition']).toBe('attachment; filename="expenses-hierarchy-true.parquet"');
    expect(res.headers.etag).toMatch(/^"[\w-]+"$/);
    expect(res.text ?? '').toBe('');
  });
});
