/**
 * Random query strings against every endpoint the index lists (fast-check): never a 5xx, every
 * 4xx a problem document, and a 200 is the same answer as the same parameters in sorted order.
 * FUZZ_RUNS sets the number of runs (200 by default, so the suite stays quick).
 */
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../src/api/endpoints/index.js';
import { small } from './fixtures/small.js';
import { appFor, type TestApp } from './helpers/app.js';

const RUNS = Number(process.env.FUZZ_RUNS) || 200;

let t: TestApp;
/** Every path the index names, with the parameters it says the path takes. */
let paths: { path: string; parameters: string[] }[];
beforeAll(async () => {
  t = await appFor(small);
  const index = (await request(t.app).get('/budget/api/')).body;
  paths = [
    ...index.endpoints.map((e: { path: string; parameters: string[] }) => ({ path: e.path, parameters: e.parameters })),
    { path: `${index.documentation.openapi}`, parameters: [] },
    { path: index.health.live, parameters: [] },
    { path: index.health.ready, parameters: [] },
  ];
});
afterAll(() => t.close());

describe('the endpoint list the fuzzing draws from', () => {
  it('holds every data endpoint, with its parameters', () => {
    for (const endpoint of ENDPOINTS) {
      expect(paths).toContainEqual({ path: endpoint.path, parameters: Object.keys(endpoint.query.shape) });
    }
  });
});

/** Values that sit on the edges of what the parameters accept, and some that are plainly wrong. */
const VALUES = [
  ...['2022', '2023', '2024', '1900', '2100', '1899', '2101', '0', '-1', '02023', '2023.0', '1e3', 'last', 'null', 'NULL'],
  ...['1', '2', '3', '4', '11', '20', '30', '999', '9223372036854775807', '9223372036854775808', '18446744073709551616'],
  ...['true', 'false', 'TRUE', 'False', '1', '0', 'yes', 'expense', 'resource', 'dépense', 'ressource', 'DEPENSE'],
  ...['json', 'csv', 'arrow', 'parquet', 'xml', 'JSON', '1000', '1001', '100', '5', ' 5', '5 ', '+5', '0x10'],
  ...['', ' ', '%', '%25', '&', '=', '[]', 'a[b]=c', '\u0000', '\u00e9', '\ud83d\ude00', "'; DROP TABLE t; --", '../../etc/passwd'],
];

const parameterName = (known: string[]) =>
  fc.oneof(
    { weight: 8, arbitrary: known.length ? fc.constantFrom(...known) : fc.constant('year') },
    { weight: 1, arbitrary: fc.constantFrom('years', 'Year', 'limit[]', 'format', 'offset', 'x', '') },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  );
const parameterValue = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...VALUES) }, { weight: 2, arbitrary: fc.string({ maxLength: 12 }) });

/** The answer's status, headers and exact bytes, whatever its type (JSON, CSV, Arrow). */
async function get(url: string) {
  const res = await request(t.app)
    .get(url)
    .buffer(true)
    .parse((stream, done) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => done(null, Buffer.concat(chunks)));
    });
  const bytes = res.body as Buffer;
  const type = String(res.headers['content-type']);
  return { status: res.status, type, bytes, json: /json/.test(type) ? JSON.parse(bytes.toString('utf8')) : undefined };
}

const queryString = (pairs: [string, string][]) => pairs.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');

/** Paging links repeat the parameters in the order given; written canonically, they compare equal. */
function canonicalLinks(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || !('next' in body)) return body;
  const canonical = (link: unknown) => {
    if (typeof link !== 'string') return link;
    const url = new URL(link, 'http://local');
    url.searchParams.sort();
    return `${url.pathname}?${url.searchParams}`;
  };
  const page = body as { next: unknown; previous: unknown };
  return { ...page, next: canonical(page.next), previous: canonical(page.previous) };
}

describe('any query string on any endpoint', () => {
  it(`is answered with a 200 equal to its canonical form, or a 4xx problem, never a 5xx (${RUNS} runs)`, async () => {
    const statuses: Record<number, number> = {};
    await fc.assert(
      fc.asyncProperty(
        fc.nat().chain((n) => {
          const { path, parameters } = paths[n % paths.length]!;
          return fc.record({
            path: fc.constant(path),
            slash: fc.boolean(),
            pairs: fc.array(fc.tuple(parameterName(parameters), parameterValue), { maxLength: 5 }),
            // Now and then, bytes no encoder would write.
            raw: fc.oneof(
              { weight: 9, arbitrary: fc.constant('') },
              { weight: 1, arbitrary: fc.constantFrom('&%', '&a=%ZZ', '&%E0%A4%A=1', '&&', '&=', '&year=%C3%28', '#x') },
            ),
          });
        }),
        async ({ path, slash, pairs, raw }) => {
          const url = `${slash ? path : path.replace(/\/$/, '')}?${queryString(pairs)}${raw}`;
          const res = await get(url);
          expect(res.status, url).toBeLessThan(500);
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (res.status >= 400) {
            expect(res.type, url).toBe('application/problem+json');
            expect(res.json, url).toMatchObject({ type: 'about:blank', status: res.status, code: expect.any(String), detail: expect.any(String) });
            return;
          }
          expect(res.status, url).toBe(200);
          if (raw) return;
          const sorted = [...pairs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
          const canonical = await get(`${path}?${queryString(sorted)}`);
          expect(canonical.status, url).toBe(200);
          expect(canonical.type, url).toBe(res.type);
          if (res.json !== undefined) expect(canonicalLinks(canonical.json), url).toEqual(canonicalLinks(res.json));
          else expect(canonical.bytes.equals(res.bytes), url).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
    // Enough valid queries got through for the comparison to mean something.
    expect(statuses[200]).toBeGreaterThan(RUNS / 20);
  }, 120_000);
});
