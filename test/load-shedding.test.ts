/**
 * Load shedding and query time limits: a query that could not get a connection within
 * QUEUE_WAIT_MS is refused with 503 overloaded, and past MAX_CONCURRENT_QUERIES (a memory bound)
 * at once; a query past QUERY_TIMEOUT_MS is interrupted (503 query_timeout) and its connection
 * serves the next query. Over a drop with a million lines, so that a page deep in the
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
 * Lines of a category subtree over 50 years, half a million deep: DuckDB counts three quarters of
 * the million lines and sorts them, which takes it 100 ms or more. (An organization's tree was the
 * slow query here until it was read from sums made at load: it then answered within 1 ms, and the
 * 1 ms time limit did not always stop it.) Each `n` is another URL, so never an answer from the
 * response cache.
 */
const slowQuery = (n: number) => `/budget/api/expenses/?category=10&year=2000..2049&offset=500000&limit=${1 + n}`;
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

/** Starts a full CSV export of the million lines and pauses it: it holds the only pooled connection. */
function holdConnection(base: string): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/budget/api/expenses/?format=csv`, (res) => {
      expect(res.statusCode).toBe(200);
      res.once('data', () => {
        res.pause();
        resolve(req);
      });
    });
    req.on('error', () => undefined);
    req.once('response', (res) => res.on('error', () => undefined));
    req.once('error', reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 10_000) throw new Error(`still waiting for ${what}`);
    await sleep(5);
  }
}

describe('a burst of queries, more than the pool has connections', () => {
  // One server over the drop (loading a million lines takes seconds); each test sets the limits it needs.
  let t: Awaited<ReturnType<typeof serve>>;
  let base: string;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    t = await serve({});
    ({ base, stop } = await listen(t.app));
  });
  afterAll(async () => {
    await stop();
    t.store.close();
  });
  const limits = (set: Partial<QueryLimits>) => Object.assign(t.limits, { maxConcurrent: 1000, timeoutMs: 60_000, queueWaitMs: 60_000 }, set);
  it('is answered whole when the queue wait covers the time the server needs', async () => {
    limits({ timeoutMs: 60_000, queueWaitMs: 60_000 });
    try {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => request(t.app).get(slowQuery(100 + i))));
      expect(answers.map((res) => res.status)).toEqual(Array(10).fill(200));
      for (const res of answers) expect(res.body.count).toBeGreaterThan(0);
      expect(t.store.activeQueries).toBe(0);
    } finally {
      limits({});
    }
  });

  it('refuses with 503 overloaded and Retry-After the queries that could not start within QUEUE_WAIT_MS, and no sooner', async () => {
    limits({ timeoutMs: 60_000, queueWaitMs: 300 });
    try {
      const export_ = await holdConnection(base);
      const started = performance.now();
      const answers = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          request(t.app)
            .get(slowQuery(300 + i))
            .then((res) => ({ res, after: performance.now() - started })),
        ),
      );
      for (const { res, after } of answers) {
        expectProblem(res, 503, 'overloaded');
        expect(res.headers['retry-after']).toBe('1');
        expect(res.body.detail).toBe('no connection was free within 300 ms; retry in a second');
        expect(after).toBeGreaterThanOrEqual(290);
        expect(after).toBeLessThan(3_000);
      }
      export_.destroy();
      await until(() => t.store.activeQueries === 0, 'the export to give its connection back');
      // Nothing leaked: the refused queries, asked again, are answered.
      for (let i = 0; i < 5; i++) expect((await request(t.app).get(slowQuery(300 + i))).status).toBe(200);
    } finally {
      limits({});
    }
  });

  it('serves the newest first once the oldest has waited more than half of QUEUE_WAIT_MS', async () => {
    limits({ timeoutMs: 60_000, queueWaitMs: 4_000 });
    try {
      const export_ = await holdConnection(base);
      const order: string[] = [];
      const ask = (name: string, n: number) =>
        request(t.app)
          .get(slowQuery(n))
          .then((res) => {
            order.push(name);
            return res;
          });
      const oldest = ask('oldest', 400);
      await until(() => t.store.activeQueries === 2, 'the oldest to queue');
      await sleep(2_200); // past half the target: the queue is standing
      const newest = ask('newest', 401);
      await until(() => t.store.activeQueries === 3, 'the newest to queue');
      export_.destroy();
      const [a, b] = await Promise.all([oldest, newest]);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(order).toEqual(['newest', 'oldest']);
    } finally {
      limits({});
    }
  });

  it('takes out of the queue the query of a client that hung up', async () => {
    limits({ timeoutMs: 60_000, queueWaitMs: 60_000 });
    try {
      const export_ = await holdConnection(base);
      const waiting = http.get(`${base}${slowQuery(500)}`);
      waiting.on('error', () => undefined);
      await until(() => t.store.activeQueries === 2, 'the query to queue');
      waiting.destroy();
      await until(() => t.store.activeQueries === 1, 'the query to leave the queue');
      export_.destroy();
      await until(() => t.store.activeQueries === 0, 'the export to end');
    } finally {
      limits({});
    }
  });

  it('never makes a cached answer or a 304 wait behind the queries', async () => {
    limits({ timeoutMs: 60_000, queueWaitMs: 60_000 });
    try {
      const cached = '/budget/api/deficit/';
      expect((await request(t.app).get(cached)).status).toBe(200);
      const csv = await request(t.app).get('/budget/api/totals/?format=csv');
      expect(csv.status).toBe(200);

      const export_ = await holdConnection(base);
      const queued = request(t.app)
        .get(slowQuery(600))
        .then((res) => res);
      await until(() => t.store.activeQueries === 2, 'the query to queue');
      const [fromCache, notModified] = await Promise.all([
        request(t.app).get(cached),
        request(t.app).get('/budget/api/totals/?format=csv').set('If-None-Match', String(csv.headers.etag)),
      ]);
      expect(fromCache.status).toBe(200);
      expect(fromCache.body).toEqual(DEFICIT);
      expect(notModified.status).toBe(304);
      expect(t.store.activeQueries).toBe(2);
      export_.destroy();
      expect((await queued).status).toBe(200);
    } finally {
      limits({});
    }
  });

  it('past MAX_CONCURRENT_QUERIES, the memory bound, refuses at once with 503 overloaded and Retry-After', async () => {
    limits({ maxConcurrent: 2, timeoutMs: 60_000, queueWaitMs: 60_000 });
    try {
      const export_ = await holdConnection(base);
      const queued = request(t.app)
        .get(slowQuery(700))
        .then((res) => res);
      await until(() => t.store.activeQueries === 2, 'the query to queue');
      const started = performance.now();
      const refused = await request(t.app).get(slowQuery(701));
      expect(performance.now() - started).toBeLessThan(1_000);
      expectProblem(refused, 503, 'overloaded');
      expect(refused.headers['retry-after']).toBe('1');
      export_.destroy();
      expect((await queued).status).toBe(200);
    } finally {
      limits({});
    }
  });
});

describe('the configuration', () => {
  it('defaults to a 5 s limit, a 1 s wait in the queue and a memory bound of 1000 queries', () => {
    const config = parseConfig({});
    expect(config.QUERY_TIMEOUT_MS).toBe(5000);
    expect(config.QUEUE_WAIT_MS).toBe(1000);
    expect(config.MAX_CONCURRENT_QUERIES).toBe(1000);
    expect(new Store(3).limits).toEqual({ maxConcurrent: 1000, timeoutMs: 5000, queueWaitMs: 1000 });
  });
  it.each([
    ['QUERY_TIMEOUT_MS', '0', "must be an integer from 1 to 2147483647 (milliseconds; about 24.8 days at most, as Node's timers)"],
    ['QUERY_TIMEOUT_MS', '5s', "must be an integer from 1 to 2147483647 (milliseconds; about 24.8 days at most, as Node's timers)"],
    ['MAX_CONCURRENT_QUERIES', '-1', 'must be an integer >= 1 (queries running or waiting at once)'],
    [
      'QUEUE_WAIT_MS',
      '0',
      "must be an integer from 1 to 2147483647 (milliseconds a query may wait for a connection; about 24.8 days at most, as Node's timers)",
    ],
  ])('refuses %s=%s in one line', (name, value, message) => {
    expect(() => parseConfig({ [name]: value })).toThrow(`invalid configuration: ${name}="${value}" ${message}`);
  });
});
