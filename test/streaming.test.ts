/**
 * Full exports are streamed in every format: the query advances only as fast as the client reads,
 * so memory does not grow with the export, and a client that goes away gives the pooled connection
 * back. Runs a
 * real listening server on loopback, because both depend on a real socket's backpressure.
 */
import { tableFromIPC } from 'apache-arrow';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { appFor, listen, type TestApp } from './helpers/app.js';

const LINES = 300_000;
const CHUNK_ROWS = 2048; // DuckDB's vector size: one streamed chunk
const TOTAL_CHUNKS = Math.ceil(LINES / CHUNK_ROWS);

let t: TestApp;
let base: string;
let stop: () => Promise<void>;
let chunksFetched = 0;

beforeAll(async () => {
  t = await appFor(
    {
      ...small,
      expenses: {
        // Written in shuffled id order (7919 is prime to LINES): exports must still come out by id.
        sql: `SELECT i AS id, 2000 + i % 20 AS year, (i % 997 + 0.125)::DECIMAL(18,3) AS amount,
                   [11, 12, 13, 20][i % 4 + 1] AS category_id, 1 + i % 3 AS organization_id, false AS complementary
            FROM (SELECT (k * 7919) % ${LINES} + 1 AS i FROM range(0, ${LINES}) AS r(k))`,
      },
      // These tests run as many exports at once as the pool has connections, and more; the export
      // budget that keeps connections for queries (test/export-limits.test.ts) is opened up for them.
    },
    { EXPORTS_AT_ONCE: '8' },
  );
  // Count the chunks the export pulls from DuckDB (the real query still runs; this only watches).
  const lease = t.store.lease()!;
  const drop = lease.drop;
  lease.release();
  const chunks = drop.chunks.bind(drop);
  drop.chunks = async function* (sql, params, signal) {
    for await (const chunk of chunks(sql, params, signal)) {
      chunksFetched += 1;
      yield chunk;
    }
  };
  ({ base, stop } = await listen(t.app));
});
afterAll(async () => {
  await stop();
  t.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The chunks fetched once the export has stopped pulling (unchanged for 300 ms), or after 10 s. */
async function chunksWhenStill(): Promise<number> {
  let seen = -1;
  for (let waited = 0; chunksFetched !== seen && waited < 10_000; waited += 300) {
    seen = chunksFetched;
    await sleep(300);
  }
  return chunksFetched;
}

/** Starts a download and resolves with the response, paused, once its first bytes have arrived. */
function open(path: string, timeoutMs = 10_000): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${path} sent nothing in ${timeoutMs} ms`)), timeoutMs);
    const req = http.get(`${base}${path}`, (res) => {
      expect(res.statusCode).toBe(200);
      res.once('data', () => {
        clearTimeout(timer);
        res.pause();
        resolve(res);
      });
    });
    req.on('error', reject);
  });
}

/**
 * Reads a CSV download to its end, counts its lines and checks that its ids (first field) rise;
 * fails instead of hanging if it stalls.
 */
function readAll(path: string, timeoutMs = 20_000): Promise<{ lines: number; idsRise: boolean }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${path} did not finish in ${timeoutMs} ms`)), timeoutMs);
    http
      .get(`${base}${path}`, (res) => {
        let lines = 0;
        let idsRise = true;
        let lastId = 0;
        let partial = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const records = (partial + chunk).split('\r\n');
          partial = records.pop()!;
          for (const record of records) {
            lines += 1;
            if (lines === 1) continue; // the header
            const id = Number(record.slice(0, record.indexOf(',')));
            if (!(id > lastId)) idsRise = false;
            lastId = id;
          }
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ lines, idsRise });
        });
      })
      .on('error', reject);
  });
}

describe('a full export', () => {
  // Not Parquet: it packs these 300,000 lines into 2 MB, which the socket's buffers hold whole.
  // Not CSV either: DuckDB writes it to a file at its own pace (test/export-files.test.ts).
  it.each(['arrow'])('fetches rows from DuckDB only as fast as a slow client reads them (%s)', async (format) => {
    chunksFetched = 0;
    const res = await open(`/budget/api/expenses/?format=${format}`);
    const whilePaused = await chunksWhenStill();
    // The socket's and streams' buffers hold a few chunks; the query must not run ahead to the end.
    expect(whilePaused).toBeLessThan(TOTAL_CHUNKS / 2);
    res.resume();
    await new Promise((resolve) => res.on('end', resolve));
    expect(chunksFetched).toBe(TOTAL_CHUNKS);
  });

  it('reads to the end: every line arrives, in CSV and in Arrow', async () => {
    const { lines, idsRise } = await readAll('/budget/api/expenses/?format=csv');
    expect(lines).toBe(LINES + 1);
    expect(idsRise).toBe(true);
    const arrow = tableFromIPC(new Uint8Array(await (await fetch(`${base}/budget/api/expenses/?format=arrow`)).arrayBuffer()));
    expect(arrow.numRows).toBe(LINES);
    // The first DuckDB chunk alone, so bytes leave at once, then batches of 16,384 rows (8 chunks).
    const batches = arrow.batches.map((b) => b.numRows);
    expect(batches).toEqual([CHUNK_ROWS, ...Array(18).fill(16_384), LINES - CHUNK_ROWS - 18 * 16_384]);
    expect(arrow.get(LINES - 1)?.toJSON()).toMatchObject({ id: BigInt(LINES), year: 2000 + (LINES % 20) });
    // 300,000 lines with their stage and provenance, twice, on 2 shared cores: 30 s was too close.
  }, 60_000);

  it('stops an abandoned download cleanly, leaving no unhandled rejection behind (arrow, csv, parquet)', async () => {
    const unhandled: unknown[] = [];
    const collect = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', collect);
    try {
      // Clients that read at full speed, then go away midway: the server is then often waiting on DuckDB.
      for (let round = 0; round < 10; round++) {
        await Promise.all(
          ['arrow', 'csv', 'parquet'].map(
            (format) =>
              new Promise<void>((resolve, reject) => {
                http
                  .get(`${base}/budget/api/expenses/?format=${format}`, (res) => {
                    let bytes = 0;
                    res.on('data', (chunk: Buffer) => {
                      bytes += chunk.length;
                      if (bytes > 200_000 + round * 50_000) res.destroy();
                    });
                    res.on('close', resolve);
                  })
                  .on('error', reject);
              }),
          ),
        );
      }
      await sleep(200);
    } finally {
      process.off('unhandledRejection', collect);
    }
    expect(unhandled).toEqual([]);
  });

  it('gives its pooled connection back when the client disconnects midway', async () => {
    // Twice the pool's size (4) of abandoned downloads: a leaked connection would leave none.
    for (let round = 0; round < 2; round++) {
      const started = await Promise.all(
        Array.from({ length: 4 }, (_, i) => open(`/budget/api/expenses/?format=${['arrow', 'csv', 'parquet'][i % 3]}`)),
      );
      for (const res of started) res.destroy();
      await sleep(100);
    }
    // One more export than the pool has connections: the fifth waits for one, however long the
    // first four take on a busy machine.
    t.store.limits.queueWaitMs = 60_000;
    const answers = await Promise.all(Array.from({ length: 5 }, () => readAll('/budget/api/expenses/?format=csv&year=2019'))).finally(
      () => (t.store.limits.queueWaitMs = t.config.QUEUE_WAIT_MS),
    );
    for (const { lines, idsRise } of answers) {
      expect(lines).toBe(LINES / 20 + 1);
      expect(idsRise).toBe(true);
    }
    const json = await fetch(`${base}/budget/api/totals/`);
    expect(json.status).toBe(200);
  });
});
