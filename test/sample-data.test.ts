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
    it('lists the 29 missions of the finance law 2016 and the debt service, summing to its 29 150', async () => {
      const rows: { organization_id: number; total_expenses: number; total_resources: number }[] = await get('/budget/api/organization/stats/?year=2016');
      // Missions have ids 2-30, the debt service 31; the whole-budget organization (1) has no 2016 line.
      expect(rows.map((r) => r.organization_id)).toEqual(Array.from({ length: 30 }, (_, i) => i + 2));
      // 24 020 ("total sans dettes") + 5 130 (debt service), summed in thousandths to stay exact.
      expect(rows.reduce((sum, r) => sum + Math.round(r.total_expenses * 1000), 0)).toBe(29_150_000);
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
    expect(byId).toMatchObject({ 1: 18778.168, 11: 5241.832, 14: 5130, 15: 1850, 16: 3280 });
    expect(byId[2]).toBeUndefined();
  });

  it.each([
    // LF 2016 by mission; resources are the PLF's 20 600 + 2 056 + 6 594.
    [2016, { total_expenses: 29150, total_resources: 29250, balance: 100 }],
    [2017, { total_expenses: 32705, total_resources: 32705, balance: 0 }],
    [2018, { total_expenses: 35851, total_resources: 35915, balance: 64 }],
    // LF 2019 40 861 on both sides; its outturn lines are another stage and do not add to it.
    [2019, { total_expenses: 40861, total_resources: 40861, balance: 0 }],
  ])('totals %i as the finance law gives them', async (year, expected) => {
    expect(await get(`/budget/api/totals/?year=${year}`)).toEqual([{ year, ...expected }]);
  });

  it('serves the 2019 outturn on the Article-1 basis: own resources 32 400 − expenses excluding principal 35 900', async () => {
    expect(await get('/budget/api/totals/?year=2019&stage=outturn')).toEqual([{ year: 2019, total_expenses: 35900, total_resources: 32400, balance: -3500 }]);
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
});
