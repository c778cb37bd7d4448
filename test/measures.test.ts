/** Measures (pct_gdp, per_capita, real, share) and year-on-year changes, over test/fixtures/measured.ts. */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MDT, measured } from './fixtures/measured.js';
import { small } from './fixtures/small.js';
import { staged } from './fixtures/staged.js';
import { appFor, type TestApp } from './helpers/app.js';
import { getCsv } from './helpers/downloads.js';
import { figuresOnly } from './helpers/rollups.js';

/** A series row of a drop that says nothing of stages or sources. */
const NO_PROVENANCE = { stage: null, source_id: null, derived: false };

let t: TestApp;
let bare: TestApp;
beforeAll(async () => {
  t = await appFor(measured, {}, { manifest: (m) => void (m.units = MDT) });
  // The plain small drop: no population, no CPI, no units.
  bare = await appFor(small);
});
afterAll(() => {
  t.close();
  bare.close();
});

async function get(url: string, app = t.app) {
  const res = await request(app).get(url);
  expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(200);
  res.body = figuresOnly(url, res.body);
  return res;
}

async function refused(url: string, parameter: string, app = t.app) {
  const res = await request(app).get(url);
  expect(res.status, url).toBe(400);
  expect(res.headers['content-type']).toBe('application/problem+json');
  expect(res.body.code).toBe('invalid_parameter');
  expect(res.body.errors).toEqual([expect.objectContaining({ parameter })]);
  return res.body.detail as string;
}

