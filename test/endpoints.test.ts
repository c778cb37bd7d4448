/**
 * Every data endpoint of docs/api.md#data-endpoints, over the hand-checked `small` drop
 * (test/fixtures/small.ts); each expected figure is worked out from the fixture's lines.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { appFor, type TestApp } from './helpers/app.js';
import { getArrow, getParquet } from './helpers/downloads.js';
import { figuresOnly } from './helpers/rollups.js';

let t: TestApp;
beforeAll(async () => {
  t = await appFor(small);
});
afterAll(() => t.close());

const get = async (url: string) => {
  const res = await request(t.app).get(url);
  expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  return figuresOnly(url, res.body);
};

const EDU = { id: 1, name: "Ministère de l'Éducation", code: 'EDU' };
const SAN = { id: 2, name: 'Ministère de la Santé', code: 'SAN' };
/** What a line of a drop without stage, source_id and derived columns carries: complementary gives its stage. */
const INITIAL = { stage: 'initial', source_id: null, derived: false };
const AMENDMENT = { stage: 'amendment', source_id: null, derived: false };
/** What a series row of a drop without stage, source_id and derived columns carries. */
const UNSTATED = { stage: null, source_id: null, derived: false };

describe('GET /budget/api/totals/', () => {
  it('sums every line per year, complementary ones included, with balance = resources - expenses', async () => {
    expect(await get('/budget/api/totals/')).toEqual([
      { year: 2023, total_expenses: 350.35, total_resources: 1600.499, balance: 1250.149 },
      { year: 2024, total_expenses: 300.3, total_resources: 800, balance: 499.7 },
    ]);
  });
  it('leaves out lines of complementary finance laws with include_complementary=false', async () => {
    expect(await get('/budget/api/totals/?include_complementary=false')).toEqual([
      { year: 2023, total_expenses: 300.3, total_resources: 1500.5, balance: 1200.2 },
      { year: 2024, total_expenses: 300.3, total_resources: 800, balance: 499.7 },
    ]);
  });
  it('gives a balance that is the difference of the totals as shown, for amounts recorded past the thousandth', async () => {
    // 0.0005 shows as 0.001, 0.3 as 0.3: the balance a reader checks is 0.001 - 0.3 = -0.299 (not -0.2995 rounded, -0.3).
    const fine = await appFor({
      ...small,
      expenses: { sql: `SELECT 1 AS id, 2024 AS year, 0.3::DOUBLE AS amount, 11 AS category_id, 1 AS organization_id, false AS complementary` },
      resources: {
        sql: `SELECT 1 AS id, 2024 AS year, 0.0005::DOUBLE AS amount, 31 AS category_id, NULL::BIGINT AS organization_id, false AS complementary`,
      },
    });
    try {
      const [row] = figuresOnly('/budget/api/totals/', (await request(fine.app).get('/budget/api/totals/')).body);
      expect(row).toEqual({ year: 2024, total_expenses: 0.3, total_resources: 0.001, balance: -0.299 });
    } finally {
      fine.close();
    }
  });
  it('keeps one year with year=2024, and answers an empty list for a year without data', async () => {
    expect(await get('/budget/api/totals/?year=2024')).toEqual([{ year: 2024, total_expenses: 300.3, total_resources: 800, balance: 499.7 }]);
    expect(await get('/budget/api/totals/?year=1999')).toEqual([]);
  });
});

