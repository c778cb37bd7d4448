/**
 * What a full export may cost (security review, findings 1 and 2): a client that stops reading is
 * cut and its pooled connection given back; an export has a total time; the server makes a few at
 * once, so that they never take every connection, and the others wait for their turn rather than
 * being refused; an operator may give each client a budget of them, at once and per minute, in
 * the RateLimit headers; /readyz reports a pool held so long it cannot serve.
 * Over a real listening server, because all of it depends on a real socket's backpressure.
 */
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { writeDrop } from './helpers/drop.js';
import { SCRATCH_DIR } from '../src/data/lockdown.js';
import { ExportFiles, type WriteExport } from '../src/http/export-files.js';
import { appServing, listen, type TestApp } from './helpers/app.js';

const LINES = 300_000;
let dir: string;
beforeAll(async () => {
  dir = await writeDrop({
    ...small,
    expenses: {
      sql: `SELECT i AS id, 2000 + i % 20 AS year, (i % 997 + 0.125)::DECIMAL(18,3) AS amount,
                   [11, 12, 13, 20][i % 4 + 1] AS category_id, 1 + i % 3 AS organization_id, false AS complementary
            FROM range(1, ${LINES + 1}) AS r(i)`,
    },
  });
}, 120_000);

let running: { t: TestApp; stop: () => Promise<void> } | undefined;
afterEach(async () => {
  await running?.stop();
  await running?.t.close();
  running = undefined;
});

async function serve(env: Record<string, string>) {
  const t = await appServing(dir, env);
  const { base, stop } = await listen(t.app);
  running = { t, stop };
  return { t, base };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > ms) throw new Error(`still waiting for ${what}`);
    await sleep(10);
  }
}

interface Opened {
  res: http.IncomingMessage;
  /**
   * Reads what is left and resolves with whether the response was complete. (A cut response only
   * shows as one once the bytes already on their way are read: TCP delivers the end after them.)
   */
  drain(): Promise<{ complete: boolean }>;
  destroy(): void;
}

/**
 * Starts a full Arrow export and pauses it once its first bytes are in: a client that stopped
 * reading. Arrow is made in JS from DuckDB's results as the client reads, so its export holds a
 * pooled connection meanwhile; a CSV export is written by DuckDB whatever the client's pace (the
 * last tests).
 */
function openPaused(base: string, path = '/budget/api/expenses/?format=arrow'): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, (res) => {
      expect(res.statusCode).toBe(200);
      const ended = new Promise<{ complete: boolean }>((done) => res.once('close', () => done({ complete: res.complete })));
      res.on('error', () => undefined);
      res.once('data', () => {
        res.pause();
        const drain = () => {
          res.on('data', () => undefined);
          res.resume();
          return ended;
        };
        resolve({ res, drain, destroy: () => req.destroy() });
      });
    });
    req.on('error', reject);
  });
}

