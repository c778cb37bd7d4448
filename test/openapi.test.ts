/**
 * The OpenAPI document (GET /budget/api/openapi.json) is valid OpenAPI 3.1, documents every
 * parameter and endpoint, and describes what the server really answers: real answers of every
 * endpoint (flat and tree, paged and not, success and each kind of error) are validated against
 * the document's own schemas with ajv's JSON Schema 2020-12 validator, which is OpenAPI 3.1's
 * dialect. A change to the code that the document does not follow fails here.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { Store } from '../src/data/store.js';
import { ENDPOINTS } from '../src/api/endpoints/index.js';
import { COMMON_HEADERS } from '../src/http/headers.js';
import { MDT, measured } from './fixtures/measured.js';
import { small } from './fixtures/small.js';
import { appFor, type TestApp } from './helpers/app.js';
import { getArrow, getParquet } from './helpers/downloads.js';

type Json = Record<string, any>;

const SOURCES = [{ id: 1, title: 'Loi de finances 2024', url: null, publisher: null, published: null, quote: null }];

let t: TestApp;
let limited: TestApp;
let broken: TestApp;
let empty: Express;
let doc: Json;
let ajv: Ajv2020;

beforeAll(async () => {
  // With a population, a CPI and units, so that every measure answers, and a source, so that sources/ has a row.
  t = await appFor({ ...measured, sources: SOURCES }, {}, { manifest: (m) => void (m.units = MDT) });
  limited = await appFor(small, { RATE_LIMIT: '1' });
  broken = await appFor(small);
  broken.store.served!.instance.closeSync();
  empty = createApp({ config: parseConfig({ RATE_LIMIT: '0', DATA_DIR: '.' }), store: new Store() });
  // Everything below checks the document as served, not the function that builds it.
  doc = (await request(t.app).get('/budget/api/openapi.json')).body;
  // int64 (OpenAPI's format of ids) names a range, not a check: ajv would warn of it on every compile.
  ajv = new Ajv2020({ strict: false, allErrors: true, formats: { int64: true } });
  ajv.addSchema(doc, 'openapi.json');
});
afterAll(() => {
  t.close();
  limited.close();
  broken.close();
});

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** The document's schema for one answer: path, status, media type; follows a response $ref. */
function schemaFor(path: string, status: number, mediaType: string): ValidateFunction {
  const operation = doc.paths[path]?.get;
  expect(operation, `${path} is in the document`).toBeDefined();
  const response = operation.responses[status];
  expect(response, `${path} documents ${status}`).toBeDefined();
  const base = response.$ref ? response.$ref.slice(1) : `/${pointer('paths', path, 'get', 'responses', String(status))}`;
  return ajv.compile({ $ref: `openapi.json#${base}/${pointer('content', mediaType, 'schema')}` });
}

const JSON_TYPE = 'application/json';
/** Parameters refused alone, with what they need beside them (on budget-categories and stats, change needs a year). */
const COMPANIONS: Record<string, string> = { change: 'year=2023' };
const PROBLEM = 'application/problem+json';

