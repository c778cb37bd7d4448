/**
 * Load shedding and query time limits: past MAX_CONCURRENT_QUERIES a request is refused at once
 * with 503 overloaded; a query past QUERY_TIMEOUT_MS is interrupted (503 query_timeout) and its
 * connection serves the next query. Over a drop with a million lines, so that a page deep in the
 * lines takes DuckDB a while.
 */
import http from 'node:http';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { loadDrop } from '../src/data/drop.js';
import { Store, type QueryLimits } from '../src/data/store.js';
import { small } from './fixtures/small.js';
import { writeDrop } from './helpers/drop.js';
import { listen } from './helpers/app.js';

const LINES = 1_000_000;
let dir: string;
beforeAll(async () => {
  dir = await writeDrop({
    ...small,
    expenses: {
      sql: `SELECT i AS id, 2000 + i % 50 AS year, (i % 997)::DECIMAL(18,3) AS amount, [11, 12, 13, 20][i % 4 + 1] AS category_id,
                   1 + i % 3 AS organization_id, false AS complementary FROM range(1, ${LINES + 1}) AS r(i)`,
    },
  });
}, 120_000);

/** The app over that drop, one pooled connection, and limits the test may change between requests. */
async function serve(limits: Partial<QueryLimits>) {
  const store = new Store(1, limits);
  store.swap(await loadDrop(dir));
  const app = createApp({ config: parseConfig({ RATE_LIMIT: '0', DATA_DIR: dir }), store });
  return { app, store, limits: limits as QueryLimits };
}

/**
 * An organization's category tree: DuckDB rolls up all its lines (a third of the million), which
 * takes it 100 ms or more. Each `n` is another URL, so never an answer from the response cache.
 */
const slowQuery = (n: number) => `/budget/api/expenses/?hierarchy=true&organization=${1 + (n % 3)}&limit=${1 + n}`;
const DEFICIT = [
  { year: 2022, value: -43.45, percent: -4.35, published_percent: null, gdp: 1000, stage: null, source_id: null, derived: false },
  { year: 2024, value: 1, percent: 12.5, published_percent: null, gdp: 8, stage: null, source_id: null, derived: false },
];

function expectProblem(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/problem+json');
  expect(res.headers['access-control-allow-origin']).toBe('*');
  expect(res.body).toMatchObject({ type: 'about:blank', status, code });
}

describe('a query running past QUERY_TIMEOUT_MS', () => {
  let t: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    t = await serve({ timeoutMs: 1 });
  });
  afterAll(() => t.store.close());

  it('is interrupted and answers 503 query_timeout, showing no SQL', async () => {
    const res = await request(t.app).get(slowQuery(0));
    expectProblem(res, 503, 'query_timeout');
    expect(res.body.detail).toBe('the query took longer than 1 ms and was stopped; narrow it (a year, a page) or retry later');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(t.store.activeQueries).toBe(0);
  });

  it('leaves its connection healthy: the next query on it (the only one in the pool) answers', async () => {
    expectProblem(await request(t.app).get(slowQuery(1)), 503, 'query_timeout');
    t.limits.timeoutMs = 60_000;
    const deficit = await request(t.app).get('/budget/api/deficit/');
    expect(deficit.status).toBe(200);
    expect(deficit.body).toEqual(DEFICIT);
    // The statement that was interrupted, prepared on that connection, runs to the end too.
    const res = await request(t.app).get(slowQuery(1));
    expect(res.status).toBe(200);
    expect(res.body.count).toBeGreaterThan(0);
    t.limits.timeoutMs = 1;
  });

  it('is never the cause of a 503 for an answer already cached', async () => {
    t.limits.timeoutMs = 60_000;
    expect((await request(t.app).get(slowQuery(2))).status).toBe(200);
    t.limits.timeoutMs = 1;
    expect((await request(t.app).get(slowQuery(2))).status).toBe(200);
  });
});

