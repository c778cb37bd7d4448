/** If-None-Match against a tag, and the canonical query that tags and cache keys come from. */
import { describe, expect, it } from 'vitest';
import { answerKey, canonicalQuery } from '../../src/http/canonical-query.js';
import { isFresh } from '../../src/http/caching.js';

describe('isFresh', () => {
  const etag = '"abc"';
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    [' "x" ,W/"abc" ', true],
    ['*', true],
    ['"abcd"', false],
    ['abc', false],
    ['', false],
    [undefined, false],
  ])('If-None-Match: %s is %s', (header, fresh) => {
    expect(isFresh(header, etag)).toBe(fresh);
  });
});

describe('canonicalQuery', () => {
  const ORDER = ['year', 'hierarchy', 'organization', 'limit', 'offset', 'format'];
  it("puts parameters in the endpoint's order, values as given", () => {
    expect(canonicalQuery('/x/?limit=5&organization=1&year=2023&hierarchy=TRUE', ORDER)).toEqual({
      pairs: [
        ['year', '2023'],
        ['hierarchy', 'TRUE'],
        ['organization', '1'],
        ['limit', '5'],
      ],
      format: undefined,
    });
  });
  it('takes format out of the query and gives it apart', () => {
    expect(canonicalQuery('/x/?format=json&year=2023', ORDER)).toEqual({ pairs: [['year', '2023']], format: 'json' });
  });
  it('keeps a repeated format, and unknown parameters after the known ones, so an invalid query keys apart', () => {
    expect(canonicalQuery('/x/?format=json&nope=1&format=json&year=2023', ORDER)).toEqual({
      pairs: [
        ['year', '2023'],
        ['format', 'json'],
        ['format', 'json'],
        ['nope', '1'],
      ],
      format: undefined,
    });
  });
  it('decodes percent-escapes, so two spellings of a value are one query', () => {
    expect(canonicalQuery('/x/?type=d%C3%A9pense', ['type'])).toEqual(canonicalQuery('/x/?type=dépense', ['type']));
  });
});

describe('answerKey', () => {
  it('names the drop, the path, the canonical query and the representation', () => {
    const query = canonicalQuery('/budget/api/debt/?parent=null&year=2023', ['year', 'parent', 'format']);
    expect(answerKey('f1', '/budget/api/debt/', query, 'csv')).toBe('f1\n/budget/api/debt/\nyear=2023&parent=null\ncsv');
  });
});