describe('GET /budget/api/totals/', () => {
  it('is nominal by default, and says so in Budget-Measure with the drop unit', async () => {
    const res = await get('/budget/api/totals/?year=2024');
    expect(res.headers['budget-measure']).toBe('nominal; unit="MDT"');
    // A script on another origin reads the header only if CORS exposes it.
    expect(res.headers['access-control-expose-headers']).toContain('Budget-Measure');
    expect(res.body).toEqual([{ year: 2024, total_expenses: 300.3, total_resources: 800, balance: 499.7 }]);
  });

  describe('with measure=pct_gdp', () => {
    it("divides every figure by the year's GDP, 2 decimals, and keeps a year without GDP with nulls", async () => {
      const res = await get('/budget/api/totals/?measure=pct_gdp');
      expect(res.headers['budget-measure']).toBe('pct_gdp; unit="% of GDP"');
      expect(res.body).toEqual([
        { year: 2021, total_expenses: null, total_resources: null, balance: null },
        { year: 2023, total_expenses: 11.68, total_resources: 53.35, balance: 41.67 },
        { year: 2024, total_expenses: 3753.75, total_resources: 10000, balance: 6246.25 },
      ]);
    });
  });

  describe('with measure=per_capita', () => {
    it('gives currency units per inhabitant, rounding half away from zero, null without a population', async () => {
      const res = await get('/budget/api/totals/?measure=per_capita');
      expect(res.headers['budget-measure']).toBe('per_capita; unit="TND per inhabitant"');
      // 350.35 MDT × 1,000,000 ÷ 2,000,000 = 175.175 TND: half away from zero is 175.18.
      expect(res.body).toEqual([
        { year: 2021, total_expenses: null, total_resources: null, balance: null },
        { year: 2023, total_expenses: 175.18, total_resources: 800.25, balance: 625.07 },
        { year: 2024, total_expenses: null, total_resources: null, balance: null },
      ]);
    });
    it('is refused on a drop without a population, naming the series', async () => {
      expect(await refused('/budget/api/totals/?measure=per_capita', 'measure', bare.app)).toContain('population');
    });
    it('is refused on a drop whose drop.json has no units, naming units.scale', async () => {
      const noUnits = await appFor(measured);
      try {
        expect(await refused('/budget/api/totals/?measure=per_capita', 'measure', noUnits.app)).toContain('units.scale');
      } finally {
        noUnits.close();
      }
    });
  });

  describe('with measure=real', () => {
    it('deflates to the prices of the latest year with a CPI by default, 3 decimals', async () => {
      const res = await get('/budget/api/totals/?measure=real');
      expect(res.headers['budget-measure']).toBe('real; base_year=2024; unit="MDT, 2024 prices"');
      // 2023: × 150 / 125 = × 1.2.
      expect(res.body).toEqual([
        { year: 2021, total_expenses: null, total_resources: null, balance: null },
        { year: 2023, total_expenses: 420.42, total_resources: 1920.599, balance: 1500.179 },
        { year: 2024, total_expenses: 300.3, total_resources: 800, balance: 499.7 },
      ]);
    });
    it('deflates to the prices of base_year', async () => {
      const res = await get('/budget/api/totals/?measure=real&base_year=2023&year=2024');
      expect(res.headers['budget-measure']).toBe('real; base_year=2023; unit="MDT, 2023 prices"');
      // × 125 / 150: 300.3 → 250.25, 800 → 666.6666… → 666.667, 499.7 → 416.41666… → 416.417.
      expect(res.body).toEqual([{ year: 2024, total_expenses: 250.25, total_resources: 666.667, balance: 416.417 }]);
    });
    it('refuses a base_year without a CPI', async () => {
      expect(await refused('/budget/api/totals/?measure=real&base_year=2021', 'base_year')).toBe(
        'base_year must be a year with a CPI in this drop (2021 has none)',
      );
    });
    it('leaves base_year to measure=real: with another measure it changes nothing', async () => {
      const res = await get('/budget/api/totals/?measure=pct_gdp&base_year=2021&year=2023');
      expect(res.headers['budget-measure']).toBe('pct_gdp; unit="% of GDP"');
      expect(res.body[0].total_expenses).toBe(11.68);
    });
    it('is refused on a drop without a CPI, naming the series', async () => {
      expect(await refused('/budget/api/totals/?measure=real', 'measure', bare.app)).toContain('cpi');
    });
  });

  it('writes a unit with accents, quotes or other scripts safely into the header', async () => {
    const odd = await appFor(measured, {}, { manifest: (m) => void (m.units = { name: 'millions de "dinars" é د', currency: 'TND', scale: 1e6 }) });
    try {
      const res = await get('/budget/api/totals/?year=2024', odd.app);
      expect(res.headers['budget-measure']).toBe('nominal; unit="millions de \\"dinars\\" e ?"');
    } finally {
      odd.close();
    }
  });
  it('says drop units when drop.json does not name them', async () => {
    expect((await get('/budget/api/totals/', bare.app)).headers['budget-measure']).toBe('nominal; unit="drop units"');
  });
  it('refuses measure=share, since the years do not split a whole, and an unknown measure', async () => {
    expect(await refused('/budget/api/totals/?measure=share', 'measure')).toContain('nominal, pct_gdp, per_capita, real');
    await refused('/budget/api/totals/?measure=percent', 'measure');
  });

  describe('with change=previous_year', () => {
    it('compares each figure with the calendar year before, never across a gap (2022)', async () => {
      const res = await get('/budget/api/totals/?change=previous_year');
      const none = { total_expenses: null, total_resources: null, balance: null };
      expect(res.body).toEqual([
        { year: 2021, total_expenses: 10, total_resources: 0, balance: -10, change: none, change_pct: none },
        { year: 2023, total_expenses: 350.35, total_resources: 1600.499, balance: 1250.149, change: none, change_pct: none },
        {
          year: 2024,
          total_expenses: 300.3,
          total_resources: 800,
          balance: 499.7,
          change: { total_expenses: -50.05, total_resources: -800.499, balance: -750.449 },
          change_pct: { total_expenses: -14.29, total_resources: -50.02, balance: -60.03 },
        },
      ]);
    });
    it('reads the year before one asked for without listing it', async () => {
      const res = await get('/budget/api/totals/?change=previous_year&year=2024');
      expect(res.body).toHaveLength(1);
      expect(res.body[0].change).toEqual({ total_expenses: -50.05, total_resources: -800.499, balance: -750.449 });
    });
    it('applies after the measure: the change of the measured figures', async () => {
      const res = await get('/budget/api/totals/?change=previous_year&year=2024&measure=real');
      // 2024 at 2024 prices minus 2023 at 2024 prices: 300.3 - 420.42 = -120.12; ÷ 420.42 = -28.57%.
      expect(res.body[0].change.total_expenses).toBe(-120.12);
      expect(res.body[0].change_pct.total_expenses).toBe(-28.57);
    });
    it('rounds a change of measured figures that is exactly a half away from zero, without float noise', async () => {
      // 800 then 801 of a GDP of 10,000: 8 % then 8.01 % of GDP, a change of 0.125 % → 0.13 %
      // (8.01 - 8 is 0.009999999999999787 in doubles, 0.12 % if read as it is).
      const ties = await appFor({
        ...small,
        expenses: [
          { id: 1, year: 2022, amount: 800, category_id: 11, organization_id: 1, complementary: false },
          { id: 2, year: 2023, amount: 801, category_id: 11, organization_id: 1, complementary: false },
        ],
        gdp: [
          { year: 2022, gdp: 10_000 },
          { year: 2023, gdp: 10_000 },
          { year: 2024, gdp: 8 },
        ],
      });
      try {
        const res = await get('/budget/api/totals/?year=2023&change=previous_year&measure=pct_gdp', ties.app);
        expect(res.body[0].change_pct.total_expenses).toBe(0.13);
        expect((await get('/budget/api/totals/?year=2023&change=previous_year', ties.app)).body[0].change_pct.total_expenses).toBe(0.13);
      } finally {
        ties.close();
      }
    });
    it('keeps every thousandth of a change between figures of a trillion and more', async () => {
      const large = await appFor({
        ...small,
        expenses: [
          { id: 1, year: 2022, amount: 1234567890123.451, category_id: 11, organization_id: 1, complementary: false },
          { id: 2, year: 2023, amount: 1234567890123.456, category_id: 11, organization_id: 1, complementary: false },
          { id: 3, year: 2024, amount: 2000000000000.004, category_id: 11, organization_id: 1, complementary: false },
        ],
      });
      try {
        const res = await get('/budget/api/totals/?change=previous_year', large.app);
        expect(res.body.map((row: { change: { total_expenses: number | null } }) => row.change.total_expenses)).toEqual([
          null,
          0.005,
          765432109876.548,
        ]);
      } finally {
        large.close();
      }
    });
    it('flattens the changes into CSV columns named after their figure', async () => {
      const { header, rows } = await getCsv(t.app, '/budget/api/totals/?change=previous_year&year=2024&format=csv');
      expect(header).toEqual([
        'year',
        'total_expenses',
        'total_resources',
        'balance',
        'stage',
        'source_ids',
        'derived',
        'change_total_expenses',
        'change_pct_total_expenses',
        'change_total_resources',
        'change_pct_total_resources',
        'change_balance',
        'change_pct_balance',
      ]);
      expect(rows[0]).toMatchObject({ change_total_expenses: '-50.05', change_pct_balance: '-60.03' });
    });
    it('refuses another kind of change', async () => {
      await refused('/budget/api/totals/?change=next_year', 'change');
    });
  });

  it('writes an empty CSV field for a measured figure that is null', async () => {
    const { rows } = await getCsv(t.app, '/budget/api/totals/?measure=per_capita&year=2024&format=csv');
    expect(rows).toEqual([
      { year: '2024', total_expenses: '', total_resources: '', balance: '', stage: 'amended', source_ids: '', derived: 'false' },
    ]);
  });
});

