/**
 * `npm run bench`: where the service stands against the framework's ceiling, and how its cost
 * grows with data. Figures that count are the ratios measured in this one run, on this machine.
 *
 *   npm run bench -- [--scale 750] [--duration 3] [--rounds 5] [--big] [--reload] [--skip-growth] [--skip-throughput] [--skip-exports]
 *
 * 1. Throughput: the real server (production build, RATE_LIMIT off, then on) on a synthetic drop
 *    of `--scale` times the sample's lines, driven at 20 connections with (a) one hot
 *    URL and (b) several hundred distinct URLs over all nine endpoints; alternating with two
 *    ceilings that answer the same bytes with no work (Express, bare node:http), and on the hot
 *    URL the bare one again spending 20 µs of JavaScript on each answer, the yardstick against
 *    which the service's distance to it is read. The load comes from blast.ts, a client lean
 *    enough not to be the bottleneck (autocannon was).
 * 2. Full exports (exports.ts): CSV, Arrow and Parquet of every line and of one year's, on 1 million
 *    lines, against DuckDB's own COPY of the same rows, with first byte and the server's RSS growth.
 * 3. Growth: load+validate time, RSS, and the p99 of single uncached queries per endpoint for the
 *    sample drop and synthetic drops of 100x and 1000x its lines, of 1 million lines, of 1 million
 *    lines in three stages with sources (synth --stages), and 10 million with --big.
 * 4. With --reload: a reload under load between two 10M-line drops (reload.ts): peak RSS, load +
 *    validate time and serving RSS against their targets.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../../src/data/sql.js';
import { blast } from './blast.js';
import type { RecordedAnswer } from './ceiling.js';
import { exportFigures, printExportFigures } from './exports.js';
import type { QueryFigures } from './queries.js';
import { reloadUnderLoad } from './reload.js';
import { cpuSplitUs, spawnAndWait, startService, type Running } from './service.js';

const ROOT = projectRoot();
const WORK = path.join(ROOT, '.bench');
const CONNECTIONS = 20;
/** The busy ceiling's JavaScript per answer, µs: about what the service's own code takes for a cache hit. */
const BUSY_US = 20;
const BUSY_CEILING = `node:http + ${BUSY_US} µs`;

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: '750' },
    duration: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '5' },
    big: { type: 'boolean', default: false },
    reload: { type: 'boolean', default: false },
    'skip-growth': { type: 'boolean', default: false },
    'skip-throughput': { type: 'boolean', default: false },
    'skip-exports': { type: 'boolean', default: false },
  },
});

/** `busyUs`: the ceiling first spends that long on each answer in a busy loop (ceiling.ts). */
function startCeiling(mode: 'express' | 'http', answersFile: string, busyUs = 0): Promise<Running> {
  return spawnAndWait(
    process.execPath,
    ['--import', 'tsx', 'scripts/bench/ceiling.ts', mode, answersFile, String(busyUs)],
    {},
    (out) => Number(/^(\d+)\n/.exec(out)?.[1]) || null,
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
  /** CPU time the target's process spent per answer during the slice (user + system), µs. */
  cpuUs: number;
  /** Of which in its own code (user) and in the kernel (system), µs. */
  userUs: number;
  systemUs: number;
}

/**
 * The lean client (blast.ts): autocannon costs about what a bare server does per request, and
 * capped every target alike. With `pid`, the target's CPU per answer too: unlike req/s, which on
 * a busy shared machine says how often the scheduler ran the target, it is what one answer costs.
 */
async function drive(port: number, paths: readonly string[], seconds: number, headers?: Record<string, string>, pid?: number): Promise<Load> {
  const before = pid ? cpuSplitUs(pid) : undefined;
  const load = await blast(port, paths, seconds, CONNECTIONS, headers);
  const after = pid ? cpuSplitUs(pid) : undefined;
  const perAnswer = (field: 'user' | 'system') => (before && after ? (after[field] - before[field]) / Math.max(1, load.requests) : NaN);
  const userUs = perAnswer('user');
  const systemUs = perAnswer('system');
  return { ...load, cpuUs: userUs + systemUs, userUs, systemUs };
}

/** Each URL's answer as the service wrote it (uncompressed): status, header lines as on the wire, body bytes. */
async function record(port: number, paths: readonly string[]): Promise<Record<string, RecordedAnswer>> {
  const answers: Record<string, RecordedAnswer> = {};
  for (const p of paths) {
    answers[p] = await new Promise<RecordedAnswer>((resolve, reject) => {
      http
        .get(`http://127.0.0.1:${port}${p}`, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const rawHeaders: string[] = [];
            for (let i = 0; i < res.rawHeaders.length; i += 2) {
              // node adds these to every answer, the service's and the ceilings' alike.
              if (!['date', 'connection', 'keep-alive'].includes(res.rawHeaders[i]!.toLowerCase()))
                rawHeaders.push(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
            }
            resolve({ status: res.statusCode!, rawHeaders, body: Buffer.concat(chunks).toString('base64') });
          });
        })
        .on('error', reject);
    });
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
  for (let offset = 0; offset < 2000; offset += 100)
    paths.push(`${api}/expenses/?offset=${offset}`, `${api}/organization/?offset=${offset}&limit=20`);
  return [...new Set(paths)];
}

