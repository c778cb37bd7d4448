/** negotiate: format= wins, then Accept; JSON whenever nothing better is named. */
import { describe, expect, it } from 'vitest';
import { negotiate } from '../../src/formats/negotiate.js';

describe('negotiate', () => {
  it.each([
    [undefined, 'json'],
    ['*/*', 'json'],
    ['application/json', 'json'],
    ['text/csv', 'csv'],
    ['application/vnd.apache.arrow.stream', 'arrow'],
    ['application/vnd.apache.parquet', 'parquet'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'json'],
    ['image/png', 'json'],
    ['application/json;q=0.5, text/csv', 'csv'],
    ['text/csv;q=0.4, application/vnd.apache.parquet;q=0.9', 'parquet'],
    ['text/*', 'csv'],
  ])('answers Accept: %s with %s', (accept, format) => {
    expect(negotiate(accept, undefined)).toBe(format);
  });
  it('lets format= win over Accept', () => {
    expect(negotiate('text/csv', 'json')).toBe('json');
    expect(negotiate('application/json', 'parquet')).toBe('parquet');
  });
});
