/**
 * `npm run soak`: the production server under a few minutes of mixed traffic, to show that it
 * answers everything, stays up and does not grow.
 *
 *   npm run soak -- [--seconds 180] [--lines 100000] [--connections 16]
 *
 * On loopback, against `node dist/src/server.js` serving a synthetic drop below a symlink:
 * - autocannon sends `--connections` clients of mixed GETs over every endpoint the index lists
 *   (pages at random offsets, trees, years, CSV and Arrow pages, 304s, service endpoints);
 * - the drop is reloaded four times (symlink flipped between two drops, then SIGHUP);
 * - halfway, a burst of 128 more connections asks uncached trees, past the query cap: those
 *   refused get 503 overloaded, which is deliberate and counted apart;
 * - every 15 s, 20 clients open a connection, send half a request line and never finish it.
 * It prints the requests that failed (anything but 2xx/304 and deliberate 503s), p50/p99
 * latency, the reloads, how long the stuck clients were held, and the server's RSS at start,
 * middle and end; and exits non-zero when a request failed or the server did not exit 0.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { projectRoot } from '../src/data/sql.js';
import { synthDrop } from '../src/tools/synth.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '180' },
    lines: { type: 'string', default: '100000' },
    connections: { type: 'string', default: '16' },
  },
});
const SECONDS = Number(args.seconds);
const LINES = Number(args.lines);
const CONNECTIONS = Number(args.connections);
const ROOT = projectRoot();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string) => process.stdout.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

const work = mkdtempSync(path.join(tmpdir(), 'budget-soak-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

log(`writing two synthetic drops of ${LINES} lines`);
for (const seed of [1, 2]) await synthDrop(path.join(work, `g${seed}`, 'drop'), { expenseLines: LINES, seed });
const link = path.join(work, 'current');
symlinkSync(path.join(work, 'g1'), link);
/** Re-points the symlink atomically, as `ln -sfn` does. */
function flip(target: string): void {
  symlinkSync(target, `${link}.tmp`);
  renameSync(`${link}.tmp`, link);
}

const server = spawn(process.execPath, ['dist/src/server.js'], {
  cwd: ROOT,
  env: {
    ...process.env,
    DATA_DIR: path.join(link, 'drop'),
    RELEASES_DIR: path.join(work, 'releases'),
    HOST: '127.0.0.1',
    PORT: '0',
    RATE_LIMIT: '0',
    LOG_LEVEL: 'info',
  },
  stdio: ['ignore', 'ignore', 'pipe'],
});
const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
let errorLines = 0;
const errorSamples: string[] = [];
const port = await new Promise<number>((resolve, reject) => {
  let seen = '';
  server.stderr!.on('data', (chunk: Buffer) => {
    const text = String(chunk);
    // Level 50 and up, leaving out the deliberate 503 overloaded ones of the burst.
    for (const line of text.split('\n')) {
      if (!/"level":(50|60)/.test(line) || line.includes('"status":503')) continue;
      errorLines += 1;
      if (errorSamples.length < 3) errorSamples.push(line.slice(0, 600));
    }
    seen = (seen + text).slice(-4096);
    const match = /"port":(\d+)/.exec(seen);
    if (match) resolve(Number(match[1]));
  });
  server.on('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
});
const base = `http://127.0.0.1:${port}`;
for (let ready = false; !ready; await sleep(100)) ready = (await fetch(`${base}/readyz`).catch(() => null))?.status === 200;
const rss = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024);
const rssAt: Record<string, number> = { start: rss() };
log(`server ${server.pid} on ${base}, RSS ${rssAt.start} MB`);