/** A synthetic drop from the data CLI, kept in .bench/ between runs; `stages`: with synth --stages; `seed`: synth --seed. */
function synthetic(scale: number, lines?: number, stages = false, seed = 1): string {
  const dir = path.join(
    WORK,
    'drops',
    `${lines ? `lines-${lines}` : `scale-${scale}`}${stages ? '-stages' : ''}${seed === 1 ? '' : `-seed-${seed}`}`,
  );
  if (!existsSync(path.join(dir, 'drop.json'))) {
    mkdirSync(dir, { recursive: true });
    const size = lines ? ['--lines', String(lines)] : ['--scale', String(scale)];
    const options = [...(stages ? ['--stages'] : []), '--seed', String(seed)];
    execFileSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'synth', dir, ...size, ...options], { cwd: ROOT, stdio: 'inherit' });
  }
  return dir;
}

const fmt = (n: number, digits = 0) => n.toFixed(digits).padStart(9);

/** The encodings the wire-bytes figure compares, as a client asks for them. */
const ASKED = { identity: 'identity', gzip: 'gzip', br: 'gzip, deflate, br' } as const;

/** Bytes of every answer's body on the wire for each Accept-Encoding (each URL fetched once per encoding, raw). */
async function wireBytes(port: number, paths: string[]): Promise<Record<keyof typeof ASKED, number>> {
  const totals = { identity: 0, gzip: 0, br: 0 };
  for (const [name, accept] of Object.entries(ASKED) as [keyof typeof ASKED, string][]) {
    for (const p of paths) {
      totals[name] += await new Promise<number>((resolve, reject) => {
        http
          .get(`http://127.0.0.1:${port}${p}`, { headers: { 'accept-encoding': accept } }, (res) => {
            let n = 0;
            res.on('data', (c: Buffer) => (n += c.length));
            res.on('end', () => resolve(n));
          })
          .on('error', reject);
      });
    }
  }
  return totals;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** One line of the targets table: the figure, the target, and whether it is met. */
function verdict(name: string, value: number, target: number, higherIsBetter = true, unit: 'x' | '%' | 'ms' | 's' | 'GB' | '' = 'x'): string {
  const met = higherIsBetter ? value >= target : value <= target;
  const show = (n: number) =>
    unit === '%' ? `${(n * 100).toFixed(1)}%` : unit === 'x' ? `${n.toFixed(2)}x` : unit === '' ? String(n) : `${n.toFixed(2)} ${unit}`;
  return `${name.padEnd(58)} ${show(value).padStart(8)}   target ${higherIsBetter ? '>=' : '<='} ${show(target).padEnd(7)} ${met ? 'met' : 'NOT MET'}`;
}

/**
 * Every target runs at once, idle but for the one being driven; the workloads are driven in short
 * slices, target after target, round after round, and each ratio is taken within a round, then the
 * median over rounds. On a machine whose load drifts (shared, busy), slices side by side compare
 * like with like far better than long runs one after the other.
 */
async function throughput(dataDir: string): Promise<void> {
  const seconds = Number(args.duration);
  const rounds = Number(args.rounds);
  // Recorded with rate limiting on, as the figures with targets are: the ceilings replay its
  // RateLimit headers too, so that both sides send the very same bytes.
  const service = await startService(dataDir, '1000000000');
  const meta = await (await fetch(`http://127.0.0.1:${service.port}/budget/api/meta/`)).json();
  const organizations = Number(meta.files['organizations.parquet'].rows);
  const mixed = mixedPaths(meta.years, organizations);
  const hot = ['/budget/api/expenses/?year=2010&limit=100'];
  const answersFile = path.join(WORK, 'answers.json');
  writeFileSync(answersFile, JSON.stringify(await record(service.port, [...hot, ...mixed])));
  await record(service.port, mixed);
  const bytes = await wireBytes(service.port, mixed);
  await stop(service);
  const load = loadAverage();
  console.log(
    `\n## Throughput: drop ${meta.version} (${meta.files['expenses.parquet'].rows} expense lines), ${CONNECTIONS} connections, ${seconds} s slices, ${rounds} rounds; load average before: ${load}`,
  );
  console.log(`mixed workload: ${mixed.length} distinct URLs over the nine endpoints`);

  const BR = { 'accept-encoding': ASKED.br };
  const targets: { name: string; start: () => Promise<Running>; compressed?: boolean; hotOnly?: boolean }[] = [
    { name: 'service', start: () => startService(dataDir, '0') },
    { name: 'service+ratelimit', start: () => startService(dataDir, '1000000000'), compressed: true },
    // The same build again in a process of its own: how far two processes of one build read apart
    // in the same run, against which rate limiting's cost (one process against another) is read.
    { name: 'service+rl, again', start: () => startService(dataDir, '1000000000') },
    { name: 'express ceiling', start: () => startCeiling('express', answersFile) },
    { name: 'node:http ceiling', start: () => startCeiling('http', answersFile) },
    // The yardstick for the ratio to node:http: what a known amount of JavaScript per answer costs
    // a bare server on this machine, kernel time included (docs/performance.md#a-slower-server-pays-more-per-answer-2026-11-29).
    { name: BUSY_CEILING, start: () => startCeiling('http', answersFile, BUSY_US), hotOnly: true },
  ];
  const running = await Promise.all(targets.map((t) => t.start()));
  const workloads = [
    ['hot', hot, undefined],
    ['mixed', mixed, undefined],
    ['hot, br asked', hot, BR],
    ['mixed, br asked', mixed, BR],
  ] as const;
  const results = new Map<string, Load[]>();
  try {
    // Warm-up: every URL once (a short slice would time some mixed URLs cold), then a second of
    // load for the JIT.
    for (const [i, r] of running.entries()) {
      await record(r.port, mixed);
      for (const [, paths, headers] of workloads) if (!headers || targets[i]!.compressed) await drive(r.port, paths, 1, headers);
    }
    for (let round = 0; round < rounds; round++) {
      // Each round starts at the next target, so that a target's place in the round is not
      // read as its cost: three processes of one build, driven in a fixed order, read 50.6, 57.4
      // and 59.8 µs of CPU an answer in that order (2026-11-29), and rate limiting's cost was
      // read from the first target against the second. Over as many rounds as targets, each
      // target is driven once in every place (docs/performance.md#the-order-of-the-slices-2026-11-29).
      const order = [...targets.keys()].map((k) => (k + round) % targets.length);
      for (const [workload, paths, headers] of workloads) {
        for (const i of order) {
          const target = targets[i]!;
          if ((headers && !target.compressed) || (target.hotOnly && workload !== 'hot')) continue;
          const key = `${workload}|${target.name}`;
          results.set(key, [...(results.get(key) ?? []), await drive(running[i]!.port, paths, seconds, headers, running[i]!.child.pid)]);
        }
      }
    }
  } finally {
    await Promise.all(running.map(stop));
  }
  const rpsOf = (workload: string, name: string) => results.get(`${workload}|${name}`)!.map((l) => l.rps);
  /** The median over rounds of a ratio taken within each round. */
  const ratio = (a: [string, string], b: [string, string]) => {
    const x = rpsOf(...a);
    const y = rpsOf(...b);
    return median(x.map((v, i) => v / y[i]!));
  };
  /** The median over rounds of b's CPU per answer over a's (within each round): what a's throughput would be, as a share of b's, on cores of their own. */
  const cpuRatio = (a: [string, string], b: [string, string]) => {
    const x = results.get(a.join('|'))!.map((l) => l.cpuUs);
    const y = results.get(b.join('|'))!.map((l) => l.cpuUs);
    return median(x.map((v, i) => y[i]! / v));
  };
  for (const [workload] of workloads) {
    console.log(`\n${workload}`);
    console.log(
      'target               req/s   p50 ms   p99 ms   errors   x express   x node:http   CPU µs/answer (user + kernel)   x node:http by CPU',
    );
    for (const target of targets) {
      const loads = results.get(`${workload}|${target.name}`);
      if (!loads) continue;
      const base = workload.startsWith('hot') ? 'hot' : 'mixed';
      console.log(
        `${target.name.padEnd(18)} ${fmt(median(loads.map((l) => l.rps)))} ${fmt(median(loads.map((l) => l.p50)), 1)} ${fmt(median(loads.map((l) => l.p99)), 1)} ${fmt(loads.reduce((s, l) => s + l.errors, 0))} ${fmt(ratio([workload, target.name], [base, 'express ceiling']), 2)}x ${fmt(ratio([workload, target.name], [base, 'node:http ceiling']), 2)}x   ${fmt(median(loads.map((l) => l.cpuUs)), 1)} (${median(loads.map((l) => l.userUs)).toFixed(1)} + ${median(loads.map((l) => l.systemUs)).toFixed(1)})  ${fmt(cpuRatio([workload, target.name], [base, 'node:http ceiling']), 2)}x`,
      );
    }
  }
  const rl = (w: string) => 1 - ratio([w, 'service+ratelimit'], [w, 'service']);
  /** The cost in each round, lowest to highest: on a shared machine the spread says how far to trust the median. */
  const rlRounds = (w: string) => {
    const x = rpsOf(w, 'service+ratelimit');
    const y = rpsOf(w, 'service');
    const costs = x.map((v, i) => 1 - v / y[i]!).sort((a, b) => a - b);
    return `  rounds: ${costs.map((c) => `${(100 * c).toFixed(1)}%`).join(' ')}`;
  };
  console.log(
    `\nbytes on the wire for the ${mixed.length} mixed URLs: identity ${(bytes.identity / 2 ** 20).toFixed(2)} MB, gzip ${(bytes.gzip / 2 ** 20).toFixed(2)} MB (${(bytes.identity / bytes.gzip).toFixed(1)}x smaller), br ${(bytes.br / 2 ** 20).toFixed(2)} MB (${(bytes.identity / bytes.br).toFixed(1)}x smaller)`,
  );
  console.log('\n### Targets (ratios within a round, median over rounds)');
  console.log(verdict('hot URL, rate limiting on, x express ceiling', ratio(['hot', 'service+ratelimit'], ['hot', 'express ceiling']), 0.9));
  console.log(verdict('mixed URLs, rate limiting on, x express ceiling', ratio(['mixed', 'service+ratelimit'], ['mixed', 'express ceiling']), 0.85));
  console.log(verdict('rate limiting cost, hot URL', rl('hot'), 0.1, false, '%') + rlRounds('hot'));
  console.log(verdict('rate limiting cost, mixed URLs', rl('mixed'), 0.1, false, '%') + rlRounds('mixed'));
  // By CPU per answer: what the limiter costs each answer, whatever else runs on the machine.
  // Each workload judged on its own: a verdict of the hot URL's alone once read "met" beside 11.0% for the mixed URLs.
  for (const [workload, urls] of [
    ['hot', 'hot URL'],
    ['mixed', 'mixed URLs'],
  ] as const) {
    console.log(
      verdict(`rate limiting cost by CPU per answer, ${urls}`, 1 - cpuRatio([workload, 'service+ratelimit'], [workload, 'service']), 0.1, false, '%'),
    );
  }
  const apart = (w: string) => Math.abs(1 - ratio([w, 'service+rl, again'], [w, 'service+ratelimit']));
  const apartByCpu = (w: string) => Math.abs(1 - cpuRatio([w, 'service+rl, again'], [w, 'service+ratelimit']));
  const percent = (x: number) => `${(100 * x).toFixed(1)}%`;
  console.log(
    `${'two processes of one build, hot / mixed URLs'.padEnd(58)} ${percent(apart('hot')).padStart(7)}    (no target: the noise under the cost above) mixed ${percent(apart('mixed'))}; by CPU ${percent(apartByCpu('hot'))} / ${percent(apartByCpu('mixed'))}`,
  );
  console.log(
    verdict('hot URL, rate limiting on, x node:http ceiling (req/s)', ratio(['hot', 'service+ratelimit'], ['hot', 'node:http ceiling']), 0.6),
  );
  console.log(
    verdict("the same by CPU per answer (node:http's over the service's)", cpuRatio(['hot', 'service+ratelimit'], ['hot', 'node:http ceiling']), 0.6),
  );
  // The distance to node:http in the units of the yardstick: how much more CPU an answer costs
  // than the ceiling's, in the process's own code and in the kernel, beside the same for a bare
  // server doing BUSY_US of JavaScript per answer.
  const extra = (name: string, field: 'userUs' | 'systemUs') => {
    const x = results.get(`hot|${name}`)!.map((l) => l[field]);
    const y = results.get('hot|node:http ceiling')!.map((l) => l[field]);
    return median(x.map((v, i) => v - y[i]!));
  };
  // A slice can spend less in the kernel than the ceiling's: the sign is printed as it is.
  const signed = (us: number) => {
    const tenths = Math.round(us * 10) / 10;
    return `${tenths < 0 ? '−' : '+'}${Math.abs(tenths).toFixed(1)}`;
  };
  for (const [name, label] of [
    ['service+ratelimit', "hot URL, CPU an answer beyond node:http's: the service"],
    [BUSY_CEILING, `the same, node:http with ${BUSY_US} µs of JS per answer`],
  ] as const) {
    const user = extra(name, 'userUs');
    const kernel = extra(name, 'systemUs');
    console.log(
      `${label.padEnd(58)} ${`${signed(user + kernel)} µs`.padStart(8)}   (no target) user ${signed(user)}, kernel ${signed(kernel)}; x node:http by CPU ${cpuRatio(['hot', name], ['hot', 'node:http ceiling']).toFixed(2)}x`,
    );
  }
  console.log(
    `${'hot URL with br asked, x the same uncompressed'.padEnd(58)} ${ratio(['hot, br asked', 'service+ratelimit'], ['hot', 'service+ratelimit']).toFixed(2).padStart(7)}x   (no target)`,
  );
  console.log(
    `${'mixed URLs with br asked, x the same uncompressed'.padEnd(58)} ${ratio(['mixed, br asked', 'service+ratelimit'], ['mixed', 'service+ratelimit']).toFixed(2).padStart(7)}x   (no target)`,
  );
  if (!args.reload)
    console.log(`${'peak RSS during a reload under load at 10M lines'.padEnd(58)} ${'-'.padStart(8)}   target <= 3.0 GB  measured with --reload`);
}

/** Issue 16's memory targets: a reload under load between two 10M-line drops (reload.ts). */
async function reload(): Promise<void> {
  const figures = await reloadUnderLoad(synthetic(0, 10_000_000), synthetic(0, 10_000_000, false, 2));
  const gb = (mb: number) => mb / 1024;
  console.log(
    `\n## Reload under load at 10M lines: ${figures.requests} requests during the reload (4 connections, cached and uncached), ${figures.failed} failed; SIGHUP to the new version in /meta/ ${(figures.reloadMs / 1000).toFixed(1)} s`,
  );
  console.log(`RSS serving the first drop ${gb(figures.servingBeforeMb).toFixed(2)} GB, the second ${gb(figures.servingAfterMb).toFixed(2)} GB`);
  console.log(
    `then two more reloads with no load: RSS serving after each ${figures.servingAfterReloadsMb.map((mb) => `${gb(mb).toFixed(2)} GB`).join(', ')}`,
  );
  console.log('\n### Targets (one run)');
  console.log(verdict('peak RSS during a reload under load at 10M lines', gb(figures.peakMb), 3.0, false, 'GB'));
  console.log(verdict('load + validate at 10M lines (start-up)', figures.loadMs / 1000, 20, false, 's'));
  console.log(
    verdict(
      'serving RSS at 10M lines (the most after any reload)',
      gb(Math.max(figures.servingBeforeMb, figures.servingAfterMb, ...figures.servingAfterReloadsMb)),
      1.6,
      false,
      'GB',
    ),
  );
}

/** Full exports against DuckDB's own COPY of the same rows, on 1 million lines (10 million with --big too). */
async function exports(): Promise<void> {
  const drops: [string, string][] = [['1M lines', synthetic(0, 1_000_000)]];
  if (args.big) drops.push(['10M lines', synthetic(0, 10_000_000)]);
  for (const [name, dir] of drops) {
    console.log(
      `\n## Full exports: ${name}; the first request, then the median of 2 more of the unchanged drop (sent from the export's file); COPY: median of 3; load average before: ${loadAverage()}`,
    );
    const figures = await exportFigures(dir, 3);
    printExportFigures(figures);
    console.log('\n### Targets');
    for (const f of figures) console.log(verdict(`${f.format} export, ${f.scope}, first request x DuckDB COPY`, f.ratio, 0.5));
    for (const f of figures) console.log(verdict(`${f.format} export, ${f.scope}, asked again x DuckDB COPY`, f.againRatio, 1.0));
    for (const f of figures) {
      for (const c of f.againCompressed ?? [])
        console.log(verdict(`${f.format} export, ${f.scope}, asked again with ${c.encoding} x COPY`, c.ratio, 1.0));
    }
    const firstByte = Math.max(...figures.map((f) => f.firstByteMs));
    console.log(
      `${'first byte of a full export, the slowest'.padEnd(58)} ${`${firstByte.toFixed(0)} ms`.padStart(8)}   target <= 100 ms  ${firstByte <= 100 ? 'met' : 'NOT MET'}`,
    );
    console.log(
      `${'server RSS growth during an export, the largest'.padEnd(58)} ${`${Math.max(...figures.map((f) => f.rssGrowthMb)).toFixed(0)} MB`.padStart(8)}   (bounded: one batch or row group, whatever the export's size)`,
    );
  }
}

async function growth(): Promise<void> {
  const targetsAtOneMillion: string[] = [];
  const drops: [string, string][] = [
    ['sample', path.join(ROOT, 'data')],
    ['100x sample', synthetic(100)],
    ['1000x sample', synthetic(1000)],
    ['1M lines', synthetic(0, 1_000_000)],
    ['1M lines in three stages, with sources', synthetic(0, 1_000_000, true)],
  ];
  if (args.big) drops.push(['10M lines', synthetic(0, 10_000_000)]);
  console.log(
    `\n## Growth: load and validate, memory, single uncached queries (p99 over 200 runs each, no HTTP); load average before: ${loadAverage()}`,
  );
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
    console.log(
      `\n${name}: ${figures.rows} expense lines; server load+validate ${loadMs} ms; RSS ${rss.toFixed(0)} MB when loaded, ${serving.toFixed(0)} MB 5 s later, peak ${peak.toFixed(0)} MB`,
    );
    const worst = figures.perQuery.reduce((a, b) => (b.p99 > a.p99 ? b : a));
    for (const q of figures.perQuery)
      console.log(`  p50 ${fmt(q.p50, 2)} ms  p99 ${fmt(q.p99, 2)} ms  ${q.kind.padEnd(7)} ${q.url}${q.errors ? `  ${q.errors} ERRORS` : ''}`);
    console.log(`  worst p99: ${worst.p99.toFixed(2)} ms (${worst.url})`);
    console.log(
      `  the machine, in the same process: 200 runs of about 2 ms of pure JS, p50 ${fmt(figures.pureJs.p50, 2)} ms, p99 ${fmt(figures.pureJs.p99, 2)} ms`,
    );
    if (name.startsWith('1M lines')) targetsAtOneMillion.push(...uncachedTargets(name, figures));
  }
  console.log(`\n### Targets at 1M lines (uncached, p99 over 200 runs of each query); load average after: ${loadAverage()}`);
  for (const line of targetsAtOneMillion) console.log(line);
}