describe('GET /budget/api/budget-categories/', () => {
  it('rolls every category up over its subtree, across years, ordered by id', async () => {
    const rows = await get('/budget/api/budget-categories/');
    expect(rows.map((r: { id: number }) => r.id)).toEqual([10, 11, 12, 13, 20, 30, 31, 32, 40]);
    expect(rows[0]).toEqual({ id: 10, category: 'Dépenses de gestion', type: 'expense', parent_id: null, expenses: 350.65, resources: 0 });
    expect(rows[1]).toEqual({ id: 11, category: 'Rémunérations', type: 'expense', parent_id: 10, expenses: 300.6, resources: 0 });
    expect(rows[5]).toEqual({ id: 30, category: 'Recettes fiscales', type: 'resource', parent_id: null, expenses: 0, resources: 2300.5 });
  });
  it('leaves out categories without lines under them (50 Réserve)', async () => {
    const rows = await get('/budget/api/budget-categories/');
    expect(rows.find((r: { id: number }) => r.id === 50)).toBeUndefined();
  });
  it('filters by year', async () => {
    const rows = await get('/budget/api/budget-categories/?year=2023');
    expect(rows.map((r: { id: number; expenses: number; resources: number }) => [r.id, r.expenses, r.resources])).toEqual([
      [10, 350.35, 0],
      [11, 300.3, 0],
      [12, 50.05, 0],
      [13, 200.2, 0],
      [30, 0, 1500.5],
      [31, 0, 1000],
      [32, 0, 500.5],
      [40, 0, 99.999],
    ]);
  });
  it.each(['resource', 'RESSOURCE', 'ressource'])('keeps resource categories with type=%s', async (type) => {
    const rows = await get(`/budget/api/budget-categories/?type=${type}`);
    expect(rows.map((r: { id: number }) => r.id)).toEqual([30, 31, 32, 40]);
    expect(rows.every((r: { type: string }) => r.type === 'resource')).toBe(true);
  });
  it.each(['expense', 'dépense', 'depense', 'D%C3%89PENSE'])('keeps expense categories with type=%s', async (type) => {
    const rows = await get(`/budget/api/budget-categories/?type=${type}&year=2024`);
    expect(rows.map((r: { id: number; expenses: number }) => [r.id, r.expenses])).toEqual([
      [10, 0.3],
      [11, 0.3],
      [20, 300],
    ]);
  });
});

describe('GET /budget/api/expenses/', () => {
  describe('flat (default)', () => {
    it('lists lines with their category name and organization, ordered by id, in the paged envelope', async () => {
      const body = await get('/budget/api/expenses/');
      expect(body.count).toBe(6);
      expect(body.next).toBeNull();
      expect(body.previous).toBeNull();
      expect(body.results[0]).toEqual({ id: 1, year: 2023, amount: 100.1, category: 'Rémunérations', organization: EDU, ...INITIAL });
      expect(body.results[2]).toEqual({ id: 3, year: 2023, amount: 50.05, category: 'Fonctionnement', organization: SAN, ...AMENDMENT });
      expect(body.results.map((r: { id: number }) => r.id)).toEqual([1, 2, 3, 4, 5, 6]);
    });
    it('filters by year and organization together', async () => {
      const body = await get('/budget/api/expenses/?year=2024&organization=1');
      expect(body.count).toBe(2);
      expect(body.results).toEqual([
        { id: 5, year: 2024, amount: 0.1, category: 'Rémunérations', organization: EDU, ...INITIAL },
        { id: 6, year: 2024, amount: 0.2, category: 'Rémunérations', organization: EDU, ...INITIAL },
      ]);
    });
    it('answers an empty page for an unknown organization', async () => {
      expect(await get('/budget/api/expenses/?organization=999')).toEqual({ count: 0, next: null, previous: null, results: [] });
    });
  });

  describe('with hierarchy=true', () => {
    it('answers one tree per year, roots ordered by year then id, amounts rolled up', async () => {
      const body = await get('/budget/api/expenses/?hierarchy=true');
      expect(body.count).toBe(3);
      expect(body.results).toEqual([
        {
          id: 10,
          name: 'Dépenses de gestion',
          year: 2023,
          amount: 350.35,
          children: [
            {
              id: 11,
              name: 'Rémunérations',
              year: 2023,
              amount: 300.3,
              children: [{ id: 13, name: 'Primes', year: 2023, amount: 200.2, children: [] }],
            },
            { id: 12, name: 'Fonctionnement', year: 2023, amount: 50.05, children: [] },
          ],
        },
        {
          id: 10,
          name: 'Dépenses de gestion',
          year: 2024,
          amount: 0.3,
          children: [{ id: 11, name: 'Rémunérations', year: 2024, amount: 0.3, children: [] }],
        },
        { id: 20, name: 'Investissement', year: 2024, amount: 300, children: [] },
      ]);
    });
    it('keeps only nodes with lines of the organization under them', async () => {
      const body = await get('/budget/api/expenses/?hierarchy=1&organization=2');
      expect(body.results).toEqual([
        {
          id: 10,
          name: 'Dépenses de gestion',
          year: 2023,
          amount: 50.05,
          children: [{ id: 12, name: 'Fonctionnement', year: 2023, amount: 50.05, children: [] }],
        },
        { id: 20, name: 'Investissement', year: 2024, amount: 300, children: [] },
      ]);
    });
    it('pages over root nodes', async () => {
      const body = await get('/budget/api/expenses/?hierarchy=true&limit=1&offset=1');
      expect(body.count).toBe(3);
      expect(body.results.map((r: { id: number; year: number }) => [r.year, r.id])).toEqual([[2024, 10]]);
      expect(body.next).toBe('/budget/api/expenses/?limit=1&offset=2&hierarchy=true');
      expect(body.previous).toBe('/budget/api/expenses/?limit=1&offset=0&hierarchy=true');
    });
  });
});

