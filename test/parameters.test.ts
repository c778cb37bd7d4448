/** Query-parameter validation (docs/api.md#query-parameters): every refusal is a 400 problem naming the parameter. */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { appFor, type TestApp } from './helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await appFor(small);
});
afterAll(() => t.close());

async function problem(url: string, code: string, parameter: string) {
  const res = await request(t.app).get(url);
  expect(res.status, url).toBe(400);
  expect(res.headers['content-type']).toBe('application/problem+json');
  expect(res.body).toMatchObject({ type: 'about:blank', title: 'Bad Request', status: 400, code });
  expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ parameter })]));
  expect(res.body.detail).toContain(parameter);
  return res.body;
}

describe('query parameters', () => {
  describe('a parameter the endpoint does not list', () => {
    it('is refused as unknown_parameter, naming it and the accepted ones', async () => {
      const body = await problem('/budget/api/totals/?years=2020', 'unknown_parameter', 'years');
      expect(body.errors[0].message).toContain('year, include_complementary');
    });
    it('wins over an invalid value in the same request', async () => {
      await problem('/budget/api/totals/?year=abc&foo=1', 'unknown_parameter', 'foo');
    });
    it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])('is refused when named %s, a name every object inherits', async (name) => {
      await problem(`/budget/api/deficit/?${name}=1`, 'unknown_parameter', name);
      await problem(`/budget/api/expenses/?year=2024&${name}=x`, 'unknown_parameter', name);
    });
    it('is refused on the deficit, which takes year but not years', async () => {
      await problem('/budget/api/deficit/?years=2020', 'unknown_parameter', 'years');
    });
    it('says so of a parameter with no name (?=5)', async () => {
      const res = await request(t.app).get('/budget/api/totals/?=5');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'unknown_parameter', errors: [{ parameter: '' }] });
      expect(res.body.detail).toMatch(/^a parameter with no name is not a parameter of this endpoint \(accepted parameters: year, /);
    });
    it('echoes at most 64 characters of a huge name', async () => {
      const name = 'a'.repeat(5000);
      const res = await request(t.app).get(`/budget/api/totals/?${name}=1`);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].parameter).toBe(`${'a'.repeat(64)}…`);
      expect(res.text.length).toBeLessThan(1000);
    });
    it('names only the first five of a huge URL of unknown names, and how many more, in a small answer', async () => {
      const names = Array.from({ length: 2060 }, (_, i) => `n${i}`);
      const url = `/budget/api/expenses/?${names.map((name) => `${name}=1`).join('&')}`;
      expect(url.length).toBeGreaterThan(15_000);
      const res = await request(t.app).get(url);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('unknown_parameter');
      expect(res.body.errors.map((e: { parameter: string }) => e.parameter)).toEqual(['n0', 'n1', 'n2', 'n3', 'n4']);
      expect(res.body.detail).toMatch(/; and 2055 more unknown parameters$/);
      expect(res.text.length).toBeLessThan(4000);
    });
    it('includes bracketed names, which are not parsed into objects', async () => {
      await problem('/budget/api/expenses/?year[gt]=2020', 'unknown_parameter', 'year[gt]');
    });
  });

  describe('a repeated or empty parameter', () => {
    it('is refused when given twice', async () => {
      const body = await problem('/budget/api/totals/?year=2020&year=2021', 'invalid_parameter', 'year');
      expect(body.errors[0].message).toBe('must be given at most once');
    });
    it('is refused when empty', async () => {
      const body = await problem('/budget/api/totals/?year=', 'invalid_parameter', 'year');
      expect(body.errors[0].message).toBe('must not be empty');
    });
  });

  describe('year', () => {
    it.each(['abc', '2020.5', '1899', '2101', '-2020', '1e3', ' 2020', '0x7E4'])('refuses year=%s', async (year) => {
      const body = await problem(`/budget/api/totals/?year=${encodeURIComponent(year)}`, 'invalid_parameter', 'year');
      expect(body.detail).toBe('year must be an integer between 1900 and 2100');
    });
    it.each(['1900', '2100'])('accepts the bound year=%s with an empty list', async (year) => {
      const res = await request(t.app).get(`/budget/api/totals/?year=${year}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
    });
    it('accepts last only on outstanding-debt', async () => {
      expect((await request(t.app).get('/budget/api/outstanding-debt/?year=last')).status).toBe(200);
      await problem('/budget/api/totals/?year=last', 'invalid_parameter', 'year');
      await problem('/budget/api/outstanding-debt/?year=first', 'invalid_parameter', 'year');
    });
    it('names last among the accepted values where it is one', async () => {
      const body = await problem('/budget/api/outstanding-debt/?year=las', 'invalid_parameter', 'year');
      expect(body.detail).toBe('year must be an integer between 1900 and 2100, or last');
    });
  });

  describe('booleans', () => {
    it.each(['true', 'FALSE', 'True', '1', '0'])('accepts hierarchy=%s', async (value) => {
      expect((await request(t.app).get(`/budget/api/expenses/?hierarchy=${value}`)).status).toBe(200);
    });
    it.each(['yes', 'no', '2', 't', 'on'])('refuses include_complementary=%s', async (value) => {
      await problem(`/budget/api/totals/?include_complementary=${value}`, 'invalid_parameter', 'include_complementary');
    });
  });

  describe('type', () => {
    it('refuses anything but the four spellings', async () => {
      const body = await problem('/budget/api/budget-categories/?type=revenue', 'invalid_parameter', 'type');
      expect(body.errors[0].message).toContain('expense, resource, dépense, depense, ressource');
    });
  });

  describe('ids', () => {
    it.each(['0', '-1', 'abc', '1.5', 'null'])('refuses organization=%s', async (id) => {
      await problem(`/budget/api/expenses/?organization=${id}`, 'invalid_parameter', 'organization');
    });
    it('takes any 64-bit id: the largest one is an unknown id, not a bad one', async () => {
      for (const url of ['/budget/api/expenses/?organization=9223372036854775807', '/budget/api/debt/?parent=0009223372036854775807']) {
        const res = await request(t.app).get(url);
        expect(res.status, url).toBe(200);
      }
      expect((await request(t.app).get('/budget/api/organization/stats/?organization_id=9223372036854775807')).body).toEqual([]);
    });
    it('refuses an id past 64 bits, saying the limit', async () => {
      const body = await problem('/budget/api/expenses/?organization=9223372036854775808', 'invalid_parameter', 'organization');
      expect(body.detail).toBe('organization must be a positive integer up to 9223372036854775807 (ids are 64-bit)');
      await problem('/budget/api/debt/?parent=99999999999999999999', 'invalid_parameter', 'parent');
    });
    it('refuses organization_id=0 on the stats', async () => {
      await problem('/budget/api/organization/stats/?organization_id=0', 'invalid_parameter', 'organization_id');
    });
    it('accepts parent=null and refuses parent=none', async () => {
      expect((await request(t.app).get('/budget/api/debt/?parent=null')).status).toBe(200);
      await problem('/budget/api/debt/?parent=none', 'invalid_parameter', 'parent');
    });
  });

  describe('limit and offset', () => {
    it.each(['0', '1001', '-5', 'ten', '1.5'])('refuses limit=%s', async (limit) => {
      const body = await problem(`/budget/api/expenses/?limit=${limit}`, 'invalid_parameter', 'limit');
      expect(body.detail).toBe('limit must be an integer between 1 and 1000');
    });
    it.each(['-1', 'x', '2.5'])('refuses offset=%s', async (offset) => {
      await problem(`/budget/api/resources/?offset=${offset}`, 'invalid_parameter', 'offset');
    });
    it('accepts limit=1000', async () => {
      expect((await request(t.app).get('/budget/api/organization/?limit=1000')).status).toBe(200);
    });
  });

  it('reports every invalid parameter of a request at once', async () => {
    const res = await request(t.app).get('/budget/api/expenses/?year=1&limit=0');
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { parameter: string }) => e.parameter).sort()).toEqual(['limit', 'year']);
  });
});