describe('GET /budget/api/budget-categories/', () => {
  it("gives each category's share of the year's total of its kind with measure=share", async () => {
    const res = await get('/budget/api/budget-categories/?year=2023&measure=share');
    expect(res.headers['budget-measure']).toBe('share; unit="% of total"');
    const shares = res.body.map((r: { id: number; expenses: number; resources: number }) => [r.id, r.expenses, r.resources]);
    // Expenses of 2023: 350.35; resources: 1600.499.
    expect(shares).toEqual([
      [10, 100, 0],
      [11, 85.71, 0],
      [12, 14.29, 0],
      [13, 57.14, 0],
      [30, 0, 93.75],
      [31, 0, 62.48],
      [32, 0, 31.27],
      [40, 0, 6.25],
    ]);
  });
  it('measures a sum over years year by year, null when one of them lacks the value', async () => {
    // Category 20: 300 in 2024 and 10 in 2021, a year without a CPI.
    const rows = (await get('/budget/api/budget-categories/?measure=real&type=expense')).body;
    expect(rows.find((r: { id: number }) => r.id === 20).expenses).toBeNull();
    // Category 11: 300.3 in 2023 (× 1.2 = 360.36) and 0.3 in 2024: 360.66.
    expect(rows.find((r: { id: number }) => r.id === 11).expenses).toBe(360.66);
  });
  it("keeps the other kind's figure of a category at 0 under a measure, also in a year without the value", async () => {
    // 2021 has no GDP: category 20's expenses (10) have no ratio, its resources are no figure at all.
    const rows = (await get('/budget/api/budget-categories/?year=2021&measure=pct_gdp')).body;
    expect(rows.find((r: { id: number }) => r.id === 20)).toMatchObject({ expenses: null, resources: 0 });
  });

  describe('with change=previous_year', () => {
    it('compares each category with itself the year before; one missing then, or at 0, has null changes', async () => {
      const rows = (await get('/budget/api/budget-categories/?year=2024&change=previous_year')).body;
      const changes = rows.map((r: { id: number; expenses: number; resources: number; change: number; change_pct: number }) => [
        r.id,
        r.expenses,
        r.resources,
        r.change,
        r.change_pct,
      ]);
      expect(changes).toEqual([
        [10, 0.3, 0, { expenses: -350.05, resources: null }, { expenses: -99.91, resources: null }],
        [11, 0.3, 0, { expenses: -300, resources: null }, { expenses: -99.9, resources: null }],
        [20, 300, 0, { expenses: null, resources: null }, { expenses: null, resources: null }],
        [30, 0, 800, { expenses: null, resources: -700.5 }, { expenses: null, resources: -46.68 }],
        [31, 0, 800, { expenses: null, resources: -200 }, { expenses: null, resources: -20 }],
      ]);
    });
    it('needs a single year', async () => {
      await refused('/budget/api/budget-categories/?change=previous_year', 'change');
      await refused('/budget/api/budget-categories/?change=previous_year&year=2023,2024', 'change');
    });
  });

  describe('with ordering', () => {
    const ids = async (url: string) => (await get(url)).body.map((r: { id: number }) => r.id);
    it('orders by a figure, descending with -, ties broken by id', async () => {
      expect(await ids('/budget/api/budget-categories/?year=2023&ordering=-expenses')).toEqual([10, 11, 13, 12, 30, 31, 32, 40]);
      expect(await ids('/budget/api/budget-categories/?year=2023&ordering=resources')).toEqual([10, 11, 12, 13, 40, 32, 31, 30]);
    });
    it('orders by name, accents sorted with their letter', async () => {
      expect(await ids('/budget/api/budget-categories/?year=2023&ordering=category')).toEqual([10, 40, 12, 31, 32, 13, 30, 11]);
    });
    it('refuses a field the rows do not have', async () => {
      expect(await refused('/budget/api/budget-categories/?ordering=amount', 'ordering')).toContain('expenses');
    });
  });
});