describe('figures past a trillion', () => {
  let large: TestApp;
  beforeAll(async () => {
    large = await appFor({
      ...small,
      // Money of any numeric type: DECIMAL(38,3) holds both to the cent.
      expenses: {
        sql: `SELECT * FROM (VALUES (1, 2023, 1234567890123.456::DECIMAL(38,3), 11, 1, false), (2, 2024, 1e18::DECIMAL(38,3), 11, 1, false))
                t(id, year, amount, category_id, organization_id, complementary)`,
      },
    });
  });
  afterAll(() => large.close());

  it('keeps their three decimals in roll-ups, as the lines have them, and never turns them into null', async () => {
    const res = await request(large.app).get('/budget/api/totals/').expect(200);
    expect(res.body.map((r: { total_expenses: number }) => r.total_expenses)).toEqual([1234567890123.456, 1e18]);
    expect(res.body[0].balance).toBe(-1234567888522.957);
    const csv = await request(large.app).get('/budget/api/totals/?format=csv').expect(200);
    expect(csv.text).toContain('\r\n2023,1234567890123.456,1600.499,-1234567888522.957,');
    expect(csv.text).toContain('\r\n2024,1000000000000000000,800,-999999999999999200,');
    expect(csv.text).not.toContain('NaN');
  });
});