// Mixed traffic over every endpoint the index lists.
const index = (await (await fetch(`${base}/budget/api/`)).json()) as { endpoints: { path: string; parameters: string[] }[] };
const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;
const year = () => String(2000 + Math.floor(Math.random() * 26));
function randomQuery(endpoint: { path: string; parameters: string[] }): string {
  const params = new URLSearchParams();
  for (const name of endpoint.parameters) {
    if (Math.random() < 0.5) continue;
    const value = {
      year: year,
      limit: () => pick(['1', '10', '100', '1000']),
      offset: () => String(Math.floor(Math.random() * LINES)),
      hierarchy: () => pick(['true', 'false']),
      include_complementary: () => pick(['true', 'false']),
      organization: () => String(1 + Math.floor(Math.random() * 300)),
      organization_id: () => String(1 + Math.floor(Math.random() * 300)),
      parent: () => pick(['null', '1', '2', '3']),
      type: () => pick(['expense', 'resource']),
      // Full exports are long downloads, not what this measures: CSV and Arrow of one page.
      format: () => {
        if (endpoint.parameters.includes('limit')) params.set('limit', '100');
        return pick(['json', 'json', 'csv', 'arrow']);
      },
    }[name];
    if (value) params.set(name, value());
  }
  const query = params.toString();
  return query ? `${endpoint.path}?${query}` : endpoint.path;
}
const SERVICE = ['/budget/api/', '/budget/api/meta/', '/healthz', '/readyz', '/budget/api/openapi.json'];
const tags = new Map<string, string>();

interface Tally {
  statuses: Record<number, number>;
  /** 503s by problem code: overloaded is deliberate, anything else a failure. */
  unavailable: Record<string, number>;
}
const newTally = (): Tally => ({ statuses: {}, unavailable: {} });
const failedSamples: string[] = [];
function count(tally: Tally, status: number, body: string, path?: string): void {
  tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
  if (!/^(2|304|503)/.test(String(status)) && failedSamples.length < 5) failedSamples.push(`${status} ${path} ${body.slice(0, 300)}`);
  if (status === 503) {
    const code = /"code":"([a-z_]+)"/.exec(body)?.[1] ?? 'unknown';
    tally.unavailable[code] = (tally.unavailable[code] ?? 0) + 1;
  }
}
const failures = (tally: Tally, result: autocannon.Result) =>
  result.errors +
  result.timeouts +
  Object.entries(tally.statuses).reduce((sum, [status, n]) => (/^(2|304|503)/.test(status) ? sum : sum + n), 0) +
  Object.entries(tally.unavailable).reduce((sum, [code, n]) => (code === 'overloaded' ? sum : sum + n), 0);

function run(options: { connections: number; seconds: number; path: () => string; revalidate: boolean }, tally: Tally) {
  return autocannon({
    url: base,
    connections: options.connections,
    duration: options.seconds,
    timeout: 30,
    requests: [
      {
        method: 'GET',
        // The context is the connection's: it remembers the path of the request in flight on it.
        setupRequest: (request, context) => {
          const p = options.path();
          (context as { path?: string }).path = p;
          const tag = options.revalidate && Math.random() < 0.2 ? tags.get(p) : undefined;
          return { ...request, path: p, headers: tag ? { 'if-none-match': tag } : {} };
        },
        onResponse: (status, body, context, headers) => {
          const p = (context as { path?: string }).path;
          count(tally, status, body, p);
          const etag = (headers as Record<string, string> | undefined)?.etag;
          if (status === 200 && etag && p && tags.size < 50_000) tags.set(p, etag);
        },
      },
    ],
  });
}

// Stuck clients: half a request line, never finished. Each records how long the server held it.
const held: number[] = [];
let stuckOpened = 0;
function stuckClients(n: number): void {
  stuckOpened += n;
  for (let i = 0; i < n; i++) {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /budget/api/totals/ HTTP/1.1\r\nHost: x\r\n'));
    socket.on('error', () => undefined);
    // Read what the server sends (its 408), or 'close' never comes.
    socket.resume();
    socket.on('close', () => held.push(Date.now() - started));
  }
}