function get(base: string, path: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${path}`, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        // A download cut short ends without 'end': a failure, not a wait until the test's time is up.
        res.on('close', () => res.complete || reject(new Error(`${path}: the answer was cut short after ${body.length} characters`)));
      })
      .on('error', reject);
  });
}

describe('a full export whose client stops reading', () => {
  it('is cut after EXPORT_STALL_MS without progress, and gives its pooled connection back', async () => {
    const { t, base } = await serve({ EXPORT_STALL_MS: '300' });
    const export_ = await openPaused(base);
    expect(t.store.activeQueries).toBe(1);
    await until(() => t.store.activeQueries === 0, 'the connection to come back');
    expect((await export_.drain()).complete).toBe(false);
    expect((await get(base, '/budget/api/expenses/?year=2003&limit=5')).status).toBe(200);
  });

  it('is not cut while it reads, however slowly, within EXPORT_STALL_MS', async () => {
    const { base } = await serve({ EXPORT_STALL_MS: '2000' });
    const text = await new Promise<string>((resolve, reject) => {
      http
        .get(`${base}/budget/api/expenses/?format=csv&year=2001`, (res) => {
          res.pause();
          let body = '';
          res.setEncoding('utf8');
          setTimeout(() => {
            res.on('data', (chunk: string) => (body += chunk));
            res.on('end', () => resolve(body));
            res.resume();
          }, 600);
        })
        .on('error', reject);
    });
    expect(text.trimEnd().split('\r\n')).toHaveLength(LINES / 20 + 1);
  });
});

describe('a full export still running after EXPORT_MAX_SECONDS', () => {
  it('is cut, even though its client keeps reading, and gives its connection back', async () => {
    const { t, base } = await serve({ EXPORT_MAX_SECONDS: '1', EXPORT_STALL_MS: '60000' });
    const export_ = await openPaused(base);
    // A trickle: a little every 100 ms, never a stall, never the whole export within a second.
    const trickle = setInterval(() => export_.res.read(4096), 100);
    try {
      await until(() => t.store.activeQueries === 0, 'the connection to come back', 10_000);
    } finally {
      clearInterval(trickle);
    }
    expect((await export_.drain()).complete).toBe(false);
  });
});

describe('full exports at once', () => {
  it('past EXPORTS_AT_ONCE wait for a turn, refused with 503 overloaded only after QUEUE_WAIT_MS, while queries are still answered', async () => {
    const { t, base } = await serve({ EXPORTS_AT_ONCE: '2', QUEUE_WAIT_MS: '1000' });
    const held = [await openPaused(base), await openPaused(base)];
    expect(t.store.activeQueries).toBe(2);
    const third = await get(base, '/budget/api/expenses/?format=arrow&year=2002');
    expect(third.status).toBe(503);
    expect(third.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(third.body)).toMatchObject({
      code: 'overloaded',
      detail: 'the server was making as many full exports as it may for 1000 ms; retry in a few seconds',
    });
    expect(third.headers['retry-after']).toBe('5');
    // The two other connections still serve queries.
    const queries = await Promise.all([2004, 2005, 2006, 2007].map((year) => get(base, `/budget/api/expenses/?year=${year}&limit=7`)));
    expect(queries.map((q) => q.status)).toEqual([200, 200, 200, 200]);
    for (const export_ of held) export_.destroy();
    await until(() => t.store.activeQueries === 0, 'the exports to end');
    expect((await get(base, '/budget/api/expenses/?format=arrow&year=2002')).status).toBe(200);
  });

  it('runs a waiting export as soon as a running one ends', async () => {
    const { base } = await serve({ EXPORTS_AT_ONCE: '1', QUEUE_WAIT_MS: '20000' });
    const held = await openPaused(base);
    let answered = false;
    const waiting = get(base, '/budget/api/expenses/?format=csv&year=2002').finally(() => (answered = true));
    await sleep(300);
    expect(answered).toBe(false);
    held.destroy();
    const second = await waiting;
    expect(second.status).toBe(200);
    expect(second.body.trimEnd().split('\r\n')).toHaveLength(LINES / 20 + 1);
  });

  it('with the defaults, answers every one of a burst of distinct exports from one client, the rate limit on', async () => {
    const { base } = await serve({ RATE_LIMIT: '1000', QUEUE_WAIT_MS: '5000' });
    const urls = ['csv', 'arrow', 'parquet'].flatMap((format) =>
      [2001, 2002, 2003, 2004].map((year) => `/budget/api/expenses/?format=${format}&year=${year}`),
    );
    const answers = await Promise.all(urls.map((url) => get(base, url)));
    expect(answers.map((a) => a.status)).toEqual(urls.map(() => 200));
    // No second policy: exports have no budget of their own unless the operator sets one.
    expect(answers[0]!.headers['ratelimit-policy']).not.toContain('exports');
  });

  it('from one client: past EXPORTS_PER_CLIENT, when set, 429 rate_limited', async () => {
    const { base } = await serve({ RATE_LIMIT: '1000', EXPORTS_PER_CLIENT: '1' });
    const held = await openPaused(base);
    const second = await get(base, '/budget/api/expenses/?format=csv&year=2002');
    expect(second.status).toBe(429);
    expect(JSON.parse(second.body)).toMatchObject({ code: 'rate_limited' });
    held.destroy();
  });
});

describe('full exports per minute', () => {
  it('when EXPORT_RATE_LIMIT is set, count against that budget of their own, named "exports" in the RateLimit headers', async () => {
    const { base } = await serve({ RATE_LIMIT: '1000', EXPORT_RATE_LIMIT: '3' });
    const answers = [];
    for (const year of [2001, 2002, 2003, 2004]) answers.push(await get(base, `/budget/api/expenses/?format=csv&year=${year}`));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers[0]!.headers['ratelimit']).toMatch(/^"1000-in-1min"; r=\d+; t=\d+, "exports"; r=2; t=\d+$/);
    expect(answers[0]!.headers['ratelimit-policy']).toMatch(/, "exports"; q=3; w=60$/);
    expect(answers[2]!.headers['ratelimit']).toMatch(/"exports"; r=0; t=\d+$/);
    const refused = answers[3]!;
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'rate_limited' });
    expect(JSON.parse(refused.body).detail).toMatch(/^too many full exports: the limit is 3 per minute per client; retry after \d+ s/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Pages are not exports: still answered, in every format.
    expect((await get(base, '/budget/api/expenses/?format=csv&year=2005&limit=10')).status).toBe(200);
    expect((await get(base, '/budget/api/expenses/?year=2005&limit=10')).status).toBe(200);
  });
});

describe('/readyz', () => {
  it('answers 503 overloaded while every pooled connection has been held past what a query may take', async () => {
    const { base } = await serve({ EXPORTS_AT_ONCE: '4', QUERY_TIMEOUT_MS: '1500', QUEUE_WAIT_MS: '100' });
    expect((await get(base, '/readyz')).status).toBe(200);
    const held = [];
    for (let i = 0; i < 4; i++) held.push(await openPaused(base));
    const since = Date.now();
    let ready = await get(base, '/readyz');
    while (ready.status === 200 && Date.now() - since < 15_000) {
      await sleep(100);
      ready = await get(base, '/readyz');
    }
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ code: 'overloaded' });
    for (const export_ of held) export_.destroy();
    await until(() => running!.t.store.activeQueries === 0, 'the exports to end');
    expect((await get(base, '/readyz')).status).toBe(200);
  });
});

describe('a small full export (ten years, 150,000 lines, 17 MB of Arrow)', () => {
  it('is read whole, so its pooled connection comes back while its client has stopped reading', async () => {
    const { t, base } = await serve({});
    const export_ = await openPaused(base, '/budget/api/expenses/?format=arrow&year=2001..2010');
    await until(() => t.store.activeQueries === 0, 'the connection to come back');
    expect(export_.res.complete).toBe(false);
    expect((await export_.drain()).complete).toBe(true);
  });
});

describe('a full CSV export, which DuckDB writes itself', () => {
  it('is written whole while its client has stopped reading, its connection given back, and the client still cut after EXPORT_STALL_MS', async () => {
    const { t, base } = await serve({ EXPORT_STALL_MS: '3000' });
    const started = Date.now();
    const export_ = await openPaused(base, '/budget/api/expenses/?format=csv');
    await until(() => t.store.activeQueries === 0, 'DuckDB to finish writing', 10_000);
    // Past EXPORT_STALL_MS and one look of the watchdog (every quarter of it).
    await sleep(4500 - (Date.now() - started));
    expect((await export_.drain()).complete).toBe(false);
    // Kept whole: the next request is sent from the file.
    const again = await get(base, '/budget/api/expenses/?format=csv');
    expect(again.headers['content-length']).toBe(String(Buffer.byteLength(again.body)));
    expect(again.body.trimEnd().split('\r\n')).toHaveLength(LINES + 1);
  });

  it('is stopped when its client leaves before DuckDB is done: its connection back, no partial file left', async () => {
    const { t, base } = await serve({});
    const export_ = await openPaused(base, '/budget/api/expenses/?format=csv');
    export_.destroy();
    await until(() => t.store.activeQueries === 0, 'the connection to come back');
    await until(() => readdirSync(SCRATCH_DIR).every((name) => !name.endsWith('.part')), 'the partial file to go');
    const whole = await get(base, '/budget/api/expenses/?format=csv');
    expect(whole.body.trimEnd().split('\r\n')).toHaveLength(LINES + 1);
  });

  it('goes on being written for a second client when the client that started it leaves', async () => {
    const { base } = await serve({ EXPORTS_AT_ONCE: '2', EXPORTS_PER_CLIENT: '2' });
    const starter = await openPaused(base, '/budget/api/expenses/?format=csv');
    const second = get(base, '/budget/api/expenses/?format=csv');
    await sleep(20);
    starter.destroy();
    const { status, body } = await second;
    expect(status).toBe(200);
    expect(body.trimEnd().split('\r\n')).toHaveLength(LINES + 1);
  });

  it('is written again for a request that comes just after its last reader left, not cut short', async () => {
    const { t } = await serve({});
    const lease = t.store.lease()!;
    const root = await mkdtemp(path.join(tmpdir(), 'export-files-test-'));
    const files = new ExportFiles(root, 2 ** 30, 0);
    const write: WriteExport = (part, signal) => lease.copy('SELECT * FROM expenses', {}, part, 'FORMAT csv, USE_TMP_FILE false', signal);
    try {
      const leaving = files.written('drop', 'every line', SCRATCH_DIR, write)[Symbol.asyncIterator]();
      expect((await leaving.next()).done).toBe(false);
      // The only reader leaves, which stops DuckDB; the next request asks before it has stopped.
      await leaving.return!(undefined);
      let text = '';
      for await (const chunk of files.written('drop', 'every line', SCRATCH_DIR, write)) text += chunk.toString('utf8');
      expect(text.trimEnd().split('\n')).toHaveLength(LINES + 1);
    } finally {
      lease.release();
      await files.clear();
      await rm(root, { recursive: true, force: true });
    }
  });

  it('still counts against EXPORTS_AT_ONCE while it is sent', async () => {
    const { base } = await serve({ EXPORTS_AT_ONCE: '1' });
    const held = await openPaused(base, '/budget/api/expenses/?format=csv');
    expect((await get(base, '/budget/api/expenses/?format=arrow&year=2002')).status).toBe(503);
    held.destroy();
  });
});
