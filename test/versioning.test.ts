/**
 * The versioning promise (docs/api.md#versioning-and-deprecation): a semantic API version, a
 * changelog, and deprecation announced by the standard headers. Nothing the API serves is
 * deprecated, so these tests mark parts of their own endpoint table.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, withDeprecations, type Endpoint } from '../src/api/endpoints/index.js';
import { API_VERSION } from '../src/api/versioning.js';
import { createApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { loadDrop } from '../src/data/drop.js';
import { Store } from '../src/data/store.js';
import { small } from './fixtures/small.js';
import { writeDrop } from './helpers/drop.js';

const SINCE = '2026-05-01';
const SUNSET = '2027-06-01';
const mark = (replacement: string) => ({ since: SINCE, sunset: SUNSET, replacement });
const byPath = (path: string) => ENDPOINTS.find((e) => e.path === `/budget/api/${path}`)!;

/** The API's endpoints, with one part of each kind marked deprecated. */
const MARKED: Endpoint[] = ENDPOINTS.map((endpoint) => {
  switch (endpoint.path) {
    case byPath('deficit/').path:
      return withDeprecations(endpoint, { endpoint: mark('use /budget/api/v2/deficit/') });
    case byPath('totals/').path:
      return withDeprecations(endpoint, { parameters: { include_complementary: mark('use stage=initial') } });
    case byPath('organization/stats/').path:
      return withDeprecations(endpoint, { fields: { total_resources: mark('use resources/?organization=ID') } });
    case byPath('resources/').path:
      return withDeprecations(endpoint, { endpoint: mark('use /budget/api/v2/resources/') });
    case byPath('budget-categories/').path:
      return withDeprecations(endpoint, { formats: { csv: mark('use format=parquet') } });
    default:
      return endpoint;
  }
});

let clock = new Date('2026-11-24T12:00:00Z');
let app: ReturnType<typeof createApp>;
let plain: ReturnType<typeof createApp>;
const lines: Record<string, unknown>[] = [];
const stores: Store[] = [];

beforeAll(async () => {
  const dir = await writeDrop(small);
  const config = parseConfig({ RATE_LIMIT: '0', DATA_DIR: dir });
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const open = async () => {
    const store = new Store();
    store.swap(await loadDrop(dir));
    stores.push(store);
    return store;
  };
  app = createApp({ config, store: await open(), endpoints: MARKED, now: () => clock, log: pino(sink) });
  plain = createApp({ config, store: await open() });
});
afterAll(() => stores.forEach((s) => s.close()));

async function logLineOf(res: request.Response) {
  const id = res.headers['x-request-id'];
  for (let tries = 0; tries < 50 && !lines.some((line) => line.id === id); tries++) await new Promise((r) => setTimeout(r, 10));
  return lines.find((line) => line.id === id)!;
}