const main = newTally();
const burst = newTally();
const reloads: { version: string; ms: number }[] = [];
const mainRun = run(
  {
    connections: CONNECTIONS,
    seconds: SECONDS,
    revalidate: true,
    path: () => (Math.random() < 0.1 ? pick(SERVICE) : randomQuery(pick(index.endpoints))),
  },
  main,
);

const schedule: Promise<unknown>[] = [];
const at = (fraction: number, what: () => Promise<unknown> | void) => schedule.push(sleep(fraction * SECONDS * 1000).then(what));
const meta = async () => ((await (await fetch(`${base}/budget/api/meta/`)).json()) as { version: string }).version;
/** One reload after another: flip the symlink, SIGHUP, wait for /meta/ to show it. */
schedule.push(
  (async () => {
    const start = Date.now();
    for (let i = 0; i < 4; i++) {
      // At 15%, 35%, 55% and 75% of the run, or as soon as the previous reload is done.
      await sleep(Math.max(0, start + (0.15 + 0.2 * i) * SECONDS * 1000 - Date.now()));
      const before = await meta();
      const started = Date.now();
      flip(path.join(work, i % 2 === 0 ? 'g2' : 'g1'));
      server.kill('SIGHUP');
      let now = before;
      while (now === before && Date.now() - started < 60_000) {
        await sleep(20);
        now = await meta();
      }
      reloads.push({ version: now, ms: Date.now() - started });
      log(`reload ${i + 1}: ${before} -> ${now} in ${Date.now() - started} ms`);
    }
  })(),
);
let burstRun: Promise<autocannon.Result> | undefined;
at(0.5, () => {
  rssAt.middle = rss();
  log(`burst of 128 connections for 5 s; RSS ${rssAt.middle} MB`);
  let n = 0;
  // Trees of every organization and year: each one another uncached query.
  const path = () => `/budget/api/expenses/?hierarchy=true&organization=${1 + (n++ % 300)}&year=${year()}&limit=${1 + (n % 1000)}`;
  burstRun = run({ connections: 128, seconds: 5, revalidate: false, path }, burst);
  return burstRun;
});
for (let s = 0; s < SECONDS - 12; s += 15) at(s / SECONDS, () => stuckClients(20));

const result = await mainRun;
await Promise.all(schedule);
const burstResult = await burstRun;
rssAt.end = rss();
// The last stuck clients are closed within the headers timeout.
await sleep(12_000);

server.kill('SIGTERM');
const exitCode = await exited;

const mainFailed = failures(main, result);
const burstFailed = burstResult ? failures(burst, burstResult) : 0;
const lines = [
  `soak: ${SECONDS} s, ${CONNECTIONS} connections of mixed traffic, synthetic drops of ${LINES} lines`,
  `requests: ${result.requests.total} (${Math.round(result.requests.average)}/s), statuses ${JSON.stringify(main.statuses)}`,
  `latency: p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
  `failed: ${mainFailed} (errors ${result.errors}, timeouts ${result.timeouts}); deliberate 503 overloaded: ${main.unavailable.overloaded ?? 0}`,
  `burst: ${burstResult?.requests.total ?? 0} requests at 128 connections, statuses ${JSON.stringify(burst.statuses)}, failed ${burstFailed}`,
  `reloads: ${reloads.map((r) => `${r.version} in ${r.ms} ms`).join('; ')}`,
  `stuck clients: ${held.length} of ${stuckOpened} closed by the server, held ${Math.min(...held)}-${Math.max(...held)} ms`,
  `RSS: start ${rssAt.start} MB, middle ${rssAt.middle} MB, end ${rssAt.end} MB`,
  `error log lines (other than 503): ${errorLines}; exit code on SIGTERM: ${exitCode}`,
];
process.stdout.write(`\n${lines.join('\n')}\n`);
for (const sample of [...failedSamples, ...errorSamples]) process.stdout.write(`  e.g. ${sample}\n`);
process.exitCode = mainFailed + burstFailed === 0 && reloads.length === 4 && held.length === stuckOpened && exitCode === 0 ? 0 : 1;