describe('a streamed export', () => {
  it('that has started is not cut by the time limit, however long its client takes to read it', async () => {
    const t = await serve({ timeoutMs: 200 });
    const { base, stop } = await listen(t.app);
    try {
      // A year of 20,000 lines, read by a client that pauses for longer than the limit first.
      const text = await new Promise<string>((resolve, reject) => {
        http
          .get(`${base}/budget/api/expenses/?format=csv&year=2001`, (res) => {
            expect(res.statusCode).toBe(200);
            res.pause();
            let body = '';
            setTimeout(() => {
              res.setEncoding('utf8');
              res.on('data', (chunk) => (body += chunk));
              res.on('end', () => resolve(body));
              res.on('error', reject);
              res.resume();
            }, 600);
          })
          .on('error', reject);
      });
      const lines = text.trimEnd().split('\r\n');
      expect(lines).toHaveLength(LINES / 50 + 1);
      expect(lines.at(-1)).toMatch(/^999951,/);
    } finally {
      await stop();
      t.store.close();
    }
  });
});

describe('more queries than MAX_CONCURRENT_QUERIES at once', () => {
  let t: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    t = await serve({ maxConcurrent: 2, timeoutMs: 60_000 });
  });
  afterAll(() => t.store.close());

  it('refuses those past the cap at once with 503 overloaded and Retry-After, and answers every other one', async () => {
    const finished: string[] = [];
    const burst = Array.from({ length: 10 }, (_, i) =>
      request(t.app)
        .get(slowQuery(100 + i))
        .then((res) => {
          finished.push(String(res.status));
          return res;
        }),
    );
    const answers = await Promise.all(burst);
    const refused = answers.filter((res) => res.status === 503);
    const answered = answers.filter((res) => res.status === 200);
    expect(refused.length + answered.length).toBe(10);
    expect(answered.length).toBeGreaterThanOrEqual(2);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const res of refused) {
      expectProblem(res, 503, 'overloaded');
      expect(res.headers['retry-after']).toBe('1');
    }
    for (const res of answered) expect(res.body.count).toBeGreaterThan(0);
    // Refused at once, not after waiting in a queue: every refusal came back before the first answer.
    expect(finished.indexOf('200')).toBe(refused.length);
    expect(t.store.activeQueries).toBe(0);

    // Nothing leaked: the refused requests, asked again two at a time, are all answered.
    for (let i = 0; i < answers.length; i += 2) {
      const again = await Promise.all([request(t.app).get(slowQuery(100 + i)), request(t.app).get(slowQuery(101 + i))]);
      expect(again.map((res) => res.status)).toEqual([200, 200]);
    }
  });

  it('still serves cached answers and 304s while the cap is reached', async () => {
    const cached = '/budget/api/deficit/';
    expect((await request(t.app).get(cached)).status).toBe(200);
    const csv = await request(t.app).get('/budget/api/totals/?format=csv');
    expect(csv.status).toBe(200);

    const busy = [request(t.app).get(slowQuery(200)), request(t.app).get(slowQuery(201))].map((r) => r.then((res) => res));
    while (t.store.activeQueries < 2) await new Promise((resolve) => setTimeout(resolve, 1));
    const [overflow, fromCache, notModified] = await Promise.all([
      request(t.app).get(slowQuery(202)),
      request(t.app).get(cached),
      request(t.app).get('/budget/api/totals/?format=csv').set('If-None-Match', csv.headers.etag),
    ]);
    expect(t.store.activeQueries).toBe(2);
    expectProblem(overflow, 503, 'overloaded');
    expect(fromCache.status).toBe(200);
    expect(fromCache.body).toEqual(DEFICIT);
    expect(notModified.status).toBe(304);
    expect((await Promise.all(busy)).map((res) => res.status)).toEqual([200, 200]);
  });
});

describe('the configuration', () => {
  it('defaults to a 5 s limit and twice the pool size', () => {
    const config = parseConfig({});
    expect(config.QUERY_TIMEOUT_MS).toBe(5000);
    expect(config.MAX_CONCURRENT_QUERIES).toBeUndefined();
    const store = new Store(3, { maxConcurrent: config.MAX_CONCURRENT_QUERIES, timeoutMs: config.QUERY_TIMEOUT_MS });
    expect(store.limits).toEqual({ maxConcurrent: 6, timeoutMs: 5000 });
  });
  it.each([
    ['QUERY_TIMEOUT_MS', '0', 'must be an integer >= 1 (milliseconds)'],
    ['QUERY_TIMEOUT_MS', '5s', 'must be an integer >= 1 (milliseconds)'],
    ['MAX_CONCURRENT_QUERIES', '-1', 'must be an integer >= 1 (queries running or waiting at once)'],
  ])('refuses %s=%s in one line', (name, value, message) => {
    expect(() => parseConfig({ [name]: value })).toThrow(`invalid configuration: ${name}="${value}" ${message}`);
  });
});