describe('the API version', () => {
  it('is a semantic version, in the OpenAPI document, /meta/ and the index', async () => {
    expect(API_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    const doc = await request(plain).get('/budget/api/openapi.json').expect(200);
    expect(doc.body.info.version).toBe(API_VERSION);
    expect((await request(plain).get('/budget/api/meta/').expect(200)).body.api_version).toBe(API_VERSION);
    const index = await request(plain).get('/budget/api/').expect(200);
    expect(index.body.api_version).toBe(API_VERSION);
    expect(index.body.documentation.changelog).toBe('/budget/api/changelog');
  });

  it('has its changelog served as Markdown, with a section for the current version, linked from the docs page', async () => {
    const res = await request(plain).get('/budget/api/changelog').expect(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(res.text).toContain(`## [${API_VERSION}]`);
    expect(res.text).toMatch(/### (Added|Changed|Deprecated|Removed|Fixed)/);
    const docs = await request(plain).get('/budget/api/docs/').expect(200);
    expect(docs.text).toContain('href="/budget/api/changelog"');
  });
});

describe('the API as served', () => {
  it('deprecates nothing: no operation, parameter or field is marked, and no answer carries Deprecation', async () => {
    const doc = await request(plain).get('/budget/api/openapi.json').expect(200);
    expect(JSON.stringify(doc.body)).not.toContain('"deprecated":true');
    const res = await request(plain).get('/budget/api/totals/?include_complementary=true').expect(200);
    expect(res.headers.deprecation).toBeUndefined();
    expect(res.headers.sunset).toBeUndefined();
  });
});

describe('an endpoint table with deprecated parts', () => {
  describe('before the sunset', () => {
    it('marks each in the OpenAPI document', async () => {
      const doc = (await request(app).get('/budget/api/openapi.json').expect(200)).body;
      expect(doc.paths['/budget/api/deficit/'].get.deprecated).toBe(true);
      expect(doc.paths['/budget/api/totals/'].get.deprecated).toBeUndefined();
      const params = doc.paths['/budget/api/totals/'].get.parameters as { name: string; deprecated?: boolean }[];
      expect(params.find((p) => p.name === 'include_complementary')!.deprecated).toBe(true);
      expect(params.find((p) => p.name === 'year')!.deprecated).toBeUndefined();
      const ref = doc.paths['/budget/api/organization/stats/'].get.responses[200].content['application/json'].schema.$ref as string;
      const list = doc.components.schemas[ref.split('/').pop()!];
      const item = doc.components.schemas[(list.items.$ref as string).split('/').pop()!];
      expect(item.properties.total_resources.deprecated).toBe(true);
      expect(item.properties.total_expenses.deprecated).toBeUndefined();
      expect(doc.paths['/budget/api/budget-categories/'].get.description).toContain('The csv format is deprecated here');
    });

    it('answers a call to a deprecated endpoint with Deprecation, Sunset and a Link to the changelog', async () => {
      const res = await request(app).get('/budget/api/deficit/').expect(200);
      expect(res.headers.deprecation).toBe(`@${Date.parse(SINCE) / 1000}`);
      expect(res.headers.sunset).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
      expect(res.headers.link).toBe('</budget/api/changelog>; rel="deprecation"');
      // A script on another origin can read them too.
      expect(res.headers['access-control-expose-headers']!.split(', ')).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
    });

    it("keeps the deprecation Link beside a page's next and previous links", async () => {
      const first = await request(app).get('/budget/api/resources/?limit=1').expect(200);
      expect(first.body.next).not.toBeNull();
      expect(first.headers.link).toBe(`</budget/api/changelog>; rel="deprecation", <${first.body.next}>; rel="next"`);
      const last = await request(app)
        .get(`/budget/api/resources/?limit=1&offset=${first.body.count - 1}`)
        .expect(200);
      expect(last.headers.link).toBe(`</budget/api/changelog>; rel="deprecation", <${last.body.previous}>; rel="prev"`);
    });

    it('marks an answer that gave a deprecated parameter, and only such an answer', async () => {
      const given = await request(app).get('/budget/api/totals/?include_complementary=false').expect(200);
      expect(given.headers.sunset).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
      const without = await request(app).get('/budget/api/totals/?stage=initial').expect(200);
      expect(without.headers.deprecation).toBeUndefined();
      expect(without.body).toEqual(given.body);
    });

    it('marks answers whose rows carry a deprecated field', async () => {
      const res = await request(app).get('/budget/api/organization/stats/').expect(200);
      expect(res.headers.deprecation).toBe(`@${Date.parse(SINCE) / 1000}`);
      expect(res.body[0]).toHaveProperty('total_resources');
    });

    it('marks an answer in a deprecated format, and not the same answer in another', async () => {
      const csv = await request(app).get('/budget/api/budget-categories/?format=csv').expect(200);
      expect(csv.headers.deprecation).toBeDefined();
      const byAccept = await request(app).get('/budget/api/budget-categories/').set('Accept', 'text/csv').expect(200);
      expect(byAccept.headers.deprecation).toBeDefined();
      const json = await request(app).get('/budget/api/budget-categories/').expect(200);
      expect(json.headers.deprecation).toBeUndefined();
    });

    it('counts every use in the request log, cached answers included', async () => {
      for (let i = 0; i < 2; i++) {
        const res = await request(app).get('/budget/api/totals/?include_complementary=true').expect(200);
        expect(res.headers.deprecation).toBeDefined();
        expect((await logLineOf(res)).deprecated).toEqual(['parameter:include_complementary']);
      }
      const plainAnswer = await request(app).get('/budget/api/expenses/').expect(200);
      expect((await logLineOf(plainAnswer)).deprecated).toBeUndefined();
    });
  });

  describe('after the sunset', () => {
    beforeAll(() => {
      clock = new Date('2027-06-01T00:00:01Z');
    });
    afterAll(() => {
      clock = new Date('2026-11-24T12:00:00Z');
    });

    it('answers 410 sunset naming the replacement of a withdrawn endpoint', async () => {
      const res = await request(app).get('/budget/api/deficit/').expect(410);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(res.body).toMatchObject({ status: 410, title: 'Gone', code: 'sunset' });
      expect(res.body.detail).toBe('this endpoint was withdrawn on 2027-06-01 (see /budget/api/changelog); use /budget/api/v2/deficit/');
    });

    it('answers 410 to a withdrawn parameter, and still serves the endpoint without it', async () => {
      const res = await request(app).get('/budget/api/totals/?include_complementary=true').expect(410);
      expect(res.body.detail).toContain('the parameter include_complementary was withdrawn on 2027-06-01');
      expect(res.body.detail).toContain('use stage=initial');
      await request(app).get('/budget/api/totals/?stage=initial').expect(200);
    });

    it('answers 410 to a withdrawn format and serves the others', async () => {
      const res = await request(app).get('/budget/api/budget-categories/?format=csv').expect(410);
      expect(res.body.detail).toContain('the format csv was withdrawn');
      await request(app).get('/budget/api/budget-categories/?format=parquet').expect(200);
    });

    it('answers 410 to a request whose rows would carry a withdrawn field', async () => {
      const res = await request(app).get('/budget/api/organization/stats/').expect(410);
      expect(res.body.detail).toContain('the field total_resources was withdrawn');
    });
  });

  it('refuses a deprecation announced with less than 6 months of notice', () => {
    expect(() => withDeprecations(byPath('totals/'), { endpoint: { since: '2026-11-01', sunset: '2027-03-01', replacement: 'x' } })).toThrow(
      /at least 6 months of notice/,
    );
  });
});