/**
 * Uncached p99 <= 10 ms for every kind of answer at 1M lines, with and without stages: pages (paged
 * list endpoints: expenses, resources, organization), roll-ups (totals with a measure and a change,
 * categories, organization stats, debt, outstanding debt, deficit, sources) and trees
 * (hierarchy=true), and no errors; scripts/bench/queries.ts says which query is which.
 */
function uncachedTargets(name: string, figures: QueryFigures): string[] {
  const drop = name.replace(' in three stages, with sources', ', stages');
  const lines: string[] = [];
  for (const kind of ['page', 'roll-up', 'tree'] as const) {
    const counted = figures.perQuery.filter((q) => q.kind === kind);
    const worst = counted.reduce((a, b) => (b.p99 > a.p99 ? b : a));
    lines.push(verdict(`${drop}: worst ${kind} p99 of ${counted.length} queries`, worst.p99, 10, false, 'ms') + `  ${worst.url}`);
  }
  const errors = figures.perQuery.reduce((sum, q) => sum + q.errors, 0);
  lines.push(verdict(`${drop}: errors`, errors, 0, false, ''));
  return lines;
}

function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(1))
    .join(', ');
}

mkdirSync(WORK, { recursive: true });
console.log(`# npm run bench (${new Date().toISOString()}, node ${process.version}, ${cpus().length} cores)`);
if (!args['skip-throughput']) await throughput(synthetic(Number(args.scale)));
if (!args['skip-exports']) await exports();
if (!args['skip-growth']) await growth();
if (args.reload) await reload();
