/** The page bounds and the count/next/previous envelope. */
import { describe, expect, it } from 'vitest';
import { envelope, isWholeExport, pageBounds } from '../../src/api/paging.js';

const PATH = '/budget/api/expenses/';

describe('pageBounds', () => {
  it('defaults to 100 items from offset 0', () => {
    expect(pageBounds({})).toEqual({ limit: 100, offset: 0 });
    expect(pageBounds({ offset: 200 })).toEqual({ limit: 100, offset: 200 });
    expect(pageBounds({ limit: 5 })).toEqual({ limit: 5, offset: 0 });
  });
});

describe('isWholeExport', () => {
  it('is true only when neither limit nor offset is given', () => {
    expect(isWholeExport({})).toBe(true);
    expect(isWholeExport({ limit: 100 })).toBe(false);
    expect(isWholeExport({ offset: 0 })).toBe(false);
  });
});

describe('envelope', () => {
  const items = ['a', 'b'];
  it('links the next and previous pages, limit and offset first, then the other parameters as given', () => {
    const others = [
      ['year', '2023'],
      ['organization', '1'],
      ['limit', '2'],
      ['offset', '4'],
    ] as const;
    expect(envelope(PATH, others, { count: 10, items }, { limit: 2, offset: 4 })).toEqual({
      count: 10,
      next: '/budget/api/expenses/?limit=2&offset=6&year=2023&organization=1',
      previous: '/budget/api/expenses/?limit=2&offset=2&year=2023&organization=1',
      results: ['a', 'b'],
    });
  });
  it('has no next on the last page and no previous on the first', () => {
    expect(envelope(PATH, [], { count: 2, items }, {})).toEqual({ count: 2, next: null, previous: null, results: ['a', 'b'] });
  });
  it('clamps previous at offset 0 past the end, and writes the default limit into the links', () => {
    expect(envelope(PATH, [], { count: 3, items: [] }, { offset: 50 })).toEqual({
      count: 3,
      next: null,
      previous: '/budget/api/expenses/?limit=100&offset=0',
      results: [],
    });
  });
  it('encodes values in the links', () => {
    const page = envelope('/budget/api/budget-categories/', [['type', 'dépense']], { count: 300, items }, {});
    expect(page.next).toBe('/budget/api/budget-categories/?limit=100&offset=100&type=d%C3%A9pense');
  });
});
