/** jsonText: integers past 2^53 stay exact JSON integers, everything else is JSON.stringify's. */
import { describe, expect, it } from 'vitest';
import { jsonText } from '../../src/domain/json.js';

describe('jsonText', () => {
  it('writes an answer without bigints exactly as JSON.stringify does', () => {
    expect(jsonText([{ id: 1, name: 'Réserve', amount: 0.3, parent: null }])).toBe('[{"id":1,"name":"Réserve","amount":0.3,"parent":null}]');
  });
  it('writes bigints as bare JSON integers, every digit kept, negative ones too', () => {
    expect(jsonText({ id: 9007199254740993n, parent: -9223372036854775807n, year: 2024 })).toBe(
      '{"id":9007199254740993,"parent":-9223372036854775807,"year":2024}',
    );
  });
  it('leaves a string that merely looks like a number a string', () => {
    expect(jsonText({ id: 9007199254740993n, code: '9007199254740993' })).toBe('{"id":9007199254740993,"code":"9007199254740993"}');
  });
});