/** Validates a real answer against the document; returns it for further checks. */
async function expectDocumented(app: Express, url: string, status: number, documentedPath = url.split('?')[0]!) {
  const res = await request(app).get(url);
  expect(res.status, `${url}: ${res.text}`).toBe(status);
  const mediaType = res.headers['content-type']!.split(';')[0]!;
  expect([JSON_TYPE, PROBLEM]).toContain(mediaType);
  const validate = schemaFor(documentedPath, status, mediaType);
  expect(validate(res.body), `${url} ${status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  return res.body;
}

describe('GET /budget/api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });
  it('is served as JSON with an ETag, CORS and a 304 for a current copy', async () => {
    const res = await request(t.app).get('/budget/api/openapi.json');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    const again = await request(t.app).get('/budget/api/openapi.json').set('If-None-Match', res.headers.etag!);
    expect(again.status).toBe(304);
  });
  it('is listed in the index at /budget/api/, with the docs page', async () => {
    const index = await expectDocumented(t.app, '/budget/api/', 200);
    expect(index.documentation).toEqual({ openapi: '/budget/api/openapi.json', docs: '/budget/api/docs/', changelog: '/budget/api/changelog' });
    expect(index.endpoints.map((e: Json) => e.path)).toContain('/budget/api/openapi.json');
  });
  it('refuses query parameters like every endpoint', async () => {
    await expectDocumented(t.app, '/budget/api/openapi.json?x=1', 400);
  });
});

describe('the document describes', () => {
  it('every data endpoint, with a summary, a description and a JSON example', () => {
    for (const endpoint of ENDPOINTS) {
      const operation = doc.paths[endpoint.path]?.get;
      expect(operation, endpoint.path).toBeDefined();
      expect(operation.summary).toBe(endpoint.summary);
      expect(operation.description).toContain(endpoint.description);
      expect(operation.responses[200].content[JSON_TYPE].example).toBeDefined();
    }
  });
  it('every query parameter each endpoint accepts, format included, with a description and an example', () => {
    for (const endpoint of ENDPOINTS) {
      // The query's: the request headers the operation reads are shared components, referred to.
      const parameters: Json[] = (doc.paths[endpoint.path].get.parameters as Json[]).filter((p) => p.in === 'query');
      expect(parameters.map((p) => p.name)).toEqual(Object.keys(endpoint.query.shape));
      expect(parameters.map((p) => p.name)).toContain('format');
      for (const p of parameters) {
        expect(p.in).toBe('query');
        expect(p.description, `${endpoint.path} ${p.name}`).toMatch(/\w/);
        expect(p.example, `${endpoint.path} ${p.name}`).toBeDefined();
      }
    }
  });
  it('parameter examples that the server accepts, and which their own schemas accept', async () => {
    for (const endpoint of ENDPOINTS) {
      for (const p of (doc.paths[endpoint.path].get.parameters as Json[]).filter((q) => q.in === 'query')) {
        const validate = ajv.compile(p.schema);
        expect(validate(p.example), `${endpoint.path} ${p.name}=${p.example}`).toBe(true);
        // A parameter that only means something beside another is tried with it.
        // fields' example names every field, change among them where change=previous_year gives it.
        const companions = p.name === 'fields' && 'change' in endpoint.query.shape ? `change=previous_year&${COMPANIONS.change}` : COMPANIONS[p.name];
        const url = `${endpoint.path}?${p.name}=${encodeURIComponent(p.example)}${companions ? `&${companions}` : ''}`;
        const res = await request(t.app).get(url);
        expect(res.status, url).toBe(200);
      }
    }
  });
  it('query parameters typed as what they mean, not as the strings they arrive as', () => {
    const schemaOf = (path: string, name: string) => (doc.paths[path].get.parameters as Json[]).find((p) => p.name === name)!.schema;
    expect(schemaOf('/budget/api/expenses/', 'hierarchy').anyOf[0]).toEqual({ type: 'boolean' });
    expect(schemaOf('/budget/api/expenses/', 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
    expect(schemaOf('/budget/api/expenses/', 'offset')).toMatchObject({ type: 'integer', minimum: 0 });
    expect(schemaOf('/budget/api/expenses/', 'organization')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(schemaOf('/budget/api/expenses/', 'category')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(schemaOf('/budget/api/totals/', 'year').oneOf[0]).toEqual({ type: 'integer', minimum: 1900, maximum: 2100 });
    expect(schemaOf('/budget/api/totals/', 'base_year')).toEqual({ type: 'integer', minimum: 1900, maximum: 2100 });
    expect(schemaOf('/budget/api/totals/', 'measure')).toMatchObject({ type: 'string', enum: ['nominal', 'pct_gdp', 'per_capita', 'real'] });
    expect(schemaOf('/budget/api/debt/', 'measure').enum).toContain('share');
    expect(schemaOf('/budget/api/totals/', 'change')).toMatchObject({ type: 'string', enum: ['previous_year'] });
    expect(schemaOf('/budget/api/budget-categories/', 'type').anyOf[0]).toMatchObject({
      type: 'string',
      enum: expect.arrayContaining(['expense', 'ressource']),
    });
    expect(schemaOf('/budget/api/organization/stats/', 'ordering').enum).toEqual([
      'organization_id',
      '-organization_id',
      'stage',
      '-stage',
      'derived',
      '-derived',
      'total_expenses',
      '-total_expenses',
      'total_resources',
      '-total_resources',
    ]);
    const years = ajv.compile(schemaOf('/budget/api/totals/', 'year'));
    expect([2016, '2016,2018', '2016..2020'].map((y) => years(y))).toEqual([true, true, true]);
    expect(['2016-2018', 'x'].map((y) => years(y))).toEqual([false, false]);
  });
  it('query parameters that accept exactly what the server accepts: any case, 1 and 0, no negative years, nothing empty', () => {
    const accepts = (path: string, name: string) => ajv.compile((doc.paths[path].get.parameters as Json[]).find((p) => p.name === name)!.schema);
    const hierarchy = accepts('/budget/api/expenses/', 'hierarchy');
    expect([true, false, 'TRUE', 'False', '1', '0'].map((v) => hierarchy(v))).toEqual([true, true, true, true, true, true]);
    expect(['yes', '2', ''].map((v) => hierarchy(v))).toEqual([false, false, false]);
    const stage = accepts('/budget/api/expenses/', 'stage');
    expect(['initial', 'Initial', 'OUTTURN'].map((v) => stage(v))).toEqual([true, true, true]);
    expect(['amendment', 'initial,outturn', ''].map((v) => stage(v))).toEqual([false, false, false]);
    const stages = accepts('/budget/api/totals/', 'stage');
    expect(['initial,outturn', 'Outturn,INITIAL', 'amended'].map((v) => stages(v))).toEqual([true, true, true]);
    expect(['initial,', 'draft'].map((v) => stages(v))).toEqual([false, false]);
    const type = accepts('/budget/api/budget-categories/', 'type');
    expect(['Expense', 'DÉPENSE', 'ressource'].map((v) => type(v))).toEqual([true, true, true]);
    const years = accepts('/budget/api/totals/', 'year');
    expect(['-5,2016', '2016..-1', '1899,2016', '2016,2101'].map((v) => years(v))).toEqual([false, false, false, false]);
    expect(['02016,2018', '2100..2100'].map((v) => years(v))).toEqual([true, true]);
    expect(accepts('/budget/api/organization/', 'search')('')).toBe(false);
  });
  it("fields schemas that accept exactly the endpoint's field names, comma-separated, as the server does", async () => {
    for (const endpoint of ENDPOINTS) {
      const parameter = (doc.paths[endpoint.path].get.parameters as Json[]).find((p) => p.name === 'fields')!;
      const accepts = ajv.compile(parameter.schema);
      // What the server takes alone: each field of a row of any variant (change and change_pct with change=previous_year).
      const names = [...new Set(endpoint.variants.flatMap((v) => Object.keys((v.item as unknown as { shape: object }).shape)))];
      for (const name of names) {
        const tree = endpoint.variants.find((v) => name in (v.item as unknown as { shape: object }).shape)!.when ? 'hierarchy=true&' : '';
        const change = name.startsWith('change') ? `change=previous_year&${COMPANIONS.change}&` : '';
        expect(accepts(name), `${endpoint.path} fields=${name}`).toBe(true);
        expect((await request(t.app).get(`${endpoint.path}?${tree}${change}fields=${name}`)).status, `${endpoint.path} fields=${name}`).toBe(200);
      }
      expect(accepts(`${names[1]},${names[0]},${names[1]}`), endpoint.path).toBe(true);
      for (const refused of [
        'foo',
        `${names[0]},foo`,
        `${names[0]},`,
        `${names[0]} ,${names[1]}`,
        names[0]!.toUpperCase(),
        `${names[0]};${names[1]}`,
      ]) {
        expect(accepts(refused), `${endpoint.path} fields=${refused}`).toBe(false);
        expect(
          (await request(t.app).get(`${endpoint.path}?fields=${encodeURIComponent(refused)}`)).status,
          `${endpoint.path} fields=${refused}`,
        ).toBe(400);
      }
    }
  });
  it("year schemas that say the order and the span of a range are the server's to check", async () => {
    const year = (doc.paths['/budget/api/totals/'].get.parameters as Json[]).find((p) => p.name === 'year')!;
    const accepts = ajv.compile(year.schema);
    // A pattern cannot compare two years: these pass it and are refused, as the description says.
    for (const refused of ['2020..2016', '1900..1999']) {
      expect(accepts(refused), refused).toBe(true);
      expect((await request(t.app).get(`/budget/api/totals/?year=${refused}`)).status, refused).toBe(400);
    }
    expect(JSON.stringify(year.schema)).toMatch(/earlier year first.*at most 50 years.*checked by the server/);
  });
  it('the rules that tie two parameters in the description of each parameter they tie, and a relative server', () => {
    const description = (path: string, name: string) => String((doc.paths[path].get.parameters as Json[]).find((p) => p.name === name)!.description);
    expect(description('/budget/api/expenses/', 'measure')).toMatch(/Only with hierarchy=true/);
    expect(description('/budget/api/expenses/', 'hierarchy')).toMatch(/measure and base_year are taken only with hierarchy=true/);
    expect(description('/budget/api/budget-categories/', 'change')).toMatch(/needs a single year/i);
    expect(description('/budget/api/organization/stats/', 'year')).toMatch(/With change: needs a single year/);
    for (const name of ['include_complementary', 'stage'])
      expect(description('/budget/api/totals/', name)).toMatch(/include_complementary=false means stage=initial/);
    expect(doc.servers).toEqual([{ url: '/', description: 'The server that serves this document' }]);
  });
  it('response examples that validate against their schemas', () => {
    for (const endpoint of ENDPOINTS) {
      const { example } = doc.paths[endpoint.path].get.responses[200].content[JSON_TYPE];
      const validate = schemaFor(endpoint.path, 200, JSON_TYPE);
      expect(validate(example), `${endpoint.path}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    const problem = ajv.compile({ $ref: 'openapi.json#/components/schemas/Problem' });
    expect(problem(doc.components.schemas.Problem.example)).toBe(true);
  });
  it("CSV, Arrow and Parquet for every data endpoint, with the columns of each variant, and the amounts' unit", () => {
    for (const endpoint of ENDPOINTS) {
      const { content, description } = doc.paths[endpoint.path].get.responses[200];
      expect(Object.keys(content)).toEqual([JSON_TYPE, 'text/csv', 'application/vnd.apache.arrow.stream', 'application/vnd.apache.parquet']);
      for (const { table } of endpoint.variants) {
        for (const column of table.columns) {
          expect(content['text/csv'].schema.description).toContain(column.name);
          expect(content['application/vnd.apache.parquet'].schema.description).toContain(column.name);
        }
      }
      const list = endpoint.variants[0].table;
      expect(content['text/csv'].example.split('\r\n')[0]).toBe(list.columns.map((c) => c.name).join(','));
      expect(description).toContain('MDT (millions of Tunisian dinars)');
    }
    expect(doc.info.description).toContain('percentages to 2');
  });
  it('problem+json answers for 400, 429, 500 and 503 on every data endpoint', () => {
    for (const endpoint of ENDPOINTS) {
      const { responses } = doc.paths[endpoint.path].get;
      for (const status of [400, 429, 500, 503]) expect(responses[status].$ref, `${endpoint.path} ${status}`).toMatch(/^#\/components\/responses\//);
    }
    for (const response of Object.values(doc.components.responses) as Json[]) {
      expect(response.content[PROBLEM].schema).toEqual({ $ref: '#/components/schemas/Problem' });
    }
  });
});

