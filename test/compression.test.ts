/**
 * gzip and brotli over real HTTP: raw node:http requests, so that the bytes on the wire are seen
 * as they are (supertest would decompress them), then decompressed here and compared with the
 * answer worked out by hand.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { appFor, listen, type TestApp } from './helpers/app.js';
import { rawRequest, type Raw } from './helpers/raw.js';

/** The small drop with 37 more organizations that have no lines, so that a page of them is over 1 KB. */
const EXTRA = Array.from({ length: 37 }, (_, i) => ({ id: i + 4, name: `Organisation ${i + 4}`, code: `O${i + 4}` }));
const data = { ...small, organizations: [...(small.organizations as Record<string, unknown>[]), ...EXTRA] };

const PAGE = '/budget/api/organization/?offset=3&limit=37';
const PAGE_BODY = JSON.stringify({
  count: 40,
  next: null,
  previous: '/budget/api/organization/?limit=37&offset=0',
  results: EXTRA.map((o) => ({ ...o, budget: [] })),
});
const CSV = '/budget/api/resources/?format=csv';
const CSV_BODY =
  'id,year,amount,source,stage,source_id,derived\r\n1,2023,1000,Impôts directs,initial,,false\r\n2,2023,500.5,Impôts indirects,initial,,false\r\n' +
  '3,2023,99.999,Emprunts,amendment,,false\r\n4,2024,800,Impôts directs,initial,,false\r\n';

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  t = await appFor(data);
  server = await listen(t.app);
});
afterAll(async () => {
  await server.stop();
  t.close();
});

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => rawRequest(`${server.base}${path}`, headers, method);

const decoded = ({ headers, body }: Raw) => {
  const encoding = headers['content-encoding'];
  const bytes = encoding === 'br' ? brotliDecompressSync(body) : encoding === 'gzip' ? gunzipSync(body) : body;
  return bytes.toString('utf8');
};

