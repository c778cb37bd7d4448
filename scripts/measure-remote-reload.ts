/**
 * A reload from S3 under load: the production server reads DATA_URL from a real S3 protocol
 * server (s3rver, on loopback) and polls it every second while autocannon keeps 10 connections
 * busy; a new drop is published mid-run with `publishDrop` (drop.json last). Prints the failed
 * requests (errors, non-2xx) and the time from the new drop.json being stored to /meta/ showing
 * its version, as seen by a client polling /meta/ every 20 ms.
 *
 *   npm run build && npx tsx scripts/measure-remote-reload.ts [--lines 200000] [--duration 20]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import S3rver from 's3rver';
import { publishDrop } from '../src/tools/publish.js';
import { synthDrop } from '../src/tools/synth.js';

const { values: args } = parseArgs({ options: { lines: { type: 'string', default: '200000' }, duration: { type: 'string', default: '20' } } });
const lines = Number(args.lines);
const duration = Number(args.duration);
const work = mkdtempSync(path.join(tmpdir(), 'measure-remote-'));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const s3 = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory: path.join(work, 's3'),
  configureBuckets: [{ name: 'drops', configs: [] }],
});
const { port: s3Port } = (await s3.run()) as { port: number };
Object.assign(process.env, {
  AWS_ACCESS_KEY_ID: 'S3RVER',
  AWS_SECRET_ACCESS_KEY: 'S3RVER',
  AWS_REGION: 'us-east-1',
  AWS_ENDPOINT_URL: `http://127.0.0.1:${s3Port}`,
});

for (const seed of [1, 2]) await synthDrop(path.join(work, `g${seed}`), { expenseLines: lines, seed, createdAt: `2026-01-0${seed}T00:00:00Z` });
await publishDrop(path.join(work, 'g1'), 's3://drops/budget/');

const port = 3000 + Math.floor(Math.random() * 1000);
const server = spawn(process.execPath, ['dist/src/server.js'], {
  env: {
    ...process.env,
    RELEASES_DIR: path.join(work, 'releases'),
    PORT: String(port),
    HOST: '127.0.0.1',
    RATE_LIMIT: '0',
    DATA_URL: 's3://drops/budget/',
    DATA_POLL_SECONDS: '1',
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const base = `http://127.0.0.1:${port}`;
const meta = async () => (await (await fetch(`${base}/budget/api/meta/`)).json()) as { version: string; last_reload: unknown };
try {
  const startedAt = performance.now();
  for (;;) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    await sleep(20);
  }
  console.log(`lines=${lines}: ready ${Math.round(performance.now() - startedAt)} ms after spawn (download + load)`);
  const before = (await meta()).version;

  const load = autocannon({
    url: base,
    connections: 10,
    duration,
    requests: [
      { path: '/budget/api/totals/' },
      { path: '/budget/api/expenses/?year=2020&limit=50' },
      { path: '/budget/api/budget-categories/?year=2021' },
      { path: '/budget/api/debt/?parent=null' },
    ],
  });
  await sleep(3000);
  const t0 = performance.now();
  let published = 0;
  await publishDrop(path.join(work, 'g2'), 's3://drops/budget/', (name) => {
    if (name === 'drop.json') published = performance.now();
  });
  let version = before;
  while (version === before) {
    await sleep(20);
    version = (await meta()).version;
  }
  const seen = performance.now();
  const result = await load;
  console.log(
    `publish took ${Math.round((published || seen) - t0)} ms; /meta/ showed "${version}" ${Math.round(seen - published)} ms after drop.json was stored`,
  );
  console.log(
    `under load: ${result.requests.total} requests in ${duration} s, ${result.errors} errors, ${result.non2xx} non-2xx, p99 ${result.latency.p99} ms`,
  );
  console.log('last reload:', JSON.stringify((await meta()).last_reload));
} finally {
  server.kill('SIGTERM');
  await s3.close();
  rmSync(work, { recursive: true, force: true });
}