/** One or more requests per variant of every data endpoint (checked below), paged and not. */
const ANSWERS = [
  '/budget/api/totals/',
  '/budget/api/totals/?year=1999',
  '/budget/api/budget-categories/?type=resource',
  '/budget/api/expenses/',
  '/budget/api/expenses/?limit=2&offset=2',
  '/budget/api/expenses/?hierarchy=true',
  '/budget/api/expenses/?hierarchy=true&organization=2&limit=1&offset=1',
  '/budget/api/resources/?year=2023',
  '/budget/api/resources/?hierarchy=true',
  '/budget/api/organization/',
  '/budget/api/organization/?year=2024&limit=1',
  '/budget/api/organization/stats/',
  '/budget/api/debt/',
  '/budget/api/debt/?parent=2',
  '/budget/api/outstanding-debt/?year=last',
  '/budget/api/deficit/',
  '/budget/api/deficit/?stage=initial',
  '/budget/api/sources/',
  '/budget/api/totals/?measure=per_capita&change=previous_year',
  '/budget/api/budget-categories/?year=2024&measure=share&change=previous_year',
  '/budget/api/expenses/?hierarchy=true&measure=real&base_year=2023',
  '/budget/api/organization/stats/?year=2024&change=previous_year&ordering=-total_expenses',
  '/budget/api/debt/?measure=pct_gdp&change=previous_year',
  '/budget/api/outstanding-debt/?year=2022..2023&change=previous_year',
  '/budget/api/deficit/?year=2022,2024&measure=real&change=previous_year',
];

