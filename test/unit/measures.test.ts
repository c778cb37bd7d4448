import { describe, expect, it } from 'vitest';
import { changeOf, withChanges, type Measurer } from '../../src/api/measures.js';
import { ordered } from '../../src/api/endpoints/measured-rows.js';

/** Nominal: figures rounded to 3 decimals, as money. */
const nominal: Measurer = {
  measure: 'nominal',
  header: 'nominal; unit="MDT"',
  apply: (figure) => figure,
  round: (value) => (value === null ? null : Math.round(value * 1000) / 1000),
};

describe('changeOf', () => {
  it('gives the change and the change in percent against the year before', () => {
    expect(changeOf(110, 100)).toEqual({ change: 10, change_pct: 10 });
    expect(changeOf(50, 200)).toEqual({ change: -150, change_pct: -75 });
  });

  it('gives nothing when a year lacks its figure, or the year before is zero', () => {
    expect(changeOf(null, 100)).toEqual({ change: null, change_pct: null });
    expect(changeOf(100, null)).toEqual({ change: null, change_pct: null });
    expect(changeOf(100, undefined)).toEqual({ change: null, change_pct: null });
    expect(changeOf(100, 0)).toEqual({ change: null, change_pct: null });
  });
});

describe('withChanges', () => {
  it('adds one change per row from the calendar year before, and none across a gap', () => {
    const rows = [
      { year: 2020, value: 100 },
      { year: 2021, value: 125.0004 },
      { year: 2023, value: 90 },
    ];
    expect(withChanges(rows, ['value'], nominal)).toEqual([
      { year: 2020, value: 100, change: null, change_pct: null },
      { year: 2021, value: 125, change: 25, change_pct: 25 },
      { year: 2023, value: 90, change: null, change_pct: null },
    ]);
  });

  it('keys the year before by `key` within a year, and gives objects for several figures', () => {
    const rows = [
      { year: 2020, id: 1, a: 10, b: 4 },
      { year: 2020, id: 2, a: 20, b: 8 },
      { year: 2021, id: 1, a: 15, b: 2 },
    ];
    expect(withChanges(rows, ['a', 'b'], nominal, (r) => r.id)[2]).toEqual({
      year: 2021,
      id: 1,
      a: 15,
      b: 2,
      change: { a: 5, b: -2 },
      change_pct: { a: 50, b: -50 },
    });
  });
});

describe('ordered', () => {
  const rows = [
    { id: 3, name: 'École', amount: 5 },
    { id: 1, name: 'banque', amount: null },
    { id: 2, name: 'Agence', amount: 5 },
  ];

  it('keeps the rows as they are without an ordering', () => {
    expect(ordered(rows, undefined, 'id')).toBe(rows);
  });

  it('orders ascending or descending, nulls last either way, ties by id', () => {
    expect(ordered(rows, 'amount', 'id').map((r) => r.id)).toEqual([2, 3, 1]);
    expect(ordered(rows, '-amount', 'id').map((r) => r.id)).toEqual([2, 3, 1]);
  });

  it('orders names by a collator, accents and case aside', () => {
    expect(ordered(rows, 'name', 'id').map((r) => r.name)).toEqual(['Agence', 'banque', 'École']);
  });

  it('compares ids past 2^53 exactly', () => {
    const big = [{ id: 9007199254740993n }, { id: 9007199254740992n }];
    expect(ordered(big, 'id', 'id').map((r) => r.id)).toEqual([9007199254740992n, 9007199254740993n]);
  });
});
