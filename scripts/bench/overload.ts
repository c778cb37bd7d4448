/**
 * `npm run bench:overload`: the overload figures (docs/api.md#limits-and-load-shedding, docs/performance.md#overload),
 * on the production build over a synthetic drop, every request a distinct uncached query:
 *
 *   npm run bench:overload -- [--lines 52000] [--seconds 15] [--connections 256]
 *
 * 1. unloaded: 8 clients (twice the pool) asking one after another for 5 s: the server's uncached
 *    throughput when nothing waits long;
 * 2. sustained overload: `--connections` clients for `--seconds`, each sending its next request as
 *    soon as the last is answered: goodput (200s per second) against the unloaded throughput, the
 *    slowest answer of all against QUEUE_WAIT_MS + QUERY_TIMEOUT_MS, the p50/p99 of the 200s,
 *    and the server's RSS at start, middle and end;
 * 3. bursts from one client, sent at once: 120 with the defaults, then 500 with QUEUE_WAIT_MS=5000
 *    (a second server).
 * Exits non-zero when a target is missed. About 45 s; the figures are printed as a table.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { synthDrop } from '../../src/tools/synth.js';
import { spawnAndWait, type Running } from './service.js';

const { values: args } = parseArgs({
  options: {
    lines: { type: 'string', default: '52000' },
    seconds: { type: 'string', default: '15' },
    connections: { type: 'string', default: '256' },
  },
});
const LINES = Number(args.lines);
const SECONDS = Number(args.seconds);
const CONNECTIONS = Number(args.connections);
const QUEUE_WAIT_MS = 1000;
const QUERY_TIMEOUT_MS = 5000;
const log = (message: string) => process.stdout.write(`[overload] ${message}\n`);

const work = mkdtempSync(path.join(tmpdir(), 'budget-overload-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
log(`writing a synthetic drop of ${LINES} lines`);
await synthDrop(path.join(work, 'drop'), { expenseLines: LINES, seed: 1 });

function start(env: Record<string, string>): Promise<Running> {
  return spawnAndWait(
    process.execPath,
    ['dist/src/server.js'],
    { DATA_DIR: path.join(work, 'drop'), PORT: '0', HOST: '127.0.0.1', RATE_LIMIT: '0', LOG_LEVEL: 'info', NODE_ENV: 'production', ...env },
    (_out, err) => Number(/"port":(\d+)[^\n]*"msg":"listening"/.exec(err)?.[1]) || null,
  );
}

/** A URL never asked before in this run: every request is a query, never a cached answer. */
let asked = 0;
function nextUrl(): string {
  const n = asked++;
  const year = 2000 + (n % 20);
  const page = `limit=20&offset=${Math.floor(n / 4)}`;
  switch (n % 4) {
    case 0:
      return `/budget/api/expenses/?year=${year}&${page}`;
    case 1:
      return `/budget/api/expenses/?organization=${1 + (n % 7)}&${page}`;
    case 2:
      return `/budget/api/organization/?${page}`;
    default:
      return `/budget/api/resources/?year=${year}&${page}`;
  }
}

interface Answer {
  status: number;
  ms: number;
}

function ask(port: number, agent: http.Agent): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: nextUrl(), agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, ms: performance.now() - started }));
      res.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
  });
}

/** `clients` closed loops for `seconds`: each asks again as soon as it is answered. */
async function closedLoop(port: number, clients: number, seconds: number, onTick?: (elapsed: number) => void): Promise<Answer[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const answers: Answer[] = [];
  const until = performance.now() + seconds * 1000;
  const tick = onTick && setInterval(() => onTick(seconds - (until - performance.now()) / 1000), 1000);
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) answers.push(await ask(port, agent));
    }),
  );
  if (tick) clearInterval(tick);
  agent.destroy();
  return answers;
}

async function burst(port: number, n: number): Promise<{ answers: Answer[]; ms: number }> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: n }, () => ask(port, agent)));
  agent.destroy();
  return { answers, ms: performance.now() - started };
}