describe('compressed answers', () => {
  it('checks that the page used is over 1 KB', () => {
    expect(Buffer.byteLength(PAGE_BODY)).toBeGreaterThan(1024);
  });

  describe('a JSON answer over 1 KB', () => {
    it.each([
      ['gzip', 'gzip'],
      ['br', 'br'],
      ['gzip, deflate, br', 'br'],
      ['br;q=0.8, gzip;q=0.8', 'br'],
      ['br;q=0.5, gzip', 'gzip'],
      ['gzip;q=0.9, br', 'br'],
      ['*', 'br'],
      ['br;q=0, *', 'gzip'],
    ])('is sent with Accept-Encoding: %s as %s, with its Content-Length', async (accept, encoding) => {
      const res = await get(PAGE, { 'Accept-Encoding': accept });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers.vary).toBe('Accept, Accept-Encoding');
      expect(Number(res.headers['content-length'])).toBe(res.body.length);
      expect(res.body.length).toBeLessThan(Buffer.byteLength(PAGE_BODY) / 3);
      expect(decoded(res)).toBe(PAGE_BODY);
    });

    it.each([
      ['no Accept-Encoding', {}],
      ['Accept-Encoding: identity', { 'Accept-Encoding': 'identity' }],
      ['Accept-Encoding: deflate', { 'Accept-Encoding': 'deflate' }],
      ['gzip and br refused', { 'Accept-Encoding': 'gzip;q=0, br;q=0' }],
    ])('is sent as it is with %s', async (_name, headers) => {
      const res = await get(PAGE, headers);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers.vary).toBe('Accept, Accept-Encoding');
      expect(res.headers['content-length']).toBe(String(Buffer.byteLength(PAGE_BODY)));
      expect(res.body.toString('utf8')).toBe(PAGE_BODY);
    });

    it('has one tag per encoding: the identity tag with -gzip or -br inside the quotes', async () => {
      const identity = (await get(PAGE)).headers.etag!;
      expect(identity).toMatch(/^"[\w-]+"$/);
      expect((await get(PAGE, { 'Accept-Encoding': 'gzip' })).headers.etag).toBe(`${identity.slice(0, -1)}-gzip"`);
      expect((await get(PAGE, { 'Accept-Encoding': 'br' })).headers.etag).toBe(`${identity.slice(0, -1)}-br"`);
    });

    it('answers 304 to If-None-Match holding the tag of the encoding asked for, from the cache and before it', async () => {
      // The first request for the other URL runs before anything is cached; this one is cached now.
      for (const url of [PAGE, '/budget/api/organization/?limit=37&offset=3']) {
        const first = await get(url, { 'Accept-Encoding': 'br' });
        const again = await get(url, { 'Accept-Encoding': 'br', 'If-None-Match': first.headers.etag! });
        expect(again.status).toBe(304);
        expect(again.headers.etag).toBe(first.headers.etag);
        expect(again.headers.vary).toBe('Accept, Accept-Encoding');
        expect(again.headers['cache-control']).toBe('public, max-age=300');
        expect(again.body.length).toBe(0);
      }
    });

    it('answers 304 to a client holding the uncompressed answer, which has the same content', async () => {
      const identity = (await get(PAGE)).headers.etag!;
      const res = await get(PAGE, { 'Accept-Encoding': 'gzip', 'If-None-Match': identity });
      expect(res.status).toBe(304);
      expect(res.headers.etag).toBe(identity);
    });

    it('answers 200 in gzip to a client holding the brotli answer that now asks for gzip only', async () => {
      const br = (await get(PAGE, { 'Accept-Encoding': 'br' })).headers.etag!;
      const res = await get(PAGE, { 'Accept-Encoding': 'gzip', 'If-None-Match': br });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(decoded(res)).toBe(PAGE_BODY);
    });

    it('gives HEAD the same headers as GET, and no body', async () => {
      const asked = { 'Accept-Encoding': 'gzip', 'X-Request-Id': 'head-and-get' };
      const got = await get(PAGE, asked);
      const head = await get(PAGE, asked, 'HEAD');
      const { date: _d1, ...getHeaders } = got.headers;
      const { date: _d2, ...headHeaders } = head.headers;
      expect(headHeaders).toEqual(getHeaders);
      expect(head.body.length).toBe(0);
    });
  });

  it('sends an answer under 1 KB as it is, still saying it varies by Accept-Encoding', async () => {
    const res = await get('/budget/api/totals/?year=2023', { 'Accept-Encoding': 'gzip, br' });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toBe('Accept, Accept-Encoding');
    expect(res.body.toString('utf8')).toBe(
      '[{"year":2023,"total_expenses":350.35,"total_resources":1600.499,"balance":1250.149,"stage":"amended","source_ids":[],"derived":false}]',
    );
  });

  it('compresses the OpenAPI document, which is not a data answer, varying by Accept-Encoding only', async () => {
    const plain = await get('/budget/api/openapi.json');
    const res = await get('/budget/api/openapi.json', { 'Accept-Encoding': 'br' });
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers.vary).toBe('Accept-Encoding');
    expect(decoded(res)).toBe(plain.body.toString('utf8'));
    expect(JSON.parse(decoded(res)).openapi).toBe('3.1.0');
  });

  it('sends errors as they are', async () => {
    const res = await get('/budget/api/totals/?year=abc', { 'Accept-Encoding': 'gzip' });
    expect(res.status).toBe(400);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(res.body.toString('utf8')).code).toBe('invalid_parameter');
  });
});

describe('compressed downloads', () => {
  it.each([['gzip'], ['br']])('streams a CSV export compressed with %s when asked, whatever its size', async (encoding) => {
    const res = await get(CSV, { 'Accept-Encoding': encoding });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(encoding);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="resources.csv"');
    expect(res.headers.vary).toBe('Accept, Accept-Encoding');
    expect(res.headers.etag).toMatch(new RegExp(`^"[\\w-]+-${encoding}"$`));
    expect(decoded(res)).toBe(CSV_BODY);
  });

  it('sends a CSV export as it is without Accept-Encoding, under the identity tag', async () => {
    const res = await get(CSV);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.toString('utf8')).toBe(CSV_BODY);
    const compressed = await get(CSV, { 'Accept-Encoding': 'gzip' });
    expect(compressed.headers.etag).toBe(`${res.headers.etag!.slice(0, -1)}-gzip"`);
  });

  it('answers 304 to a compressed CSV export whose tag the client holds, and HEAD with the same headers', async () => {
    const first = await get(CSV, { 'Accept-Encoding': 'gzip' });
    const again = await get(CSV, { 'Accept-Encoding': 'gzip', 'If-None-Match': first.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(first.headers.etag);
    const head = await get(CSV, { 'Accept-Encoding': 'gzip' }, 'HEAD');
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(head.headers.etag).toBe(first.headers.etag);
    expect(head.body.length).toBe(0);
  });

  it.each([['arrow'], ['parquet']])('never compresses %s, which is binary', async (format) => {
    const plain = await get(`/budget/api/resources/?format=${format}`);
    const res = await get(`/budget/api/resources/?format=${format}`, { 'Accept-Encoding': 'gzip, br' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.etag).toBe(plain.headers.etag);
    expect(res.body.subarray(0, 4)).toEqual(plain.body.subarray(0, 4));
  });
});
