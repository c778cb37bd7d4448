/** HTTP conventions every endpoint shares (docs/api.md#conventions). */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../src/api/endpoints/index.js';
import { small } from './fixtures/small.js';
import { appFor, type TestApp } from './helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await appFor(small, { CACHE_MAX_AGE: '120' });
});
afterAll(() => t.close());

/** Every data endpoint in the table, so that a new one gets these checks too. */
const DATA_PATHS = ENDPOINTS.map((e) => e.path);

function expectCommonHeaders(res: request.Response) {
  expect(res.headers['access-control-allow-origin']).toBe('*');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
}

describe('every data endpoint', () => {
  it.each(DATA_PATHS)('%s answers the same with and without the trailing slash, no redirect', async (path) => {
    const withSlash = await request(t.app).get(path);
    const without = await request(t.app).get(path.slice(0, -1));
    expect(withSlash.status).toBe(200);
    expect(without.status).toBe(200);
    expect(without.body).toEqual(withSlash.body);
  });
  it.each(DATA_PATHS)('%s sends CORS, nosniff, an ETag and Cache-Control', async (path) => {
    const res = await request(t.app).get(path);
    expectCommonHeaders(res);
    expect(res.headers.etag).toMatch(/^"[\w-]+"$/);
    expect(res.headers['cache-control']).toBe('public, max-age=120');
  });
  it.each(DATA_PATHS)('%s answers HEAD with the headers and no body', async (path) => {
    const res = await request(t.app).head(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.text).toBeUndefined();
  });
  it.each(DATA_PATHS)('%s refuses POST with 405 and Allow', async (path) => {
    const res = await request(t.app).post(path);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.body).toMatchObject({ status: 405, code: 'method_not_allowed', title: 'Method Not Allowed' });
    expectCommonHeaders(res);
  });
});

describe('OPTIONS (CORS preflight)', () => {
  it('answers 204 with the allowed methods and the requested headers', async () => {
    const res = await request(t.app)
      .options('/budget/api/totals/')
      .set('Origin', 'https://example.org')
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'if-none-match');
    expect(res.status).toBe(204);
    expectCommonHeaders(res);
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    expect(res.headers['access-control-allow-headers']).toBe('if-none-match');
  });
  it('answers 204 on an unknown path too, so that the browser can read the 404 of the request itself', async () => {
    const res = await request(t.app).options('/budget/api/nope/').set('Origin', 'https://example.org').set('Access-Control-Request-Method', 'GET');
    expect(res.status).toBe(204);
    expectCommonHeaders(res);
    expect((await request(t.app).get('/budget/api/nope/')).status).toBe(404);
  });
  it.each([
    '/budget/api/totals/?year=%ZZ',
    '/budget/api/totals/?q=%C3%28',
    '/budget/api/%ZZ/',
    '/budget/api/releases/%zz/totals/',
    '/budget/api/docs/%zz',
  ])('answers 204 to %s, whose percent-encoding is broken, so that the browser can read the 400 of the request itself', async (url) => {
    const res = await request(t.app).options(url).set('Origin', 'https://example.org').set('Access-Control-Request-Method', 'GET');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    expectCommonHeaders(res);
    expect((await request(t.app).get(url)).status).toBe(400);
  });
});

describe('headers a script of another origin reads', () => {
  it('are exposed: Allow on a 405, WWW-Authenticate on a 401', async () => {
    const refused = await request(t.app).post('/budget/api/totals/');
    expect(refused.status).toBe(405);
    expect(refused.headers['access-control-expose-headers']!.split(', ')).toEqual(expect.arrayContaining(['Allow', 'WWW-Authenticate']));
  });
});