const rssMb = (pid: number) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
};
const count = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length;

const results: [string, string, boolean][] = [];
const server = await start({});
try {
  const pid = server.child.pid!;
  await closedLoop(server.port, 8, 1); // warm-up: the statements prepared on every connection
  const unloaded = await closedLoop(server.port, 8, 5);
  const unloadedRate = count(unloaded, 200) / 5;
  log(`unloaded: ${unloaded.length} answers in 5 s, ${unloadedRate.toFixed(0)} × 200 per second`);

  const rss: number[] = [rssMb(pid)];
  const sustained = await closedLoop(server.port, CONNECTIONS, SECONDS, (elapsed) => {
    if (Math.round(elapsed) === Math.round(SECONDS / 2)) rss.push(rssMb(pid));
  });
  rss.push(rssMb(pid));
  const ok = sustained.filter((a) => a.status === 200);
  const goodput = ok.length / SECONDS;
  const refused = count(sustained, 503);
  const other = sustained.length - ok.length - refused;
  const slowest = Math.max(...sustained.map((a) => a.ms));
  log(`sustained: ${sustained.length} answers, ${ok.length} × 200, ${refused} × 503, ${other} other`);
  results.push(['unloaded uncached throughput (8 clients, 5 s)', `${unloadedRate.toFixed(0)} answers/s`, true]);
  results.push([
    `sustained overload (${CONNECTIONS} clients, ${SECONDS} s): answers`,
    `${sustained.length}: ${ok.length} × 200, ${refused} × 503 overloaded, ${other} other`,
    other === 0,
  ]);
  results.push([
    'goodput (200s per second)',
    `${goodput.toFixed(0)}/s = ${((100 * goodput) / unloadedRate).toFixed(0)} % of unloaded (target ≥ 80 %)`,
    goodput >= 0.8 * unloadedRate,
  ]);
  results.push([
    'slowest answer',
    `${slowest.toFixed(0)} ms (target ≤ ${QUEUE_WAIT_MS + QUERY_TIMEOUT_MS})`,
    slowest <= QUEUE_WAIT_MS + QUERY_TIMEOUT_MS,
  ]);
  results.push([
    'served latency (200s)',
    `p50 ${percentile(
      ok.map((a) => a.ms),
      50,
    ).toFixed(0)} ms, p99 ${percentile(
      ok.map((a) => a.ms),
      99,
    ).toFixed(0)} ms`,
    true,
  ]);
  results.push([
    'refused latency (503s)',
    `p50 ${percentile(
      sustained.filter((a) => a.status === 503).map((a) => a.ms),
      50,
    ).toFixed(0)} ms`,
    true,
  ]);
  results.push(['server RSS (start, middle, end)', `${rss.join(', ')} MB`, true]);

  const b120 = await burst(server.port, 120);
  results.push(['burst of 120, defaults', `${count(b120.answers, 200)} × 200 in ${b120.ms.toFixed(0)} ms`, count(b120.answers, 200) === 120]);
} finally {
  server.child.kill('SIGTERM');
}

const patient = await start({ QUEUE_WAIT_MS: '5000' });
try {
  await closedLoop(patient.port, 8, 1);
  const b500 = await burst(patient.port, 500);
  results.push([
    'burst of 500, QUEUE_WAIT_MS=5000',
    `${count(b500.answers, 200)} × 200 in ${b500.ms.toFixed(0)} ms`,
    count(b500.answers, 200) === 500,
  ]);
} finally {
  patient.child.kill('SIGTERM');
}

process.stdout.write(
  `\n| figure | value | target met |\n|---|---|---|\n${results.map(([k, v, met]) => `| ${k} | ${v} | ${met ? 'yes' : 'NO'} |`).join('\n')}\n`,
);
process.exitCode = results.every(([, , met]) => met) ? 0 : 1;
