/**
 * `npm run bench`: where the service stands against the framework's ceiling, and how its cost
 * grows with data. Figures that count are the ratios measured in this one run, on this machine.
 *
 *   npm run bench -- [--scale 750] [--duration 10] [--rounds 2] [--big] [--skip-growth] [--skip-throughput]
 *
 * 1. Throughput: the real server (production build, RATE_LIMIT off, then on) on a synthetic drop
 *    of `--scale` times the sample's lines, driven by autocannon at 20 connections with (a) one hot
 *    URL and (b) several hundred distinct URLs over all nine endpoints; alternating with two
 *    ceilings that answer the same bytes with no work (Express, bare node:http).
 * 2. Growth: load+validate time, RSS, and the p99 of single uncached queries per endpoint for the
 *    sample drop and synthetic drops of 100x and 1000x its lines, of 1 million lines, of 1 million
 *    lines in three stages with sources (synth --stages), and 10 million with --big.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { projectRoot } from '../../src/data/sql.js';
import type { RecordedAnswer } from './ceiling.js';
import type { QueryFigures } from './queries.js';

const ROOT = projectRoot();
const WORK = path.join(ROOT, '.bench');
const CONNECTIONS = 20;

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: '750' },
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    big: { type: 'boolean', default: false },
    'skip-growth': { type: 'boolean', default: false },
    'skip-throughput': { type: 'boolean', default: false },
  },
});

interface Running {
  child: ChildProcess;
  port: number;
  stderr: () => string;
}

function spawnAndWait(command: string, argv: string[], env: NodeJS.ProcessEnv, port: (out: string, err: string) => number | null): Promise<Running> {
  const child = spawn(command, argv, { cwd: ROOT, env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const check = () => {
      const found = port(out, err);
      if (found) resolve({ child, port: found, stderr: () => err });
    };
    child.stdout!.on('data', (c) => ((out += c), check()));
    child.stderr!.on('data', (c) => ((err += c), check()));
    child.on('exit', (code) => reject(new Error(`${command} ${argv.join(' ')} exited ${code}: ${err}`)));
  });
}

function startService(dataDir: string, rateLimit: string): Promise<Running> {
  return spawnAndWait(
    process.execPath,
    ['dist/src/server.js'],
    { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', RATE_LIMIT: rateLimit, LOG_LEVEL: 'info', NODE_ENV: 'production' },
    (_out, err) => Number(/"port":(\d+)[^\n]*"msg":"listening"/.exec(err)?.[1]) || null,
  );
}

function startCeiling(mode: 'express' | 'http', answersFile: string): Promise<Running> {
  return spawnAndWait(process.execPath, ['--import', 'tsx', 'scripts/bench/ceiling.ts', mode, answersFile], {}, (out) =>
    Number(/^(\d+)\n/.exec(out)?.[1]) || null,
  );
}

async function stop(running: Running): Promise<void> {
  const exited = new Promise((resolve) => running.child.once('exit', resolve));
  running.child.kill('SIGTERM');
  await exited;
}

/** Resident set size of a process, from /proc (Linux), in MB. */
function rssMb(pid: number | undefined, field = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function drive(port: number, paths: string[], seconds: number): Promise<Load> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: paths.map((p) => ({ method: 'GET' as const, path: p })),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

async function record(port: number, paths: string[]): Promise<Record<string, RecordedAnswer>> {
  const answers: Record<string, RecordedAnswer> = {};
  for (const p of paths) {
    const res = await fetch(`http://127.0.0.1:${port}${p}`);
    const headers: Record<string, string> = {};
    res.headers.forEach((value, key) => {
      if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(key)) headers[key] = value;
    });
    answers[p] = { status: res.status, headers, body: await res.text() };
  }
  return answers;
}

/** Several hundred distinct URLs over all nine endpoints, hierarchy and paging included. */
function mixedPaths(years: number[], organizations: number): string[] {
  const api = '/budget/api';
  const paths: string[] = [`${api}/totals/`, `${api}/deficit/`, `${api}/debt/`, `${api}/outstanding-debt/?year=last`];
  for (const year of years) {
    paths.push(
      `${api}/totals/?year=${year}`,
      `${api}/totals/?year=${year}&include_complementary=false`,
      `${api}/budget-categories/?year=${year}`,
      `${api}/budget-categories/?year=${year}&type=resource`,
      `${api}/expenses/?year=${year}`,
      `${api}/expenses/?year=${year}&limit=50&offset=100`,
      `${api}/expenses/?year=${year}&hierarchy=true`,
      `${api}/resources/?year=${year}`,
      `${api}/resources/?year=${year}&hierarchy=true`,
      `${api}/organization/?year=${year}`,
      `${api}/organization/stats/?year=${year}`,
      `${api}/debt/?year=${year}&parent=null`,
      `${api}/outstanding-debt/?year=${year}`,
    );
  }
  for (let id = 1; id <= Math.min(organizations, 120); id++) {
    paths.push(`${api}/expenses/?organization=${id}&limit=20`, `${api}/organization/stats/?organization_id=${id}`);
  }
  for (let offset = 0; offset < 2000; offset += 100) paths.push(`${api}/expenses/?offset=${offset}`, `${api}/organization/?offset=${offset}&limit=20`);
  return [...new Set(paths)];
}

/** A synthetic drop from the data CLI, kept in .bench/ between runs; `stages`: with synth --stages. */
function synthetic(scale: number, lines?: number, stages = false): string {
  const dir = path.join(WORK, 'drops', `${lines ? `lines-${lines}` : `scale-${scale}`}${stages ? '-stages' : ''}`);
  if (!existsSync(path.join(dir, 'drop.json'))) {
    mkdirSync(dir, { recursive: true });
    const size = lines ? ['--lines', String(lines)] : ['--scale', String(scale)];
    const options = stages ? ['--stages'] : [];
    execFileSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'synth', dir, ...size, ...options], { cwd: ROOT, stdio: 'inherit' });
  }
  return dir;
}