/** The same variants with fields=, which leaves the other fields of each row (and node) out. */
const SELECTED = [
  '/budget/api/totals/?fields=year,balance',
  '/budget/api/budget-categories/?fields=id,expenses',
  '/budget/api/expenses/?fields=id,organization',
  '/budget/api/expenses/?hierarchy=true&fields=id,amount',
  '/budget/api/resources/?fields=amount',
  '/budget/api/resources/?hierarchy=true&fields=name',
  '/budget/api/organization/?fields=code,budget',
  '/budget/api/organization/stats/?fields=organization_id',
  '/budget/api/debt/?fields=year,debt_origin',
  '/budget/api/outstanding-debt/?fields=value',
  '/budget/api/deficit/?fields=year,change&change=previous_year',
  '/budget/api/sources/?fields=title',
];

describe('real answers validate against the document', () => {
  it.each([
    ['every request', ANSWERS],
    ['fields=', SELECTED],
  ])('of every variant of every data endpoint, with %s', (_, urls) => {
    const covered = urls.map((url) => {
      const endpoint = ENDPOINTS.find((e) => e.path === url.split('?')[0])!;
      return `${endpoint.path} ${endpoint.bind(url).variant.name}`;
    });
    expect(new Set(covered)).toEqual(new Set(ENDPOINTS.flatMap((e) => e.variants.map((v) => `${e.path} ${v.name}`))));
  });
  it.each(ANSWERS)('200 from %s', async (url) => {
    await expectDocumented(t.app, url, 200);
  });
  it.each(SELECTED)('200 with only the fields asked for, from %s', async (url) => {
    const body = await expectDocumented(t.app, url, 200);
    const [row] = Array.isArray(body) ? body : body.results;
    expect(row, url).toBeDefined();
    const asked = new URL(url, 'http://x').searchParams.get('fields')!.split(',');
    expect(Object.keys(row).filter((key) => key !== 'children')).toEqual(asked);
  });

  it.each(ENDPOINTS.map((e) => e.path))('400 unknown_parameter and invalid_parameter from %s', async (path) => {
    expect((await expectDocumented(t.app, `${path}?nope=1`, 400)).code).toBe('unknown_parameter');
    expect((await expectDocumented(t.app, `${path}?format=xml`, 400)).code).toBe('invalid_parameter');
  });

  it('429 rate_limited', async () => {
    await request(limited.app).get('/budget/api/totals/');
    expect((await expectDocumented(limited.app, '/budget/api/debt/', 429)).code).toBe('rate_limited');
  });

  it('500 internal_error', async () => {
    expect((await expectDocumented(broken.app, '/budget/api/expenses/?year=2023', 500)).code).toBe('internal_error');
  });

  it('503 data_unavailable from data endpoints, /meta/ and /readyz before a drop is loaded', async () => {
    for (const path of ['/budget/api/organization/', '/budget/api/meta/', '/readyz']) {
      expect((await expectDocumented(empty, path, 503)).code).toBe('data_unavailable');
    }
  });

  it.each(['/budget/api/', '/budget/api/meta/', '/budget/api/openapi.json', '/healthz', '/readyz'])(
    '200 from the service endpoint %s',
    async (path) => {
      await expectDocumented(t.app, path, 200);
    },
  );

  it('with ids past 2^53, which the server serves with every digit', async () => {
    const BIG_ORGANIZATION = 9007199254740993n;
    const BIG_LINE = 9007199254740995n;
    const BIG_CATEGORY = 9007199254740997n;
    const BIG_SOURCE = 9007199254740999n;
    const big = await appFor({
      ...small,
      organizations: [...small.organizations!, { id: BIG_ORGANIZATION, name: 'Office lointain', code: 'FAR' }],
      categories: [...small.categories!, { id: BIG_CATEGORY, name: 'Catégorie lointaine', type: 'expense', parent_id: 20 }],
      sources: [{ id: BIG_SOURCE, title: 'Loi de finances', url: null, publisher: null, published: null, quote: null }],
      expenses: [
        {
          id: BIG_LINE,
          year: 2024,
          amount: 1.5,
          category_id: BIG_CATEGORY,
          organization_id: BIG_ORGANIZATION,
          complementary: false,
          source_id: BIG_SOURCE,
          derived: false,
        },
      ],
    });
    try {
      const lines = await expectDocumented(big.app, '/budget/api/expenses/', 200);
      expect(lines.results).toHaveLength(1);
      // JSON.parse rounds them; the text as sent has every digit.
      const text = (await request(big.app).get('/budget/api/expenses/')).text;
      expect(text).toContain(`"id":${BIG_LINE}`);
      expect(text).toContain(`"organization":{"id":${BIG_ORGANIZATION}`);
      for (const url of [
        '/budget/api/expenses/?hierarchy=true',
        '/budget/api/budget-categories/',
        '/budget/api/organization/',
        '/budget/api/organization/stats/',
        '/budget/api/totals/',
        '/budget/api/sources/',
      ]) {
        await expectDocumented(big.app, url, 200);
      }
      expect(doc.components.schemas.Expense.properties.id).toMatchObject({ type: 'integer', format: 'int64' });
    } finally {
      await big.close();
    }
  });

  it('and the document would catch an answer with a field it does not describe', () => {
    const validate = schemaFor('/budget/api/totals/', 200, JSON_TYPE);
    const row = { year: 2023, total_expenses: 1, total_resources: 1, balance: 0, stage: 'amended', source_ids: [], derived: false };
    expect(validate([row])).toBe(true);
    // fields= leaves fields out, and the row's description says so; it adds none.
    expect(validate([{ year: 2023, balance: 0 }])).toBe(true);
    expect(doc.components.schemas.Total.description).toMatch(/Every field is present unless the fields parameter leaves it out/);
    expect(validate([{ ...row, extra: 1 }])).toBe(false);
    expect(validate([{ ...row, year: '2023' }])).toBe(false);
    expect(validate([{ ...row, source_ids: null }])).toBe(false);
  });
});