describe('measured figures read as a reader reads them', () => {
  // Expense lines (category 11) and resource lines (31) per year, GDP and CPI chosen so that the
  // figures as shown (2 decimals of % of GDP, 3 of money) differ from the unrounded ones.
  const lines = (rows: [number, number][]) =>
    rows.map(([year, amount], i) => ({ id: i + 1, year, amount, organization_id: 1, complementary: false }));
  let shown: TestApp;
  beforeAll(async () => {
    shown = await appFor({
      ...small,
      expenses: lines([
        [2031, 0.003],
        [2032, 0.001],
        [2033, -1.345],
        [2040, 190.626],
        [2041, 205],
      ]).map((l) => ({ ...l, category_id: 11 })),
      resources: lines([
        [2031, 1],
        [2032, 1],
        [2033, 1],
        [2040, 195],
        [2041, 167.5],
      ]).map((l) => ({ ...l, category_id: 31 })),
      gdp: [
        ...small.gdp!,
        { year: 2031, gdp: 1000 },
        { year: 2032, gdp: 100 },
        { year: 2033, gdp: 100 },
        { year: 2040, gdp: 1000 },
        { year: 2041, gdp: 1100.5 },
      ],
      cpi: [
        { year: 2040, index: 100 },
        { year: 2041, index: 125 },
      ],
    });
  });
  afterAll(() => shown.close());

  it('give a change that is the difference of the figures as shown, and its percent of the figure shown the year before', async () => {
    const [before, after] = (await get('/budget/api/totals/?year=2040..2041&measure=pct_gdp&change=previous_year', shown.app)).body;
    // Expenses 19.06 then 18.63 % of GDP, resources 19.5 then 15.22, balances 0.44 then -3.41.
    expect([before.total_expenses, before.balance, after.total_expenses, after.balance]).toEqual([19.06, 0.44, 18.63, -3.41]);
    expect(after.change).toMatchObject({ total_expenses: -0.43, balance: -3.85 });
    expect(after.change_pct).toMatchObject({ total_expenses: -2.26, balance: -875 });
  });
  it('give no change from a figure shown as 0, as from a 0', async () => {
    const rows = (await get('/budget/api/totals/?year=2032..2033&measure=pct_gdp&change=previous_year', shown.app)).body;
    // 2031 and 2032: 0.0003% and 0.001% of GDP, both shown 0; 2033: -1.345%.
    expect(rows.map((r: { total_expenses: number }) => r.total_expenses)).toEqual([0, -1.35]);
    expect(rows.map((r: { change: { total_expenses: number } }) => r.change.total_expenses)).toEqual([null, null]);
    expect(rows.map((r: { change_pct: { total_expenses: number } }) => r.change_pct.total_expenses)).toEqual([null, null]);
  });
  it('give a balance that is the difference of the totals as shown, under every measure', async () => {
    // At 2041 prices (CPI 100 then 125): expenses 238.2825, shown 238.283; resources 243.75.
    expect((await get('/budget/api/totals/?year=2040&measure=real', shown.app)).body).toEqual([
      { year: 2040, total_expenses: 238.283, total_resources: 243.75, balance: 5.467 },
    ]);
  });
});

