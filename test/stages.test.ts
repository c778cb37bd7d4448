/**
 * Stages, sources and coverage (docs/api.md, "Stages"), over HTTP against a drop with all three
 * stages (test/fixtures/staged.ts). Every expected figure is worked out by hand from the fixture.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { staged } from './fixtures/staged.js';
import { appFor, type TestApp } from './helpers/app.js';
import { getArrow, getCsv, getParquet } from './helpers/downloads.js';
import { figuresOnly } from './helpers/rollups.js';

let t: TestApp;
let plain: TestApp;
beforeAll(async () => {
  t = await appFor(
    staged,
    {},
    {
      manifest: (m) => Object.assign(m, { license: 'CC-BY-4.0', units: { name: 'MDT', currency: 'TND', scale: 1_000_000 } }),
    },
  );
  plain = await appFor(small);
});
afterAll(() => {
  t.close();
  plain.close();
});

const get = async (url: string, app = t) => {
  const res = await request(app.app).get(url);
  expect(res.status, `${url}: ${res.text}`).toBe(200);
  return figuresOnly(url, res.body);
};

const EDU = { id: 1, name: "Ministère de l'Éducation", code: 'EDU' };
const SAN = { id: 2, name: 'Ministère de la Santé', code: 'SAN' };

describe('GET /budget/api/totals/', () => {
  it('counts initial lines and amendments by default (stage=amended)', async () => {
    const amended = [
      { year: 2024, total_expenses: 160.5, total_resources: 170, balance: 9.5 },
      { year: 2025, total_expenses: 200, total_resources: 0, balance: -200 },
    ];
    expect(await get('/budget/api/totals/')).toEqual(amended);
    expect(await get('/budget/api/totals/?stage=amended')).toEqual(amended);
    expect(await get('/budget/api/totals/?include_complementary=true&stage=amended')).toEqual(amended);
  });
  it('counts the initial lines only with stage=initial, or its synonym include_complementary=false', async () => {
    const initial = [
      { year: 2024, total_expenses: 150, total_resources: 150, balance: 0 },
      { year: 2025, total_expenses: 200, total_resources: 0, balance: -200 },
    ];
    expect(await get('/budget/api/totals/?stage=initial')).toEqual(initial);
    expect(await get('/budget/api/totals/?include_complementary=false')).toEqual(initial);
    expect(await get('/budget/api/totals/?include_complementary=0&stage=INITIAL')).toEqual(initial);
  });
  it('counts the outturn lines only with stage=outturn', async () => {
    expect(await get('/budget/api/totals/?stage=outturn')).toEqual([
      { year: 2022, total_expenses: 80, total_resources: 90, balance: 10 },
      { year: 2024, total_expenses: 135.25, total_resources: 140, balance: 4.75 },
    ]);
  });
  it('refuses include_complementary and a stage that disagree, naming both', async () => {
    const res = await request(t.app).get('/budget/api/totals/?include_complementary=false&stage=outturn');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_parameter');
    expect(res.body.errors.map((e: { parameter: string }) => e.parameter)).toEqual(['include_complementary', 'stage']);
    expect(res.body.detail).toContain('include_complementary=false means stage=initial, which contradicts stage=outturn');
    expect((await request(t.app).get('/budget/api/totals/?include_complementary=true&stage=initial')).status).toBe(400);
  });
});

describe('the stage parameter', () => {
  it.each([
    '/budget/api/totals/',
    '/budget/api/budget-categories/',
    '/budget/api/expenses/',
    '/budget/api/resources/',
    '/budget/api/organization/',
    '/budget/api/organization/stats/',
    '/budget/api/debt/',
    '/budget/api/outstanding-debt/',
    '/budget/api/deficit/',
  ])('is refused on %s when it is not initial, amended or outturn', async (url) => {
    const res = await request(t.app).get(`${url}?stage=amendment`);
    expect(res.status).toBe(400);
    // Where a list of stages is taken (roll-ups and series), the message says so.
    const lists = !['/budget/api/expenses/', '/budget/api/resources/', '/budget/api/organization/'].includes(url);
    const message = `must be one of initial, amended, outturn${lists ? ', or a list of them (initial,outturn)' : ''}`;
    expect(res.body.errors).toEqual([{ parameter: 'stage', message }]);
  });
});

describe('GET /budget/api/budget-categories/', () => {
  it("orders by stage in the law's order (initial, amended, outturn), not the alphabet's, and by derived", async () => {
    const stagesOf = async (url: string) => {
      const res = await request(t.app).get(url);
      expect(res.status, url).toBe(200);
      return res.body.map((r: { id: number; stage: string }) => `${r.stage} ${r.id}`) as string[];
    };
    const up = await stagesOf('/budget/api/budget-categories/?year=2024&stage=outturn,initial,amended&ordering=stage');
    const order = [...new Set(up.map((s: string) => s.split(' ')[0]))];
    expect(order).toEqual(['initial', 'amended', 'outturn'].filter((s) => order.includes(s)));
    expect(order.length).toBeGreaterThan(1);
    const down = await stagesOf('/budget/api/budget-categories/?year=2024&stage=outturn,initial,amended&ordering=-stage');
    expect([...new Set(down.map((s: string) => s.split(' ')[0]))]).toEqual([...order].reverse());
    // Within a stage, ties by id, ascending, both ways.
    const ids = (rows: string[], stage: string) => rows.filter((s) => s.startsWith(`${stage} `)).map((s) => Number(s.split(' ')[1]));
    expect(ids(down, order[0]!)).toEqual([...ids(down, order[0]!)].sort((a, b) => a - b));
    expect((await request(t.app).get('/budget/api/organization/stats/?ordering=-derived')).status).toBe(200);
  });
  const row = (id: number, category: string, type: string, parent_id: number | null, amount: number) =>
    type === 'expense'
      ? { id, category, type, parent_id, expenses: amount, resources: 0 }
      : { id, category, type, parent_id, expenses: 0, resources: amount };
  it('rolls up each stage apart', async () => {
    expect(await get('/budget/api/budget-categories/?year=2024')).toEqual([
      row(10, 'Dépenses de gestion', 'expense', null, 110.5),
      row(11, 'Rémunérations', 'expense', 10, 110.5),
      row(20, 'Investissement', 'expense', null, 50),
      row(30, 'Recettes fiscales', 'resource', null, 170),
    ]);
    expect(await get('/budget/api/budget-categories/?year=2024&stage=initial')).toEqual([
      row(10, 'Dépenses de gestion', 'expense', null, 100),
      row(11, 'Rémunérations', 'expense', 10, 100),
      row(20, 'Investissement', 'expense', null, 50),
      row(30, 'Recettes fiscales', 'resource', null, 150),
    ]);
    expect(await get('/budget/api/budget-categories/?stage=outturn&type=expense')).toEqual([
      row(10, 'Dépenses de gestion', 'expense', null, 95.25),
      row(11, 'Rémunérations', 'expense', 10, 95.25),
      row(20, 'Investissement', 'expense', null, 120),
    ]);
  });
});

describe('GET /budget/api/expenses/', () => {
  const line = (
    id: number,
    year: number,
    amount: number,
    category: string,
    organization: object,
    stage: string,
    source_id: number | null,
    derived = false,
  ) => ({
    id,
    year,
    amount,
    category,
    organization,
    stage,
    source_id,
    derived,
  });
  const L1 = line(1, 2024, 100, 'Rémunérations', EDU, 'initial', 1);
  const L2 = line(2, 2024, 50, 'Investissement', SAN, 'initial', 1);
  const L3 = line(3, 2024, 10.5, 'Rémunérations', EDU, 'amendment', 2);
  const L4 = line(4, 2024, 95.25, 'Rémunérations', EDU, 'outturn', 3);
  const L5 = line(5, 2024, 40, 'Investissement', SAN, 'outturn', 3, true);
  const L6 = line(6, 2025, 200, 'Rémunérations', EDU, 'initial', 1);
  const L7 = line(7, 2022, 80, 'Investissement', SAN, 'outturn', null);

  it('lists initial lines and amendments by default, each with its stage and source', async () => {
    expect(await get('/budget/api/expenses/')).toEqual({ count: 4, next: null, previous: null, results: [L1, L2, L3, L6] });
  });
  it('lists the lines of the stage asked for', async () => {
    expect((await get('/budget/api/expenses/?stage=initial')).results).toEqual([L1, L2, L6]);
    expect(await get('/budget/api/expenses/?stage=outturn')).toEqual({ count: 3, next: null, previous: null, results: [L4, L5, L7] });
    expect(await get('/budget/api/expenses/?stage=outturn&year=2024')).toEqual({ count: 2, next: null, previous: null, results: [L4, L5] });
  });
  it('pages within a stage, keeping the stage in the links', async () => {
    expect(await get('/budget/api/expenses/?stage=initial&limit=1&offset=1')).toEqual({
      count: 3,
      next: '/budget/api/expenses/?limit=1&offset=2&stage=initial',
      previous: '/budget/api/expenses/?limit=1&offset=0&stage=initial',
      results: [L2],
    });
    expect((await get('/budget/api/expenses/?stage=amended&year=2024&limit=2&offset=1')).results).toEqual([L2, L3]);
  });
  it("filters one organization's lines by stage", async () => {
    expect((await get('/budget/api/expenses/?organization=1&stage=outturn')).results).toEqual([L4]);
    expect((await get('/budget/api/expenses/?organization=1&year=2024')).results).toEqual([L1, L3]);
    expect((await get('/budget/api/expenses/?organization=2&year=2024&stage=initial')).results).toEqual([L2]);
  });
  it('rolls the tree up over the stage', async () => {
    expect((await get('/budget/api/expenses/?hierarchy=true&year=2024&stage=outturn')).results).toEqual([
      {
        id: 10,
        name: 'Dépenses de gestion',
        year: 2024,
        amount: 95.25,
        children: [{ id: 11, name: 'Rémunérations', year: 2024, amount: 95.25, children: [] }],
      },
      { id: 20, name: 'Investissement', year: 2024, amount: 40, children: [] },
    ]);
    expect((await get('/budget/api/expenses/?hierarchy=true&year=2024&organization=1&stage=initial')).results).toEqual([
      {
        id: 10,
        name: 'Dépenses de gestion',
        year: 2024,
        amount: 100,
        children: [{ id: 11, name: 'Rémunérations', year: 2024, amount: 100, children: [] }],
      },
    ]);
  });
  it('carries stage, source_id and derived in CSV, Arrow and Parquet, typed', async () => {
    const csv = await getCsv(t.app, '/budget/api/expenses/?stage=outturn&year=2024&format=csv');
    expect(csv.text).toBe(
      [
        'id,year,amount,category,organization_id,organization_name,organization_code,stage,source_id,derived',
        "4,2024,95.25,Rémunérations,1,Ministère de l'Éducation,EDU,outturn,3,false",
        '5,2024,40,Investissement,2,Ministère de la Santé,SAN,outturn,3,true',
        '',
      ].join('\r\n'),
    );
    const arrow = await getArrow(t.app, '/budget/api/expenses/?stage=outturn&format=arrow');
    expect(arrow.table.schema.fields.slice(-3).map((f) => [f.name, String(f.type), f.nullable])).toEqual([
      ['stage', 'Utf8', false],
      ['source_id', 'Int64', true],
      ['derived', 'Bool', false],
    ]);
    expect(arrow.rows.map((r) => [r.id, r.stage, r.source_id, r.derived])).toEqual([
      [4, 'outturn', 3, false],
      [5, 'outturn', 3, true],
      [7, 'outturn', null, false],
    ]);
    const parquet = await getParquet(t.app, '/budget/api/expenses/?stage=amended&year=2024&format=parquet');
    expect(parquet.columns.slice(-3)).toEqual([
      { name: 'stage', type: 'VARCHAR', nullable: false },
      { name: 'source_id', type: 'BIGINT', nullable: true },
      { name: 'derived', type: 'BOOLEAN', nullable: false },
    ]);
    expect(parquet.rows.map((r) => [r.id, r.stage, r.source_id, r.derived])).toEqual([
      [1n, 'initial', 1n, false],
      [2n, 'initial', 1n, false],
      [3n, 'amendment', 2n, false],
    ]);
  });
});

describe('GET /budget/api/resources/', () => {
  it('lists the lines of the stage, with their source', async () => {
    expect((await get('/budget/api/resources/?stage=outturn')).results).toEqual([
      { id: 3, year: 2024, amount: 140, source: 'Recettes fiscales', stage: 'outturn', source_id: 3, derived: false },
      { id: 4, year: 2022, amount: 90, source: 'Recettes fiscales', stage: 'outturn', source_id: null, derived: false },
    ]);
    expect((await get('/budget/api/resources/?year=2024')).count).toBe(2);
    expect((await get('/budget/api/resources/?hierarchy=true&stage=initial')).results).toEqual([
      { id: 30, name: 'Recettes fiscales', year: 2024, amount: 150, children: [] },
    ]);
  });
  it('exports every line of the stage in CSV', async () => {
    const csv = await getCsv(t.app, '/budget/api/resources/?stage=initial&format=csv');
    expect(csv.text).toBe('id,year,amount,source,stage,source_id,derived\r\n1,2024,150,Recettes fiscales,initial,1,false\r\n');
  });
});

describe('GET /budget/api/organization/ and organization/stats/', () => {
  it('gives each organization its budget at the stage', async () => {
    expect((await get('/budget/api/organization/?stage=outturn')).results).toEqual([
      { ...EDU, budget: [{ year: 2024, expenses: 95.25, resources: 0 }] },
      {
        ...SAN,
        budget: [
          { year: 2022, expenses: 80, resources: 0 },
          { year: 2024, expenses: 40, resources: 0 },
        ],
      },
    ]);
    expect((await get('/budget/api/organization/?year=2025&stage=initial')).results).toEqual([
      { ...EDU, budget: [{ year: 2025, expenses: 200, resources: 0 }] },
    ]);
    expect((await get('/budget/api/organization/?year=2025&stage=outturn')).count).toBe(0);
  });
  it('totals each organization at the stage', async () => {
    expect(await get('/budget/api/organization/stats/?year=2024')).toEqual([
      { organization_id: 1, total_expenses: 110.5, total_resources: 20 },
      { organization_id: 2, total_expenses: 50, total_resources: 0 },
    ]);
    expect(await get('/budget/api/organization/stats/?year=2024&stage=outturn')).toEqual([
      { organization_id: 1, total_expenses: 95.25, total_resources: 0 },
      { organization_id: 2, total_expenses: 40, total_resources: 0 },
    ]);
    expect(await get('/budget/api/organization/stats/?stage=initial&organization_id=1')).toEqual([
      { organization_id: 1, total_expenses: 300, total_resources: 0 },
    ]);
  });
});

describe('the series', () => {
  const INT = { id: 1, parent: null, name: 'Dette intérieure' };
  const EXT = { id: 2, parent: null, name: 'Dette extérieure' };
  const MULTI = { id: 3, parent: 2, name: 'Multilatérale' };

  it("answer each year's most final stage by default (outturn, then amended, then initial)", async () => {
    expect(await get('/budget/api/deficit/')).toEqual([
      { year: 2023, value: 33, percent: 3, published_percent: null, gdp: 1100, stage: 'outturn', source_id: 3, derived: false },
      { year: 2024, value: 45, percent: 3.75, published_percent: null, gdp: 1200, stage: 'amended', source_id: 2, derived: true },
      { year: 2025, value: 50, percent: 3.85, published_percent: null, gdp: 1300, stage: 'initial', source_id: 1, derived: false },
    ]);
    expect(await get('/budget/api/outstanding-debt/')).toEqual([
      { year: 2024, outstanding_debt: 660, gdp: 1200, value: 55, published_value: null, stage: 'outturn', source_id: 3, derived: false },
      { year: 2025, outstanding_debt: 700, gdp: 1300, value: 53.85, published_value: null, stage: 'initial', source_id: 1, derived: false },
    ]);
    // A rolled-up row is derived when a row under it is, and keeps the one source they share.
    expect(await get('/budget/api/debt/')).toEqual([
      { year: 2024, debt_origin: INT, value: 110, stage: 'outturn', source_id: 3, derived: false },
      { year: 2024, debt_origin: EXT, value: 55, stage: 'outturn', source_id: 3, derived: true },
      { year: 2024, debt_origin: MULTI, value: 55, stage: 'outturn', source_id: 3, derived: true },
      { year: 2025, debt_origin: INT, value: 120, stage: 'initial', source_id: 1, derived: false },
    ]);
  });
  it('answer the stage asked for, and only the years that have it', async () => {
    expect(await get('/budget/api/deficit/?stage=initial')).toEqual([
      { year: 2023, value: 30, percent: 2.73, published_percent: null, gdp: 1100, stage: 'initial', source_id: 1, derived: false },
      { year: 2024, value: 40, percent: 3.33, published_percent: null, gdp: 1200, stage: 'initial', source_id: 1, derived: false },
      { year: 2025, value: 50, percent: 3.85, published_percent: null, gdp: 1300, stage: 'initial', source_id: 1, derived: false },
    ]);
    expect(await get('/budget/api/deficit/?stage=amended')).toEqual([
      { year: 2024, value: 45, percent: 3.75, published_percent: null, gdp: 1200, stage: 'amended', source_id: 2, derived: true },
    ]);
    expect(await get('/budget/api/debt/?stage=initial&parent=null')).toEqual([
      { year: 2024, debt_origin: INT, value: 100, stage: 'initial', source_id: 1, derived: false },
      { year: 2024, debt_origin: EXT, value: 50, stage: 'initial', source_id: 1, derived: false },
      { year: 2025, debt_origin: INT, value: 120, stage: 'initial', source_id: 1, derived: false },
    ]);
    expect(await get('/budget/api/debt/?stage=amended')).toEqual([]);
  });
  it('answer year=last with the last year that has the stage', async () => {
    expect(await get('/budget/api/outstanding-debt/?year=last')).toEqual([
      { year: 2025, outstanding_debt: 700, gdp: 1300, value: 53.85, published_value: null, stage: 'initial', source_id: 1, derived: false },
    ]);
    expect(await get('/budget/api/outstanding-debt/?year=last&stage=outturn')).toEqual([
      { year: 2024, outstanding_debt: 660, gdp: 1200, value: 55, published_value: null, stage: 'outturn', source_id: 3, derived: false },
    ]);
  });
  it('carry stage, source_id and derived in CSV', async () => {
    expect((await getCsv(t.app, '/budget/api/deficit/?stage=amended&format=csv')).text).toBe(
      'year,value,percent,published_percent,gdp,stage,source_id,derived\r\n2024,45,3.75,,1200,amended,2,true\r\n',
    );
  });
  it('of a drop without stages answer as before by default, and nothing for a stage asked for', async () => {
    expect(await get('/budget/api/deficit/', plain)).toEqual([
      { year: 2022, value: -43.45, percent: -4.35, published_percent: null, gdp: 1000, stage: null, source_id: null, derived: false },
      { year: 2024, value: 1, percent: 12.5, published_percent: null, gdp: 8, stage: null, source_id: null, derived: false },
    ]);
    expect(await get('/budget/api/deficit/?stage=outturn', plain)).toEqual([]);
    expect(await get('/budget/api/debt/?stage=initial', plain)).toEqual([]);
  });
});

describe('GET /budget/api/sources/', () => {
  it('lists the sources ordered by id', async () => {
    expect(await get('/budget/api/sources/')).toEqual([
      {
        id: 1,
        title: 'Loi de finances 2024',
        url: 'https://example.org/lf2024.pdf',
        publisher: 'Ministère des Finances',
        published: '2023-12-20',
        quote: null,
      },
      { id: 2, title: 'Loi de finances complémentaire 2024', url: null, publisher: null, published: null, quote: null },
      { id: 3, title: "Rapport d'exécution 2024", url: null, publisher: 'Cour des comptes', published: '2025-06-30', quote: 'Dépenses exécutées' },
    ]);
  });
  it('answers an empty list for a drop without sources', async () => {
    expect(await get('/budget/api/sources/', plain)).toEqual([]);
  });
  it('answers CSV and Arrow too', async () => {
    expect((await getCsv(t.app, '/budget/api/sources/?format=csv')).text).toBe(
      [
        'id,title,url,publisher,published,quote',
        '1,Loi de finances 2024,https://example.org/lf2024.pdf,Ministère des Finances,2023-12-20,',
        '2,Loi de finances complémentaire 2024,,,,',
        "3,Rapport d'exécution 2024,,Cour des comptes,2025-06-30,Dépenses exécutées",
        '',
      ].join('\r\n'),
    );
    const arrow = await getArrow(t.app, '/budget/api/sources/?format=arrow');
    expect(arrow.rows.map((r) => r.id)).toEqual([1, 2, 3]);
  });
  it('refuses parameters', async () => {
    expect((await request(t.app).get('/budget/api/sources/?stage=initial')).body.code).toBe('unknown_parameter');
  });
});

describe('GET /budget/api/meta/', () => {
  it('gives the years of every table, per stage where it has stages, and the gaps', async () => {
    const meta = await get('/budget/api/meta/');
    expect(meta.coverage).toEqual({
      expenses: { initial: [2024, 2025], amendment: [2024], outturn: [2022, 2024] },
      resources: { initial: [2024], amendment: [2024], outturn: [2022, 2024] },
      debt: { initial: [2024, 2025], amended: [], outturn: [2024] },
      gdp: [2022, 2023, 2024, 2025],
      outstanding_debt: { initial: [2024, 2025], amended: [], outturn: [2024] },
      deficit: { initial: [2023, 2024, 2025], amended: [2024], outturn: [2023] },
      population: [],
      cpi: [],
    });
    // 2023 has no lines at all, 2025 no resource lines.
    expect(meta.gaps).toEqual([2023, 2025]);
    expect(meta.years).toEqual([2022, 2023, 2024, 2025]);
  });
  it("gives the data's units and licence", async () => {
    const meta = await get('/budget/api/meta/');
    expect(meta.units).toEqual({ name: 'MDT', currency: 'TND', scale: 1000000 });
    expect(meta.license).toBe('CC-BY-4.0');
    expect(meta.files['sources.parquet'].rows).toBe(3);
  });
  it('gives lines stages from complementary, and series plain years, in a drop without stages', async () => {
    const meta = await get('/budget/api/meta/', plain);
    expect(meta.coverage.expenses).toEqual({ initial: [2023, 2024], amendment: [2023], outturn: [] });
    expect(meta.coverage.deficit).toEqual([2022, 2024]);
    expect(meta.gaps).toEqual([]);
    expect(meta.units).toBeNull();
  });
});
