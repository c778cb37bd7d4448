/**
 * The sample drop shipped in data/, as a new user meets it after `npm start`. Every expected figure
 * is worked out by hand from data/sources/reference/ministries_lf2015_2016.csv and the per-line
 * tables of data/SOURCES.md, not read back from the service.
 */
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appServing, type TestApp } from './helpers/app.js';
import { figuresOnly } from './helpers/rollups.js';

const DATA = path.resolve(import.meta.dirname, '..', 'data');
let t: TestApp;
beforeAll(async () => {
  t = await appServing(DATA);
});
afterAll(() => t.close());

const get = async (url: string) => {
  const res = await request(t.app).get(url);
  expect(res.status, url).toBe(200);
  return figuresOnly(url, res.body);
};

describe('the sample drop', () => {
  describe('GET /budget/api/organization/stats/?year=2016', () => {
    it('lists the 29 missions of the 2016 table and the debt service, summing to 29 350 with Defence as adopted', async () => {
      const rows: { organization_id: number; total_expenses: number; total_resources: number }[] = await get(
        '/budget/api/organization/stats/?year=2016',
      );
      // Missions have ids 2-30, the debt service 31; organization 1 (not split by mission) has no 2016 line.
      expect(rows.map((r) => r.organization_id)).toEqual(Array.from({ length: 30 }, (_, i) => i + 2));
      // 24 020 ("total sans dettes") + 5 130 (debt service) + the 200 added to Defence at the vote, in thousandths to stay exact.
      expect(rows.reduce((sum, r) => sum + Math.round(r.total_expenses * 1000), 0)).toBe(29_350_000);
      expect(rows.every((r) => r.total_resources === 0)).toBe(true);
      expect(rows.find((r) => r.organization_id === 9)).toEqual({ organization_id: 9, total_expenses: 4525.231, total_resources: 0 });
      expect(rows.find((r) => r.organization_id === 31)).toEqual({ organization_id: 31, total_expenses: 5130, total_resources: 0 });
    });
  });

  it("gives a ministry's 2016 lines by title: management = total − Titre II, development = Titre II", async () => {
    const body = await get('/budget/api/expenses/?organization=9&year=2016');
    // Education: total 4 525,231, Titre II 188,725.
    expect(body.results.map((r: { amount: number; category: string }) => [r.category, r.amount])).toEqual([
      ['Dépenses de gestion', 4336.506],
      ['Dépenses de développement', 188.725],
    ]);
  });

  it('keeps 2016 comparable at the title level: the title nodes carry the mission lines, the debt service its split', async () => {
    const rows: { id: number; expenses: number }[] = await get('/budget/api/budget-categories/?year=2016&type=expense');
    const byId = Object.fromEntries(rows.map((r) => [r.id, r.expenses]));
    // 24 020 − 5 241,832 (sum of the Titre II column); interest 1 850 + principal 3 280.
    expect(byId).toMatchObject({ 1: 18778.168, 11: 5241.832, 14: 5130, 15: 1850, 16: 3280, 21: 200 });
    expect(byId[2]).toBeUndefined();
  });

  it.each([
    // 2016: the draft's mission table (29 150) + Defence's 200 at the vote; resources are the PLF's 20 600 + 2 056 + 6 594.
    [2016, { total_expenses: 29350, total_resources: 29250, balance: -100 }],
    [2017, { total_expenses: 32705, total_resources: 32705, balance: 0 }],
    [2018, { total_expenses: 35851, total_resources: 35915, balance: 64 }],
    // LF 2019 40 861 on both sides; its outturn lines are another stage and do not add to it.
    [2019, { total_expenses: 40861, total_resources: 40861, balance: 0 }],
  ])('totals %i as the finance law gives them', async (year, expected) => {
    expect(await get(`/budget/api/totals/?year=${year}`)).toEqual([{ year, ...expected }]);
  });

  it('serves the 2019 outturn on the Article-1 basis: own resources 32 400 − expenses excluding principal 35 900', async () => {
    expect(await get('/budget/api/totals/?year=2019&stage=outturn')).toEqual([
      { year: 2019, total_expenses: 35900, total_resources: 32400, balance: -3500 },
    ]);
  });

  it("gives the 2021 debt ratio on INS GDP (107 800 / 131 544,6 = 81,95 %), not the ministry's 85,5 %", async () => {
    expect(await get('/budget/api/outstanding-debt/?year=2021')).toEqual([
      { year: 2021, outstanding_debt: 107800, gdp: 131544.6, value: 81.95, published_value: 85.5, stage: 'outturn', source_id: 38, derived: false },
    ]);
  });

  it('splits the 2016 tax revenue of the finance law into its six items, which sum to 20 600', async () => {
    const rows: { id: number; resources: number }[] = await get('/budget/api/budget-categories/?year=2016&type=resource');
    const byId = Object.fromEntries(rows.map((r) => [r.id, r.resources]));
    // IRPP 5 390, IS 3 388, customs 523, VAT 5 697, consumption 2 277, other indirect 3 325.
    expect(byId).toMatchObject({ 32: 20600, 33: 8778, 34: 5390, 35: 3388, 36: 11822, 43: 523, 44: 5697, 45: 2277, 46: 3325 });
  });

  describe('by mission, every year 2016-2025', () => {
    type Stat = { organization_id: number; total_expenses: number };
    const YEARS = Array.from({ length: 10 }, (_, i) => 2016 + i);
    // Organizations that are not a named mission: 1 (not split by mission), 18 (unforeseen expenses), 31 (debt service), 34 (the residual).
    const NOT_MISSIONS = new Set([1, 18, 31, 34]);

    it.each(YEARS)('adds up organization/stats/?year=%i to totals/ of that year', async (year) => {
      const rows: Stat[] = await get(`/budget/api/organization/stats/?year=${year}`);
      const [total] = await get(`/budget/api/totals/?year=${year}`);
      expect(rows.reduce((sum, r) => sum + Math.round(r.total_expenses * 1000), 0)).toBe(Math.round(total.total_expenses * 1000));
    });

    it('names at least 10 missions in 9 of the 10 years and at least 5 in every year', async () => {
      const counts: number[] = [];
      for (const year of YEARS) {
        const rows: Stat[] = await get(`/budget/api/organization/stats/?year=${year}`);
        counts.push(rows.filter((r) => !NOT_MISSIONS.has(r.organization_id)).length);
      }
      // Counted from the per-year table of data/SOURCES.md, "2017–2025 by mission" (2016: 28 missions + Defence, one id).
      expect(counts).toEqual([28, 14, 17, 12, 12, 19, 10, 6, 13, 14]);
    });

    it('follows Education under one id (9) through every year, from the LF 2016 table to the LF 2025', async () => {
      const body = await get('/budget/api/expenses/?organization=9&year=2016..2025&limit=100');
      const byYear: Record<number, number> = {};
      for (const r of body.results as { year: number; amount: number }[])
        byYear[r.year] = Math.round(((byYear[r.year] ?? 0) + r.amount) * 1000) / 1000;
      expect(byYear).toEqual({
        2016: 4525.231,
        2017: 4861,
        2018: 4925,
        2019: 5500,
        2020: 6509,
        2021: 6728,
        2022: 6890,
        2023: 7768.6,
        2024: 7910,
        2025: 8044,
      });
    });

    it('gives Education per inhabitant for every year, on the INS projection (4 525,231 MDT / 11 295 786 = 400,61 TND in 2016)', async () => {
      const body = await get('/budget/api/expenses/?hierarchy=true&organization=9&year=2016..2025&measure=per_capita');
      const years = new Set((body.results as { year: number; amount: number | null }[]).filter((n) => n.amount !== null).map((n) => n.year));
      expect([...years]).toEqual(YEARS);
      const y2025 = (body.results as { year: number; amount: number }[]).find((n) => n.year === 2025)!;
      // 8 044 MDT / 12 440 878 inhabitants.
      expect(y2025.amount).toBe(646.58);
    });

    it('puts the debt service, the residual and Education first among the shares of 2024', async () => {
      const rows: Stat[] = await get('/budget/api/organization/stats/?year=2024&measure=share&ordering=-total_expenses');
      // 23 838 / 76 800; 13 891,278 / 76 800; 7 910 / 76 800; 5 800 / 76 800; 4 086,848 / 76 800.
      expect(rows.slice(0, 5).map((r) => [r.organization_id, r.total_expenses])).toEqual([
        [31, 31.04],
        [34, 18.09],
        [9, 10.3],
        [5, 7.55],
        [6, 5.32],
      ]);
    });

    it("gives Defence 2016 as adopted, 2 294,824: the table's two title lines and the 200 added at the vote", async () => {
      const body = await get('/budget/api/expenses/?organization=6&year=2016');
      expect(body.results.map((r: { amount: number; derived: boolean }) => [r.amount, r.derived])).toEqual([
        [1496.574, true],
        [598.25, false],
        [200, true],
      ]);
    });

    it('covers population for every year 2016-2025 in /meta/', async () => {
      const meta = await get('/budget/api/meta/');
      expect(meta.coverage.population).toEqual(YEARS);
    });

    it('says in /meta/ known_gaps which missions are not itemised, and that 2021-2022 interest is inside them', async () => {
      const { known_gaps: gaps } = await get('/budget/api/meta/');
      const missions = gaps.find((g: { reason: { en: string } }) => g.reason.en.startsWith('No complete table by mission'));
      expect(missions).toMatchObject({ table: 'expenses', stage: 'initial', years: YEARS.slice(1) });
      expect(gaps).toContainEqual(expect.objectContaining({ table: 'expenses', stage: 'initial', years: [2021, 2022] }));
    });
  });
});