describe('a figure that a measure can make null', () => {
  // Every endpoint that takes a measure (its trees, which alone take one on expenses and
  // resources), under each measure but nominal, over a drop with a year that has no GDP,
  // population or CPI (2021): whatever comes back null there is what a client must be told may be.
  const urls = () =>
    ENDPOINTS.filter((e) => 'measure' in e.query.shape).flatMap((e) => {
      const measures: string[] = (doc.paths[e.path].get.parameters as Json[]).find((p) => p.name === 'measure')!.schema.enum;
      const tree = 'hierarchy' in e.query.shape ? 'hierarchy=true&' : '';
      return measures.filter((m) => m !== 'nominal').map((m) => `${e.path}?${tree}measure=${m}`);
    });
  const endpointOf = (url: string) => url.split('?')[0]!.slice('/budget/api/'.length).replace(/\/$/, '');
  /** The fields that are null in a JSON answer, named as /fields/ names them; a tree's children are nodes. */
  const nullsOf = (rows: Json[], prefix = ''): string[] =>
    rows.flatMap((row) =>
      Object.entries(row).flatMap(([key, value]): string[] => {
        if (value === null) return [prefix + key];
        if (key === 'children') return nullsOf(value, prefix);
        if (key === 'change' || key === 'change_pct' || typeof value !== 'object') return [];
        return nullsOf(Array.isArray(value) ? value : [value], `${prefix}${key}.`);
      }),
    );

  it('is said nullable by /budget/api/fields/', async () => {
    const fields: Json[] = (await request(t.app).get('/budget/api/fields/').expect(200)).body;
    const seen = new Set<string>();
    for (const url of urls()) {
      const body = (await request(t.app).get(url).expect(200)).body;
      for (const field of nullsOf(Array.isArray(body) ? body : body.results)) {
        seen.add(endpointOf(url));
        const entry = fields.find((f) => f.endpoint === endpointOf(url) && f.field === field);
        expect(entry?.nullable, `${url}: ${field} is null`).toBe(true);
      }
    }
    // The drop has what it takes to make a figure of every measured endpoint null.
    expect(seen).toEqual(new Set(urls().map(endpointOf)));
  });

  it('is a nullable column of the Arrow stream and the Parquet file, as the document says of each', async () => {
    for (const url of urls()) {
      const { content } = doc.paths[url.split('?')[0]!].get.responses[200];
      // The column list of the variant answered: "With hierarchy=true: …" for a tree, else "Columns: …".
      const columnsOf = (description: string) =>
        description.split(url.includes('hierarchy') ? 'With hierarchy=true:' : 'Columns:')[1]!.split('.')[0]!;
      const arrow = await getArrow(t.app, `${url}&format=arrow`);
      const parquet = await getParquet(t.app, `${url}&format=parquet`);
      for (const field of arrow.table.schema.fields) {
        if (arrow.table.getChild(field.name)!.nullCount === 0) continue;
        expect(field.nullable, `${url}: Arrow ${field.name}`).toBe(true);
        expect(parquet.columns.find((c) => c.name === field.name)?.nullable, `${url}: Parquet ${field.name}`).toBe(true);
        for (const type of ['application/vnd.apache.arrow.stream', 'application/vnd.apache.parquet']) {
          expect(columnsOf(content[type].schema.description), `${url}: ${type}`).toMatch(new RegExp(`\\b${field.name} \\(\\w+, nullable\\)`));
        }
      }
    }
  });
});