describe('ids past 2^53', () => {
  const BIG_CATEGORY = 9007199254740993n; // 2^53 + 1
  const BIG_ORGANIZATION = 9007199254740995n;
  const BIG_ORIGIN = 9007199254740997n;
  let big: TestApp;
  beforeAll(async () => {
    big = await appFor({
      ...small,
      organizations: [...small.organizations!, { id: BIG_ORGANIZATION, name: 'Office lointain', code: 'FAR' }],
      categories: [...small.categories!, { id: BIG_CATEGORY, name: 'Catégorie lointaine', type: 'expense', parent_id: 20 }],
      expenses: [{ id: 7, year: 2024, amount: 1.5, category_id: BIG_CATEGORY, organization_id: BIG_ORGANIZATION, complementary: false }],
      resources: [{ id: 9, year: 2024, amount: 2.5, category_id: 31, organization_id: BIG_ORGANIZATION, complementary: false }],
      debt_origins: [
        ...small.debt_origins!,
        { id: BIG_ORIGIN, parent_id: 2, name: 'Lointaine' },
        { id: 5, parent_id: BIG_ORIGIN, name: 'Sous-lointaine' },
      ],
      debt: [...small.debt!, { year: 2023, debt_origin_id: 5, value: 7 }],
    });
  });
  afterAll(() => big.close());

  // JSON.parse would round these ids, so the tests read the JSON text as sent.
  const text = async (url: string) => {
    const res = await request(big.app).get(url);
    expect(res.status, url).toBe(200);
    return res.text;
  };
  const LINE =
    '{"id":7,"year":2024,"amount":1.5,"category":"Catégorie lointaine","organization":{"id":9007199254740995,"name":"Office lointain","code":"FAR"},' +
    '"stage":"initial","source_id":null,"derived":false}';

  it('are written as exact JSON integers, and names are still found for them', async () => {
    for (const url of ['/budget/api/expenses/', '/budget/api/expenses/?year=2024', '/budget/api/expenses/?organization=9007199254740995']) {
      expect(await text(url), url).toContain(`"results":[${LINE}]`);
    }
    expect(await text('/budget/api/resources/')).toContain(
      '"results":[{"id":9,"year":2024,"amount":2.5,"source":"Impôts directs","stage":"initial","source_id":null,"derived":false}]',
    );
    expect(await text('/budget/api/budget-categories/?year=2024&type=expense')).toContain(
      '{"id":9007199254740993,"category":"Catégorie lointaine","type":"expense","parent_id":20,',
    );
    expect(await text('/budget/api/organization/?offset=3')).toContain(
      '"results":[{"id":9007199254740995,"name":"Office lointain","code":"FAR","budget":[{"year":2024,"expenses":1.5,"resources":2.5}]}]',
    );
    const trees = await text('/budget/api/expenses/?hierarchy=true&year=2024');
    expect(JSON.parse(trees).results[0]).toMatchObject({ id: 20, year: 2024 });
    expect(trees).toContain('"children":[{"id":9007199254740993,"name":"Catégorie lointaine","year":2024,"amount":1.5,"children":[]}]');
  });

  it('filter exactly: organization_id, parent', async () => {
    expect(await text('/budget/api/organization/stats/?organization_id=9007199254740995')).toBe(
      '[{"organization_id":9007199254740995,"total_expenses":1.5,"total_resources":2.5,"stage":"amended","source_ids":[],"derived":false}]',
    );
    expect(await text('/budget/api/debt/?parent=9007199254740997')).toBe(
      '[{"year":2023,"debt_origin":{"id":5,"parent":9007199254740997,"name":"Sous-lointaine"},"value":7,"stage":null,"source_id":null,"derived":false}]',
    );
  });

  it('keep every digit in CSV, Arrow and Parquet exports', async () => {
    expect(await text('/budget/api/expenses/?format=csv')).toBe(
      'id,year,amount,category,organization_id,organization_name,organization_code,stage,source_id,derived\r\n' +
        '7,2024,1.5,Catégorie lointaine,9007199254740995,Office lointain,FAR,initial,,false\r\n',
    );
    const { table } = await getArrow(big.app, '/budget/api/expenses/?format=arrow');
    expect(table.get(0)?.toJSON()).toMatchObject({ id: 7n, organization_id: BIG_ORGANIZATION });
    const { rows } = await getParquet(big.app, '/budget/api/expenses/?format=parquet');
    expect(rows).toEqual([
      {
        id: 7n,
        year: 2024,
        amount: 1.5,
        category: 'Catégorie lointaine',
        organization_id: BIG_ORGANIZATION,
        organization_name: 'Office lointain',
        organization_code: 'FAR',
        stage: 'initial',
        source_id: null,
        derived: false,
      },
    ]);
  });
});

