import { describe, expect, it } from 'vitest';
import { fileName } from '../../src/api/download-name.js';
import { param } from '../../src/api/params.js';
import { FORMATS } from '../../src/formats/registry.js';

describe('the year parameter (parseYears)', () => {
  const years = (text: string) => param.year.safeParse(text);

  it('reads a year, a list and a range, ascending and distinct', () => {
    expect(years('2016').data).toEqual([2016]);
    expect(years('2018,2016,2018').data).toEqual([2016, 2018]);
    expect(years('2016..2019').data).toEqual([2016, 2017, 2018, 2019]);
  });

  it('refuses a range that runs backwards, one of more than 50 years, and years out of bounds', () => {
    expect(years('2020..2016').error?.issues[0]?.message).toBe('range 2020..2016 runs backwards: write the earlier year first');
    expect(years('1950..2010').error?.issues[0]?.message).toBe('must hold at most 50 years');
    expect(years('1899').error?.issues[0]?.message).toBe('must be an integer between 1900 and 2100');
  });

  it('names `last` among what year=last accepts when it refuses', () => {
    expect(param.yearOrLast.safeParse('last').data).toBe('last');
    expect(param.yearOrLast.safeParse('x').error?.issues[0]?.message).toBe('must be an integer between 1900 and 2100, or last');
  });
});

describe('fileName', () => {
  it('names a download by its endpoint and the parameters given, format aside', () => {
    expect(fileName('/budget/api/expenses/', { year: [2023], organization: 1, format: 'csv', stage: undefined }, FORMATS.csv)).toBe(
      'expenses-year-2023-organization-1.csv',
    );
  });

  it('writes consecutive years as a range, others as a list, and makes any other character safe', () => {
    expect(fileName('/budget/api/organization/stats/', { year: [2016, 2017, 2018] }, FORMATS.parquet)).toBe(
      'organization-stats-year-2016..2018.parquet',
    );
    expect(fileName('/budget/api/totals/', { year: [2016, 2018], search: 'é "x"' }, FORMATS.arrow)).toBe('totals-year-2016_2018-search-_x_.arrow');
  });
});