const fmt = (n: number, digits = 0) => n.toFixed(digits).padStart(9);

async function throughput(dataDir: string): Promise<void> {
  const seconds = Number(args.duration);
  const rounds = Number(args.rounds);
  const service = await startService(dataDir, '0');
  const meta = await (await fetch(`http://127.0.0.1:${service.port}/budget/api/meta/`)).json();
  const organizations = Number(meta.files['organizations.parquet'].rows);
  const mixed = mixedPaths(meta.years, organizations);
  const hot = ['/budget/api/expenses/?year=2010&limit=100'];
  const answersFile = path.join(WORK, 'answers.json');
  writeFileSync(answersFile, JSON.stringify(await record(service.port, [...hot, ...mixed])));
  await stop(service);
  console.log(`\n## Throughput: drop ${meta.version} (${meta.files['expenses.parquet'].rows} expense lines), ${CONNECTIONS} connections, ${seconds} s per run, ${rounds} rounds`);
  console.log(`mixed workload: ${mixed.length} distinct URLs over the nine endpoints`);

  const targets: { name: string; start: () => Promise<Running> }[] = [
    { name: 'service', start: () => startService(dataDir, '0') },
    { name: 'service+ratelimit', start: () => startService(dataDir, '1000000000') },
    { name: 'express ceiling', start: () => startCeiling('express', answersFile) },
    { name: 'node:http ceiling', start: () => startCeiling('http', answersFile) },
  ];
  const results = new Map<string, Load[]>();
  for (let round = 0; round < rounds; round++) {
    for (const target of targets) {
      const running = await target.start();
      // Warm-up: every URL once (autocannon's connections all start at the head of the list, so a
      // short run would leave most of the mixed URLs cold), then a second of load for the JIT.
      await record(running.port, mixed);
      for (const [workload, paths] of [['hot', hot], ['mixed', mixed]] as const) {
        await drive(running.port, paths, 1);
        const load = await drive(running.port, paths, seconds);
        const key = `${workload}|${target.name}`;
        results.set(key, [...(results.get(key) ?? []), load]);
      }
      await stop(running);
    }
  }
  const median = (loads: Load[], pick: (l: Load) => number) => {
    const sorted = loads.map(pick).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  };
  for (const workload of ['hot', 'mixed']) {
    console.log(`\n${workload === 'hot' ? '(a) one hot URL' : '(b) mixed distinct URLs'}`);
    console.log('target               req/s   p50 ms   p99 ms   errors   x express   x node:http');
    const ceiling = (name: string) => median(results.get(`${workload}|${name}`)!, (l) => l.rps);
    for (const target of targets) {
      const loads = results.get(`${workload}|${target.name}`)!;
      const rps = median(loads, (l) => l.rps);
      console.log(
        `${target.name.padEnd(18)} ${fmt(rps)} ${fmt(median(loads, (l) => l.p50), 1)} ${fmt(median(loads, (l) => l.p99), 1)} ${fmt(loads.reduce((s, l) => s + l.errors, 0))} ${fmt(rps / ceiling('express ceiling'), 2)}x ${fmt(rps / ceiling('node:http ceiling'), 2)}x`,
      );
    }
  }
}

async function growth(): Promise<void> {
  const drops: [string, string][] = [
    ['sample', path.join(ROOT, 'data')],
    ['100x sample', synthetic(100)],
    ['1000x sample', synthetic(1000)],
    ['1M lines', synthetic(0, 1_000_000)],
    ['1M lines in three stages, with sources', synthetic(0, 1_000_000, true)],
  ];
  if (args.big) drops.push(['10M lines', synthetic(0, 10_000_000)]);
  console.log('\n## Growth: load and validate, memory, single uncached queries (p99 over 200 runs each, no HTTP)');
  for (const [name, dir] of drops) {
    const started = await startService(dir, '0');
    const rss = rssMb(started.child.pid);
    const loadMs = Number(/"ms":(\d+)[^\n]*"msg":"data drop loaded"/.exec(started.stderr())?.[1]);
    // DuckDB's allocator hands memory freed by the load back to the system in the background.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const serving = rssMb(started.child.pid);
    const peak = rssMb(started.child.pid, 'VmHWM');
    await stop(started);
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/bench/queries.ts', dir, '--json'], { cwd: ROOT, maxBuffer: 1 << 24 });
    const figures = JSON.parse(out.toString()) as QueryFigures;
    console.log(`\n${name}: ${figures.rows} expense lines; server load+validate ${loadMs} ms; RSS ${rss.toFixed(0)} MB when loaded, ${serving.toFixed(0)} MB 5 s later, peak ${peak.toFixed(0)} MB`);
    const worst = figures.perQuery.reduce((a, b) => (b.p99 > a.p99 ? b : a));
    for (const q of figures.perQuery) console.log(`  p50 ${fmt(q.p50, 2)} ms  p99 ${fmt(q.p99, 2)} ms  ${q.url}`);
    console.log(`  worst p99: ${worst.p99.toFixed(2)} ms (${worst.url})`);
  }
}

mkdirSync(WORK, { recursive: true });
console.log(`# npm run bench (${new Date().toISOString()}, node ${process.version}, ${(await import('node:os')).cpus().length} cores)`);
if (!args['skip-throughput']) await throughput(synthetic(Number(args.scale)));
if (!args['skip-growth']) await growth();