describe('category trees (hierarchy=true)', () => {
  it("take measure=share: each node's share of its year's total", async () => {
    const res = await get('/budget/api/expenses/?hierarchy=true&year=2023&measure=share');
    expect(res.headers['budget-measure']).toBe('share; unit="% of total"');
    const [root] = res.body.results;
    expect(root).toMatchObject({ id: 10, amount: 100 });
    expect(root.children.map((c: { id: number; amount: number }) => [c.id, c.amount])).toEqual([
      [11, 85.71],
      [12, 14.29],
    ]);
  });
  it('take a share of the total as totals/ shows it, so that the only root is 100% for amounts recorded past the thousandth', async () => {
    // 1.0005 + 0.1 + 0.2: totals/ shows 1.301; the root's figure, shown as 1.301 too, read 100.04% of the unrounded 1.3005.
    const fine = await appFor({
      ...small,
      categories: small.categories!.filter((c) => c.type === 'resource' || c.id === 10 || c.id === 11),
      expenses: {
        sql: `SELECT * FROM (VALUES (1, 2020, 1.0005::DECIMAL(18,4), 11, 1, false), (2, 2020, 0.1, 11, 2, false), (3, 2020, 0.2, 10, 2, true))
              AS t(id, year, amount, category_id, organization_id, complementary)`,
      },
    });
    try {
      expect((await get('/budget/api/totals/?year=2020', fine.app)).body).toEqual([
        { year: 2020, total_expenses: 1.301, total_resources: 0, balance: -1.301 },
      ]);
      const [root] = (await get('/budget/api/expenses/?hierarchy=true&year=2020&measure=share', fine.app)).body.results;
      // 11: 1.1005, shown 1.101: 84.63% of 1.301.
      expect([root.amount, root.children.map((c: { amount: number }) => c.amount)]).toEqual([100, [84.63]]);
      const categories = (await get('/budget/api/budget-categories/?year=2020&type=expense&measure=share', fine.app)).body;
      expect(categories.map((c: { expenses: number }) => c.expenses)).toEqual([100, 84.63]);
      const organizations = (await get('/budget/api/organization/stats/?year=2020&measure=share', fine.app)).body;
      // 1: 1.0005, shown 1.001 (76.94%); 2: 0.3 (23.06%).
      expect(organizations.map((o: { total_expenses: number }) => o.total_expenses)).toEqual([76.94, 23.06]);
    } finally {
      fine.close();
    }
  });
  it('take measure=per_capita, a node of a year without population being null', async () => {
    const res = await get('/budget/api/resources/?hierarchy=true&measure=per_capita');
    expect(res.body.results.map((r: { id: number; year: number; amount: number }) => [r.year, r.id, r.amount])).toEqual([
      [2023, 30, 750.25],
      [2023, 40, 50],
      [2024, 30, null],
    ]);
  });
  it('leave the trees every request shares as they were: a measured tree, then the same tree in amounts', async () => {
    const plain = (await get('/budget/api/expenses/?hierarchy=true&year=2023')).body;
    expect((await get('/budget/api/expenses/?hierarchy=true&year=2023&measure=share')).status).toBe(200);
    // A query of its own, so that the response cache cannot answer it.
    const again = (await get('/budget/api/expenses/?hierarchy=true&year=2023&limit=100')).body;
    expect(again.results).toEqual(plain.results);
    expect(again.results[0]).toMatchObject({ id: 10, amount: 350.35 });
  });
  it('refuse a measure on the lists of lines', async () => {
    expect(await refused('/budget/api/expenses/?measure=real', 'measure')).toBe('measure applies only to the category tree (hierarchy=true)');
  });
});