describe('every status and header the server sends', () => {
  let kept: TestApp;
  beforeAll(async () => {
    // As the server runs: releases kept (permalinks, Accept-Datetime), the rate limit on, whole exports kept as files.
    kept = await appFor({ ...measured, sources: SOURCES }, { RATE_LIMIT: '1000' }, { manifest: (m) => void (m.units = MDT) }, { releases: true });
  });
  afterAll(() => kept.close());

  /** Headers of HTTP itself, or sent alike on every answer (CORS, security): not the API's to declare per response. */
  const GENERIC = new Set([
    'content-type',
    'content-length',
    'date',
    'connection',
    'keep-alive',
    'transfer-encoding',
    'content-security-policy',
    ...COMMON_HEADERS.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase()),
  ]);
  const resolved = (item: Json): Json =>
    item?.$ref
      ? item.$ref
          .slice(2)
          .split('/')
          .reduce((node: Json, key: string) => node[key], doc)
      : item;

  /** The answer's status is declared for its operation, with each header it carries; a JSON body validates too. */
  async function expectDeclared(res: request.Response, path: string) {
    const response = resolved(doc.paths[path].get.responses[res.status]);
    expect(response, `${path} declares ${res.status}`).toBeDefined();
    const declared = Object.keys(response.headers ?? {}).map((name) => name.toLowerCase());
    for (const name of Object.keys(res.headers).filter((n) => !GENERIC.has(n))) {
      expect(declared, `${path} ${res.status} declares ${name}`).toContain(name);
    }
    const mediaType = res.headers['content-type']?.split(';')[0];
    if (mediaType === JSON_TYPE || mediaType === PROBLEM) {
      const validate = schemaFor(path, res.status, mediaType);
      expect(validate(res.body), `${path} ${res.status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    return res;
  }
  const get = (url: string, headers: Record<string, string> = {}) => request(kept.app).get(url).set(headers);

  it('on data answers: a measure, a page, a permalink, a 304', async () => {
    const measuredAnswer = await expectDeclared(await get('/budget/api/totals/?measure=pct_gdp'), '/budget/api/totals/');
    expect(measuredAnswer.headers).toMatchObject({ 'budget-measure': expect.any(String), 'content-location': expect.any(String) });
    await expectDeclared(await get('/budget/api/totals/?measure=pct_gdp', { 'If-None-Match': measuredAnswer.headers.etag! }), '/budget/api/totals/');
    expect((await expectDeclared(await get('/budget/api/expenses/?limit=2'), '/budget/api/expenses/')).headers.link).toMatch(/rel="next"/);
    const permalink = await get(measuredAnswer.headers['content-location']!);
    expect(permalink.headers['memento-datetime']).toBeDefined();
    await expectDeclared(permalink, '/budget/api/releases/{version}/totals/');
  });

  it('on Memento answers (Accept-Datetime), and a 404 unknown_release before the first release', async () => {
    const now = await expectDeclared(await get('/budget/api/deficit/', { 'Accept-Datetime': new Date().toUTCString() }), '/budget/api/deficit/');
    expect(now.headers['memento-datetime']).toBeDefined();
    const before = await expectDeclared(
      await get('/budget/api/deficit/', { 'Accept-Datetime': 'Tue, 01 Jan 1980 00:00:00 GMT' }),
      '/budget/api/deficit/',
    );
    expect(before.body.code).toBe('unknown_release');
  });

  it('on a whole export asked again with a Range: 206, and 416 past its end', async () => {
    const url = '/budget/api/expenses/?format=csv';
    await expectDeclared(await get(url), '/budget/api/expenses/');
    const again = await expectDeclared(await get(url), '/budget/api/expenses/');
    expect(again.headers['accept-ranges']).toBe('bytes');
    const part = await expectDeclared(await get(url, { Range: 'bytes=0-5' }), '/budget/api/expenses/');
    expect(part.status).toBe(206);
    const past = await expectDeclared(await get(url, { Range: 'bytes=999999-' }), '/budget/api/expenses/');
    expect(past.status).toBe(416);
  });

  it('on a 503 overloaded, with Retry-After; and the 503 says query_timeout too', async () => {
    const { limits } = kept.store;
    const before = limits.maxConcurrent;
    limits.maxConcurrent = 0;
    try {
      // A page of lines is a query (debt and totals are answered from what the load computed).
      const refused = await expectDeclared(await get('/budget/api/expenses/?year=2023&limit=3'), '/budget/api/expenses/');
      expect(refused.body.code).toBe('overloaded');
      expect(refused.headers['retry-after']).toBe('1');
    } finally {
      limits.maxConcurrent = before;
    }
    expect(resolved(doc.paths['/budget/api/expenses/'].get.responses[503]).description).toMatch(/query_timeout/);
  });

  it('on the service endpoints, 200 and 304', async () => {
    const paths = Object.keys(doc.paths).filter((path) => !doc.paths[path].get.tags.includes('data') && !path.includes('{version}'));
    expect(paths).toContain('/budget/api/changelog');
    for (const path of paths) {
      const res = await expectDeclared(await get(path), path);
      expect(res.status, path).toBe(200);
      await expectDeclared(await get(path, { 'If-None-Match': res.headers.etag! }), path);
    }
  });

  it('and the request headers the server reads', () => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      if (!item.get.tags.includes('data') && !item.get.tags.includes('releases')) continue;
      const headers = (item.get.parameters as Json[])
        .map(resolved)
        .filter((p) => p.in === 'header')
        .map((p) => p.name);
      expect(headers, path).toEqual(expect.arrayContaining(['Range', 'If-None-Match']));
      // A permalink answers from its release whatever the instant asked.
      if (path.includes('{version}')) expect(headers, path).not.toContain('Accept-Datetime');
      else expect(headers, path).toContain('Accept-Datetime');
    }
  });
});
