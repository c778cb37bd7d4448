/**
 * What the sample drop's figures mean, as a journalist asks it (docs/api.md#what-every-figure-means):
 * the stages with their bases, the gaps the drop states. Expected texts are data/SOURCES.md's.
 */
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appServing, type TestApp } from './helpers/app.js';

const DATA = path.resolve(import.meta.dirname, '..', 'data');
let t: TestApp;
beforeAll(async () => {
  t = await appServing(DATA);
});
afterAll(() => t.close());

const get = async (url: string) => {
  const res = await request(t.app).get(url);
  expect(res.status, url).toBe(200);
  return res.body;
};

describe('the sample drop', () => {
  it('says in /meta/ that the outturn leaves out debt principal and borrowing, and is comparable with no law stage', async () => {
    const { stages } = await get('/budget/api/meta/');
    expect(Object.keys(stages)).toEqual(['initial', 'amended', 'outturn']);
    expect(stages.outturn.basis.en).toMatch(/excluding debt principal, own resources only \(no borrowing\)/);
    expect(stages.outturn.basis.fr).toMatch(/hors principal de la dette/);
    expect(stages.outturn.comparable_with).toEqual([]);
    expect(stages.initial.comparable_with).toEqual(['amended']);
    expect(stages.amended.comparable_with).toEqual(['initial']);
  });
  it('states the gaps data/SOURCES.md gives: the complementary laws of 2019 and 2023, population before 2016', async () => {
    const { known_gaps: gaps } = await get('/budget/api/meta/');
    expect(gaps).toContainEqual(expect.objectContaining({ table: 'expenses', stage: 'amendment', years: [2019, 2023] }));
    expect(gaps).toContainEqual(expect.objectContaining({ table: 'resources', stage: 'amendment', years: [2019, 2023] }));
    const population = gaps.find((g: { table: string }) => g.table === 'population');
    expect(population.years).toEqual([2010, 2011, 2012, 2013, 2014, 2015]);
    expect(gaps.every((g: { reason: { en: string; fr: string } }) => g.reason.en && g.reason.fr)).toBe(true);
  });
  it('keeps the 6.1 % its source printed for the 2016 deficit beside the 5.78 % computed on the revised GDP', async () => {
    expect(await get('/budget/api/deficit/?year=2016')).toEqual([
      { year: 2016, value: 5510, percent: 5.78, published_percent: 6.1, gdp: 95286.9, stage: 'outturn', source_id: 61, derived: false },
    ]);
    // The ministry's 85.5 % of 2021, on an older GDP estimate.
    expect((await get('/budget/api/outstanding-debt/?year=2021'))[0]).toMatchObject({ value: 81.95, published_value: 85.5 });
  });
});