describe('ids on either side of 2^20, 2^31 and 2^32 in full exports', () => {
  // Names are looked up by the id's two 32-bit halves, and ids under 2^20 in an array: each line
  // sits on one side of one of those edges. 2^32's low half is 0 and its high half 1, the id of
  // another organization.
  const ORGANIZATIONS = [2 ** 20 - 1, 2 ** 20, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 32 + 1, 2 ** 40 + 3].map((id, i) => ({
    id,
    name: `Office ${i}`,
    code: `O${i}`,
  }));
  const CATEGORIES = [2 ** 31 + 7, 13, 2 ** 20, 12, 2 ** 32 - 1, 11, 2 ** 20];
  let edges: TestApp;
  beforeAll(async () => {
    edges = await appFor({
      ...small,
      organizations: [...small.organizations!, ...ORGANIZATIONS],
      categories: [
        ...small.categories!,
        ...[2 ** 20, 2 ** 31 + 7, 2 ** 32 - 1].map((id) => ({ id, name: `Catégorie ${id}`, type: 'expense' as const, parent_id: 20 })),
      ],
      expenses: ORGANIZATIONS.map((o, i) => ({
        id: i + 1,
        year: 2024,
        amount: i + 0.5,
        category_id: CATEGORIES[i]!,
        organization_id: o.id,
        complementary: false,
      })),
    });
  });
  afterAll(() => edges.close());

  it('name every line in CSV, Arrow and Parquet as the JSON answer does', async () => {
    const json = (await request(edges.app).get('/budget/api/expenses/')).body.results as {
      category: string;
      organization: { id: number; name: string; code: string };
    }[];
    const expected = json.map((line) => [line.category, line.organization.name, line.organization.code]);
    expect(expected.map(([, name]) => name)).toEqual(ORGANIZATIONS.map((o) => o.name));
    expect(expected.map(([category]) => category)).toEqual([
      'Catégorie 2147483655',
      'Primes',
      'Catégorie 1048576',
      'Fonctionnement',
      'Catégorie 4294967295',
      'Rémunérations',
      'Catégorie 1048576',
    ]);

    const csv = (await request(edges.app).get('/budget/api/expenses/?format=csv')).text.trim().split('\r\n').slice(1);
    expect(csv.map((line) => line.split(',').slice(3, 7))).toEqual(
      json.map((line, i) => [line.category, String(ORGANIZATIONS[i]!.id), line.organization.name, line.organization.code]),
    );
    const { table } = await getArrow(edges.app, '/budget/api/expenses/?format=arrow');
    expect(table.toArray().map((row) => [row.category, row.organization_name, row.organization_code])).toEqual(expected);
    const { rows } = await getParquet(edges.app, '/budget/api/expenses/?format=parquet');
    expect(rows.map((row) => [row.category, row.organization_name, row.organization_code])).toEqual(expected);
  });

  it("keep in a Parquet export's footer the range of those ids, as hyparquet-writer has it for a page", async () => {
    // Compared by halves: 2^31's low half read signed would be the smallest, the high half left out would make 2^31 - 1 the largest.
    const { ranges } = await getParquet(edges.app, '/budget/api/expenses/?format=parquet');
    expect(ranges[0]!.organization_id).toEqual([String(2 ** 20 - 1), String(2 ** 40 + 3)]);
    const page = await getParquet(edges.app, '/budget/api/expenses/?format=parquet&limit=7');
    expect(page.ranges[0]!.organization_id).toEqual(ranges[0]!.organization_id);
  });
});

describe('GET /budget/api/resources/', () => {
  it('lists lines with their source (the category name), ordered by id', async () => {
    const body = await get('/budget/api/resources/?year=2023');
    expect(body).toEqual({
      count: 3,
      next: null,
      previous: null,
      results: [
        { id: 1, year: 2023, amount: 1000, source: 'Impôts directs', ...INITIAL },
        { id: 2, year: 2023, amount: 500.5, source: 'Impôts indirects', ...INITIAL },
        { id: 3, year: 2023, amount: 99.999, source: 'Emprunts', ...AMENDMENT },
      ],
    });
  });
  it('answers the resource tree with hierarchy=true', async () => {
    const body = await get('/budget/api/resources/?hierarchy=true&year=2023');
    expect(body.count).toBe(2);
    expect(body.results).toEqual([
      {
        id: 30,
        name: 'Recettes fiscales',
        year: 2023,
        amount: 1500.5,
        children: [
          { id: 31, name: 'Impôts directs', year: 2023, amount: 1000, children: [] },
          { id: 32, name: 'Impôts indirects', year: 2023, amount: 500.5, children: [] },
        ],
      },
      { id: 40, name: 'Emprunts', year: 2023, amount: 99.999, children: [] },
    ]);
  });
});