describe('GET /budget/api/organization/stats/', () => {
  it("gives each organization's share of the year's total expenses and resources", async () => {
    const res = await get('/budget/api/organization/stats/?year=2023&measure=share');
    expect(res.body).toEqual([
      { organization_id: 1, total_expenses: 85.71, total_resources: 31.27 },
      { organization_id: 2, total_expenses: 14.29, total_resources: 0 },
    ]);
  });
  it('measures a sum over years from the years that have the figure: a year without CPI and without resource lines leaves the resources', async () => {
    // Organization 2: expenses 10 in 2021 (no CPI), 50.05 in 2023, 300 in 2024; resources 800 in 2024 only.
    const res = await get('/budget/api/organization/stats/?measure=real&organization_id=2');
    expect(res.body).toEqual([{ organization_id: 2, total_expenses: null, total_resources: 800 }]);
    // A single year without CPI keeps both null, the 0 of resources included: no year had the value.
    const alone = await get('/budget/api/organization/stats/?measure=real&organization_id=2&year=2021');
    expect(alone.body).toEqual([{ organization_id: 2, total_expenses: null, total_resources: null }]);
  });
  it('compares a single year with the year before', async () => {
    const res = await get('/budget/api/organization/stats/?year=2024&change=previous_year&organization_id=2');
    // 2024: 300 and 800; 2023: 50.05 and 0.
    expect(res.body).toEqual([
      {
        organization_id: 2,
        total_expenses: 300,
        total_resources: 800,
        change: { total_expenses: 249.95, total_resources: null },
        change_pct: { total_expenses: 499.4, total_resources: null },
      },
    ]);
  });
  it('orders by a figure, descending with -', async () => {
    const res = await get('/budget/api/organization/stats/?ordering=-total_expenses');
    // 1: 300.6; 2: 50.05 + 300 + 10 = 360.05; 3: 0.
    expect(res.body.map((r: { organization_id: number }) => r.organization_id)).toEqual([2, 1, 3]);
  });
});