describe('unknown paths', () => {
  it.each(['/nothing', '/budget/api/nope/', '/budget/api/totals/extra', '/budget/api/%C3%A9', '/BUDGET/API/TOTALS/', '/Budget/api/meta', '/HEALTHZ'])(
    '%s is a 404 problem (paths are case-sensitive)',
    async (path) => {
      const res = await request(t.app).get(path);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(res.body).toMatchObject({ type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found' });
      expectCommonHeaders(res);
    },
  );
});

describe('ETag and If-None-Match', () => {
  it('answers 304 with no body, and the caching and CORS headers, when the tag matches', async () => {
    const first = await request(t.app).get('/budget/api/totals/?year=2023');
    const again = await request(t.app).get('/budget/api/totals/?year=2023').set('If-None-Match', first.headers.etag!);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['cache-control']).toBe('public, max-age=120');
    expectCommonHeaders(again);
  });
  it('matches weak tags and lists of tags', async () => {
    const { etag } = (await request(t.app).get('/budget/api/debt/')).headers;
    expect((await request(t.app).get('/budget/api/debt/').set('If-None-Match', `"other", W/${etag}`)).status).toBe(304);
  });
  it('differs between queries, and a stale tag gets the full answer', async () => {
    const a = await request(t.app).get('/budget/api/totals/?year=2023');
    const b = await request(t.app).get('/budget/api/totals/?year=2024');
    expect(a.headers.etag).not.toBe(b.headers.etag);
    const res = await request(t.app).get('/budget/api/totals/?year=2024').set('If-None-Match', a.headers.etag!);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
  });
  it('changes when the drop changes, not when only its version label changes', async () => {
    const other = await appFor({ ...small, deficit: [{ year: 2022, value: 1 }] });
    const relabelled = await appFor(small, {}, { version: 'another label' });
    try {
      const url = '/budget/api/deficit/';
      const mine = (await request(t.app).get(url)).headers.etag;
      expect((await request(other.app).get(url)).headers.etag).not.toBe(mine);
      expect((await request(relabelled.app).get(url)).headers.etag).toBe(mine);
    } finally {
      other.close();
      relabelled.close();
    }
  });
});

describe('service endpoints', () => {
  it('GET /budget/api/ lists the endpoints with links', async () => {
    const res = await request(t.app).get('/budget/api/');
    expect(res.status).toBe(200);
    const paths = res.body.endpoints.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining([...DATA_PATHS, '/budget/api/meta/']));
    expect((await request(t.app).get('/budget/api')).status).toBe(200);
  });
  it('GET /budget/api/ names the format each service endpoint really answers in', async () => {
    const mediaTypes: Record<string, string> = { json: 'application/json', markdown: 'text/markdown', atom: 'application/atom+xml' };
    const index = (await request(t.app).get('/budget/api/').expect(200)).body as { endpoints: { path: string; formats: string[] }[] };
    const services = index.endpoints.filter((e) => !DATA_PATHS.includes(e.path));
    expect(services.length).toBeGreaterThan(0);
    for (const { path, formats } of services) {
      const res = await request(t.app).get(path).expect(200);
      expect(
        formats.map((f) => mediaTypes[f]),
        path,
      ).toEqual([res.headers['content-type']!.split(';')[0]]);
    }
  });
  it('GET /budget/api/meta/ describes the drop being served', async () => {
    const res = await request(t.app).get('/budget/api/meta/');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      version: 'test',
      description: 'a drop built by a test',
      years: [2022, 2023, 2024],
      files: { 'expenses.parquet': { rows: 6 }, 'organizations.parquet': { rows: 3 } },
    });
    expect(Date.parse(res.body.loaded_at)).not.toBeNaN();
  });
  it('GET /healthz and /readyz answer 200 once data is loaded', async () => {
    const live = await request(t.app).get('/healthz');
    expect(live.body).toEqual({ status: 'ok' });
    expect(live.headers.etag).toBeDefined();
    const ready = await request(t.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', version: 'test' });
  });
  it('service endpoints refuse unknown parameters too', async () => {
    const res = await request(t.app).get('/budget/api/meta/?x=1');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('unknown_parameter');
  });
});

describe('a failure inside the server', () => {
  it('is a 500 internal_error problem that shows no SQL, path or stack', async () => {
    const broken = await appFor(small);
    broken.store.served!.instance.closeSync();
    const res = await request(broken.app).get('/budget/api/expenses/?year=2023');
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.body).toEqual({
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      code: 'internal_error',
      detail: 'the server failed to answer this request; it has been logged',
    });
    expect(res.text).not.toMatch(/SELECT|duckdb|\.sql|at /i);
  });
});