describe('GET /budget/api/organization/', () => {
  it('lists every organization with its budget per year, even one without lines', async () => {
    expect(await get('/budget/api/organization/')).toEqual({
      count: 3,
      next: null,
      previous: null,
      results: [
        {
          ...EDU,
          budget: [
            { year: 2023, expenses: 300.3, resources: 500.5 },
            { year: 2024, expenses: 0.3, resources: 0 },
          ],
        },
        {
          ...SAN,
          budget: [
            { year: 2023, expenses: 50.05, resources: 0 },
            { year: 2024, expenses: 300, resources: 800 },
          ],
        },
        { id: 3, name: 'Agence sans crédits', code: 'NONE', budget: [] },
      ],
    });
  });
  it('keeps organizations with lines that year, and that year alone, with year=2024', async () => {
    expect(await get('/budget/api/organization/?year=2024')).toEqual({
      count: 2,
      next: null,
      previous: null,
      results: [
        { ...EDU, budget: [{ year: 2024, expenses: 0.3, resources: 0 }] },
        { ...SAN, budget: [{ year: 2024, expenses: 300, resources: 800 }] },
      ],
    });
  });
  it('pages over organizations, not over their years', async () => {
    const body = await get('/budget/api/organization/?limit=1&offset=1');
    expect(body.count).toBe(3);
    expect(body.results).toEqual([
      {
        ...SAN,
        budget: [
          { year: 2023, expenses: 50.05, resources: 0 },
          { year: 2024, expenses: 300, resources: 800 },
        ],
      },
    ]);
  });
  it('shows budgets of hundreds of billions to the thousandth, with and without year', async () => {
    const big = await appFor({
      ...small,
      expenses: [
        { id: 1, year: 2023, amount: 123456789012.345, category_id: 11, organization_id: 1, complementary: false },
        { id: 2, year: 2023, amount: 0.001, category_id: 11, organization_id: 1, complementary: false },
        { id: 3, year: 2024, amount: 0.1, category_id: 11, organization_id: 1, complementary: false },
        { id: 4, year: 2024, amount: 0.2, category_id: 11, organization_id: 1, complementary: false },
      ],
      resources: [{ id: 1, year: 2023, amount: 987654321098.765, category_id: 31, organization_id: 1, complementary: false }],
    });
    try {
      const budget = [
        { year: 2023, expenses: 123456789012.346, resources: 987654321098.765 },
        { year: 2024, expenses: 0.3, resources: 0 },
      ];
      expect((await request(big.app).get('/budget/api/organization/?limit=1')).body.results).toEqual([{ ...EDU, budget }]);
      expect((await request(big.app).get('/budget/api/organization/?year=2023')).body.results).toEqual([{ ...EDU, budget: [budget[0]] }]);
    } finally {
      big.close();
    }
  });
});

describe('GET /budget/api/organization/stats/', () => {
  it('totals every organization over all years, ordered by organization_id', async () => {
    expect(await get('/budget/api/organization/stats/')).toEqual([
      { organization_id: 1, total_expenses: 300.6, total_resources: 500.5 },
      { organization_id: 2, total_expenses: 350.05, total_resources: 800 },
      { organization_id: 3, total_expenses: 0, total_resources: 0 },
    ]);
  });
  it('keeps organizations with lines that year with year=2023', async () => {
    expect(await get('/budget/api/organization/stats/?year=2023')).toEqual([
      { organization_id: 1, total_expenses: 300.3, total_resources: 500.5 },
      { organization_id: 2, total_expenses: 50.05, total_resources: 0 },
    ]);
  });
  it('keeps one organization with organization_id, and none for an unknown id', async () => {
    expect(await get('/budget/api/organization/stats/?organization_id=2&year=2024')).toEqual([
      { organization_id: 2, total_expenses: 300, total_resources: 800 },
    ]);
    expect(await get('/budget/api/organization/stats/?organization_id=42')).toEqual([]);
  });
});