describe('GET /budget/api/debt/', () => {
  it("gives each origin's share of the year's total debt", async () => {
    const rows = (await get('/budget/api/debt/?year=2023&measure=share')).body;
    // 2023: 110 + 5 + 60 = 175.
    expect(rows.map((r: { debt_origin: { id: number }; value: number }) => [r.debt_origin.id, r.value])).toEqual([
      [1, 62.86],
      [2, 37.14],
      [3, 34.29],
    ]);
  });
  it('compares each origin with itself the year before', async () => {
    const rows = (await get('/budget/api/debt/?year=2023&change=previous_year')).body;
    expect(
      rows.map((r: { debt_origin: { id: number }; value: number; change: number; change_pct: number }) => [
        r.debt_origin.id,
        r.value,
        r.change,
        r.change_pct,
      ]),
    ).toEqual([
      [1, 110, 10, 10],
      [2, 65, -10.5, -13.91],
      [3, 60, 10, 20],
    ]);
  });
});

describe('GET /budget/api/deficit/', () => {
  it('takes year, and measure=pct_gdp rounds as the outstanding-debt ratio does', async () => {
    const deficit = (await get('/budget/api/deficit/?year=2022&measure=pct_gdp')).body;
    const outstanding = (await get('/budget/api/outstanding-debt/?year=2022')).body;
    // -43.45 and 43.45 over a GDP of 1000: ∓4.345, half away from zero.
    expect(outstanding[0].value).toBe(4.35);
    expect(deficit).toEqual([{ year: 2022, value: -4.35, percent: -4.35, published_percent: null, gdp: 1000, ...NO_PROVENANCE }]);
  });
  it('has null changes after a year whose figure is 0', async () => {
    const rows = (await get('/budget/api/deficit/?change=previous_year')).body;
    expect(rows.map((r: { year: number; change: number; change_pct: number }) => [r.year, r.change, r.change_pct])).toEqual([
      [2022, null, null],
      [2023, 43.45, -100],
      [2024, null, null],
    ]);
  });
});

describe('GET /budget/api/outstanding-debt/', () => {
  it('adds the change of the debt stock, also for year=last', async () => {
    const rows = (await get('/budget/api/outstanding-debt/?change=previous_year&year=last')).body;
    // 2023: 1000; 2022: 43.45.
    expect(rows).toEqual([
      { year: 2023, outstanding_debt: 1000, gdp: 3000, value: 33.33, published_value: null, ...NO_PROVENANCE, change: 956.55, change_pct: 2201.5 },
    ]);
  });
});

describe('measures and changes at a stage (test/fixtures/staged.ts)', () => {
  let atStages: TestApp;
  beforeAll(async () => {
    atStages = await appFor(staged);
  });
  afterAll(() => atStages.close());

  it("take a share of the same stage's total", async () => {
    const shares = async (stage: string) =>
      (await get(`/budget/api/budget-categories/?year=2024&type=expense&measure=share&stage=${stage}`, atStages.app)).body.map(
        (r: { id: number; expenses: number }) => [r.id, r.expenses],
      );
    // Outturn 2024: 95.25 + 40 = 135.25; initial: 100 + 50 = 150.
    expect(await shares('outturn')).toEqual([
      [10, 70.43],
      [11, 70.43],
      [20, 29.57],
    ]);
    expect(await shares('initial')).toEqual([
      [10, 66.67],
      [11, 66.67],
      [20, 33.33],
    ]);
  });
  it('compare a year with the year before at the same stage', async () => {
    const rows = (await get('/budget/api/totals/?stage=initial&change=previous_year&year=2025', atStages.app)).body;
    // Initial 2024: 150 expenses, 150 resources, balance 0; 2025: 200, 0, -200.
    expect(rows).toEqual([
      {
        year: 2025,
        total_expenses: 200,
        total_resources: 0,
        balance: -200,
        change: { total_expenses: 50, total_resources: -150, balance: null },
        change_pct: { total_expenses: 33.33, total_resources: -100, balance: null },
      },
    ]);
  });
});
