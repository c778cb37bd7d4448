/**
 * Field selection (docs/api.md#field-selection): `fields=a,b` keeps only those fields of each row
 * on every data endpoint, in every format; a tree's nodes keep them and their children; an
 * unknown field is refused naming it and listing the fields; any order of the names is one query.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { appFor, type TestApp } from './helpers/app.js';
import { getArrow, getCsv, getParquet } from './helpers/downloads.js';

let t: TestApp;
beforeAll(async () => {
  t = await appFor(small);
});
afterAll(() => t.close());

describe('GET /budget/api/totals/', () => {
  describe('with fields=year,balance', () => {
    it('keeps only those fields of each row', async () => {
      const all = (await request(t.app).get('/budget/api/totals/').expect(200)).body as Record<string, unknown>[];
      const res = await request(t.app).get('/budget/api/totals/?fields=year,balance').expect(200);
      expect(res.body).toEqual(all.map((row) => ({ year: row.year, balance: row.balance })));
    });

    it('keeps them in CSV and Arrow too', async () => {
      const csv = await getCsv(t.app, '/budget/api/totals/?fields=balance,year&format=csv');
      expect(csv.header).toEqual(['year', 'balance']);
      const arrow = await getArrow(t.app, '/budget/api/totals/?fields=year&format=arrow');
      expect(arrow.table.schema.fields.map((f) => f.name)).toEqual(['year']);
    });

    it('writes an empty field of a one-column CSV as "", on a page and in a whole export, so that no row reads as a blank line', async () => {
      // The small drop's lines have no source_id; a blank line is skipped by csv readers and pandas.
      const page = await request(t.app).get('/budget/api/expenses/?fields=source_id&format=csv&limit=3').expect(200);
      expect(page.text).toBe('source_id\r\n""\r\n""\r\n""\r\n');
      const whole = await request(t.app).get('/budget/api/expenses/?fields=source_id&format=csv').expect(200);
      expect(whole.text).toBe(`source_id\r\n${'""\r\n'.repeat(6)}`);
      // With two columns an empty field stays empty, as RFC 4180 writes it.
      const two = await request(t.app).get('/budget/api/expenses/?fields=id,source_id&format=csv&limit=1').expect(200);
      expect(two.text).toBe('id,source_id\r\n1,\r\n');
    });

    it('answers any order of the names with one ETag', async () => {
      const a = await request(t.app).get('/budget/api/totals/?fields=year,balance').expect(200);
      const b = await request(t.app).get('/budget/api/totals/?fields=balance,year').expect(200);
      expect(b.headers.etag).toBe(a.headers.etag);
      const all = await request(t.app).get('/budget/api/totals/').expect(200);
      expect(all.headers.etag).not.toBe(a.headers.etag);
    });
  });

  describe('with an unknown field', () => {
    it('is refused with 400 naming it and listing the fields', async () => {
      const res = await request(t.app).get('/budget/api/totals/?fields=year,deficit').expect(400);
      expect(res.body.code).toBe('invalid_parameter');
      expect(res.body.errors).toEqual([
        {
          parameter: 'fields',
          message: expect.stringMatching(/^has an unknown field deficit; the fields are year, total_expenses, total_resources, balance/),
        },
      ]);
    });

    it('is refused for change and change_pct without change=previous_year, which alone gives them', async () => {
      const res = await request(t.app).get('/budget/api/totals/?fields=year,change');
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        {
          parameter: 'fields',
          message:
            'has change, a field only with change=previous_year; the fields are year, total_expenses, total_resources, balance, stage, source_ids, derived',
        },
      ]);
      const withChange = await request(t.app).get('/budget/api/totals/?fields=year,change&change=previous_year').expect(200);
      expect(withChange.body[0]).toEqual({ year: 2023, change: expect.anything() });
    });

    it('is refused when empty or not a list of names', async () => {
      expect((await request(t.app).get('/budget/api/totals/?fields=').expect(400)).body.errors[0].parameter).toBe('fields');
      expect((await request(t.app).get('/budget/api/totals/?fields=year,,balance').expect(400)).body.errors[0].parameter).toBe('fields');
    });
  });
});

describe('GET /budget/api/expenses/', () => {
  it('keeps a nested object whole, and its flattened columns in CSV', async () => {
    const res = await request(t.app).get('/budget/api/expenses/?fields=id,organization&limit=2').expect(200);
    expect(Object.keys(res.body.results[0])).toEqual(['id', 'organization']);
    expect(Object.keys(res.body.results[0].organization)).toEqual(['id', 'name', 'code']);
    expect(res.body.count).toBeGreaterThan(2);
    const csv = await getCsv(t.app, '/budget/api/expenses/?fields=organization,amount&format=csv');
    expect(csv.header).toEqual(['amount', 'organization_id', 'organization_name', 'organization_code']);
  });

  describe('with hierarchy=true', () => {
    it('keeps the chosen fields of every node, and its children', async () => {
      const res = await request(t.app).get('/budget/api/expenses/?hierarchy=true&fields=name,amount').expect(200);
      const check = (node: Record<string, unknown>) => {
        expect(Object.keys(node).sort()).toEqual(['amount', 'children', 'name']);
        (node.children as Record<string, unknown>[]).forEach(check);
      };
      expect(res.body.results.length).toBeGreaterThan(0);
      res.body.results.forEach(check);
    });

    it("refuses a field of the flat list's rows that nodes do not have", async () => {
      const res = await request(t.app).get('/budget/api/expenses/?hierarchy=true&fields=organization').expect(400);
      expect(res.body.errors[0].message).toContain('the fields are id, name, year, amount, children');
    });
  });
});

describe('GET /budget/api/organization/ downloads', () => {
  interface Organization {
    id: number;
    name: string;
    budget: { year: number }[];
  }
  const organizations = async (query: string) =>
    (await request(t.app).get(`/budget/api/organization/?${query}`).expect(200)).body.results as Organization[];

  describe('with fields that leave the budget out', () => {
    it('has one row per organization with only those columns, in CSV, Arrow and Parquet, as in JSON', async () => {
      const json = await organizations('fields=id,name');
      expect(json.length).toBeGreaterThan(1);
      const expected = json.map(({ id, name }) => ({ id, name }));
      const csv = await getCsv(t.app, '/budget/api/organization/?fields=name,id&format=csv');
      expect(csv.header).toEqual(['id', 'name']);
      expect(csv.rows).toEqual(expected.map(({ id, name }) => ({ id: String(id), name })));
      const arrow = await getArrow(t.app, '/budget/api/organization/?fields=id,name&format=arrow');
      expect(arrow.rows).toEqual(expected);
      const parquet = await getParquet(t.app, '/budget/api/organization/?fields=id,name&format=parquet');
      expect(parquet.rows.map(({ id, name }) => ({ id: Number(id), name }))).toEqual(expected);
    });

    it('keeps one row per organization on a page and under a year filter', async () => {
      const page = await getCsv(t.app, '/budget/api/organization/?fields=name&limit=2&format=csv');
      expect(page.header).toEqual(['name']);
      expect(page.rows.map((row) => row.name)).toEqual((await organizations('limit=2')).map((o) => o.name));
      const ofYear = await getCsv(t.app, '/budget/api/organization/?year=2023&fields=id&format=csv');
      expect(ofYear.rows.map((row) => Number(row.id))).toEqual((await organizations('year=2023')).map((o) => o.id));
    });
  });

  describe('with fields that keep the budget', () => {
    it('has one row per organization and year, the budget flattened into year, expenses and resources', async () => {
      const json = await organizations('fields=id,budget');
      const csv = await getCsv(t.app, '/budget/api/organization/?fields=id,budget&format=csv');
      expect(csv.header).toEqual(['id', 'year', 'expenses', 'resources']);
      expect(csv.rows.map((row) => [Number(row.id), row.year === '' ? null : Number(row.year)])).toEqual(
        json.flatMap((o) => (o.budget.length > 0 ? o.budget.map((b) => [o.id, b.year]) : [[o.id, null]])),
      );
    });
  });
});

describe('every data endpoint', () => {
  it('takes fields, and keeps just the one asked for', async () => {
    const index = (await request(t.app).get('/budget/api/').expect(200)).body as { endpoints: { path: string; parameters: string[] }[] };
    const data = index.endpoints.filter((e) => e.parameters.includes('format'));
    expect(data.length).toBeGreaterThanOrEqual(10);
    for (const endpoint of data) {
      expect(endpoint.parameters).toContain('fields');
      const all = await request(t.app).get(endpoint.path).expect(200);
      const rows = (Array.isArray(all.body) ? all.body : all.body.results) as Record<string, unknown>[];
      if (rows.length === 0) continue;
      const field = Object.keys(rows[0]!)[0]!;
      const res = await request(t.app).get(`${endpoint.path}?fields=${field}`).expect(200);
      const kept = (Array.isArray(res.body) ? res.body : res.body.results) as Record<string, unknown>[];
      expect(kept.map((row) => Object.keys(row))).toEqual(rows.map(() => [field]));
    }
  });
});