describe('GET /budget/api/debt/', () => {
  const origin = (id: number, parent: number | null, name: string) => ({ id, parent, name });
  const INT = origin(1, null, 'Dette intérieure');
  const EXT = origin(2, null, 'Dette extérieure');
  const MULTI = origin(3, 2, 'Multilatérale');
  const BI = origin(4, 2, 'Bilatérale');

  it('answers every (year, origin) with a value in its subtree, rolled up, ordered by year then id', async () => {
    expect(await get('/budget/api/debt/')).toEqual([
      { year: 2022, debt_origin: INT, value: 100, ...UNSTATED },
      { year: 2022, debt_origin: EXT, value: 75.5, ...UNSTATED },
      { year: 2022, debt_origin: MULTI, value: 50, ...UNSTATED },
      { year: 2022, debt_origin: BI, value: 25.5, ...UNSTATED },
      { year: 2023, debt_origin: INT, value: 110, ...UNSTATED },
      { year: 2023, debt_origin: EXT, value: 65, ...UNSTATED },
      { year: 2023, debt_origin: MULTI, value: 60, ...UNSTATED },
    ]);
  });
  describe('with parent=null', () => {
    it('returns only top-level origins', async () => {
      expect(await get('/budget/api/debt/?parent=null&year=2023')).toEqual([
        { year: 2023, debt_origin: INT, value: 110, ...UNSTATED },
        { year: 2023, debt_origin: EXT, value: 65, ...UNSTATED },
      ]);
    });
  });
  describe('with parent=<id>', () => {
    it("returns that origin's children", async () => {
      expect(await get('/budget/api/debt/?parent=2')).toEqual([
        { year: 2022, debt_origin: MULTI, value: 50, ...UNSTATED },
        { year: 2022, debt_origin: BI, value: 25.5, ...UNSTATED },
        { year: 2023, debt_origin: MULTI, value: 60, ...UNSTATED },
      ]);
    });
    it('returns an empty list for an unknown origin', async () => {
      expect(await get('/budget/api/debt/?parent=77')).toEqual([]);
    });
  });
});

describe('GET /budget/api/outstanding-debt/', () => {
  it('answers the stock with GDP and its percentage of GDP, rounded half away from zero', async () => {
    expect(await get('/budget/api/outstanding-debt/')).toEqual([
      { year: 2022, outstanding_debt: 43.45, gdp: 1000, value: 4.35, published_value: null, ...UNSTATED },
      { year: 2023, outstanding_debt: 1000, gdp: 3000, value: 33.33, published_value: null, ...UNSTATED },
    ]);
  });
  it('answers only the most recent year, still as an array, with year=last', async () => {
    expect(await get('/budget/api/outstanding-debt/?year=last')).toEqual([
      { year: 2023, outstanding_debt: 1000, gdp: 3000, value: 33.33, published_value: null, ...UNSTATED },
    ]);
  });
  it('filters by year', async () => {
    expect(await get('/budget/api/outstanding-debt/?year=2022')).toEqual([
      { year: 2022, outstanding_debt: 43.45, gdp: 1000, value: 4.35, published_value: null, ...UNSTATED },
    ]);
  });
});

describe('GET /budget/api/deficit/', () => {
  it('answers the deficit with its percentage of GDP, negative halves rounded away from zero', async () => {
    expect(await get('/budget/api/deficit/')).toEqual([
      { year: 2022, value: -43.45, percent: -4.35, published_percent: null, gdp: 1000, ...UNSTATED },
      { year: 2024, value: 1, percent: 12.5, published_percent: null, gdp: 8, ...UNSTATED },
    ]);
  });
});
