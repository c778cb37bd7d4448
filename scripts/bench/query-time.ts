/**
 * Where an uncached answer's time goes inside DuckDB: loads DIR as the server does, records the
 * statements (and their parameters) that the bench's sample queries run (queries.ts), then runs
 * each statement prepared, bound as the server binds it, with DuckDB's detailed profiling on, and
 * prints the medians of 25 runs: the wall time of bind + run, DuckDB's own latency, its planning
 * (binder, optimizers, physical plan) and its operators' time; the rest of the latency is setting
 * up and tearing down the plan's operators and states.
 *
 * DuckDB plans a prepared statement with parameters again at every run, with the values bound
 * (measured here: the planner and optimizers appear in every run's profile), so a statement's
 * floor is its plan, however little data it reads (docs/performance.md#what-is-still-slow).
 *
 * The served database is locked (no settings, no files), so the drop is loaded into a database
 * file, and the statements are profiled on a copy of it in the memory of a DuckDB instance of
 * their own.
 *
 *   npx tsx scripts/bench/query-time.ts DIR [--only /budget/api/debt/]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { loadDrop } from '../../src/data/drop.js';
import { variantOf } from '../../src/data/sql.js';
import { keepLinesInOrder } from '../../src/data/derived.js';
import { bindTo, ServedDrop, Store } from '../../src/data/store.js';
import type { Params } from '../../src/data/lease.js';
import { ENDPOINTS } from '../../src/api/endpoints/index.js';
import { QUERY_SAMPLES } from './queries.js';

const { positionals, values: args } = parseArgs({ allowPositionals: true, options: { only: { type: 'string' } } });
const dir = positionals[0] ?? 'data';
const work = mkdtempSync(path.join(tmpdir(), 'budget-query-time-'));
const RUNS = 25;

try {
  // The statements each sample URL runs, as the endpoint binds them.
  const statements: { url: string; name: string; params: Params }[] = [];
  let url = '';
  const query = ServedDrop.prototype.query;
  ServedDrop.prototype.query = function (this: ServedDrop, name: string, params: Params = {}, signal?: AbortSignal) {
    statements.push({ url, name, params });
    return query.call(this, name, params, signal);
  };
  const store = new Store();
  store.swap(await loadDrop(dir, { databaseFile: path.join(work, 'drop.duckdb') }));
  for (const endpoint of ENDPOINTS) {
    for (const sample of QUERY_SAMPLES[endpoint.path] ?? ['']) {
      url = `${endpoint.path}${sample ? `?${sample}` : ''}`;
      if (args.only && !url.startsWith(args.only)) continue;
      const lease = store.lease()!;
      try {
        await endpoint.bind(url).answer(lease);
      } finally {
        lease.release();
      }
    }
  }
  store.close();
  ServedDrop.prototype.query = query;

  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  // Copied into memory, as the server holds a drop of fewer than 4M lines (uncompressed).
  await connection.run(`ATTACH '${path.join(work, 'drop.duckdb')}' AS loaded (READ_ONLY)`);
  await connection.run(`ATTACH ':memory:' AS budget`);
  await connection.run('COPY FROM DATABASE loaded TO budget');
  await connection.run('DETACH loaded');
  await connection.run('USE budget');
  await keepLinesInOrder(connection);
  const profile = path.join(work, 'profile.json');
  await connection.run(`PRAGMA enable_profiling = 'json'`);
  await connection.run(`PRAGMA profiling_mode = 'detailed'`);
  await connection.run(`SET profiling_output = '${profile}'`);

  const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;
  const ms = (n: number) => n.toFixed(2).padStart(8);
  console.log(
    `${'wall'.padStart(8)} ${'latency'.padStart(8)} ${'plan'.padStart(8)} ${'operators'.padStart(9)} ${'rest'.padStart(8)}  ms, medians of ${RUNS} runs  statement  URL`,
  );
  for (const { url, name, params } of statements) {
    // As the server prepares it: without the filters the request leaves NULL (sql.ts variantOf).
    const variant = await variantOf(name, params);
    const statement = await connection.prepare(variant.sql);
    const runs: { wall: number; latency: number; plan: number; operators: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      bindTo(statement, variant, params);
      const started = performance.now();
      await statement.run();
      const wall = performance.now() - started;
      const p = JSON.parse(readFileSync(profile, 'utf8')) as Record<string, number>;
      runs.push({
        wall,
        latency: p.latency! * 1000,
        plan: ((p.planner ?? 0) + (p.all_optimizers ?? 0) + (p.physical_planner ?? 0)) * 1000,
        operators: p.cpu_time! * 1000,
      });
    }
    const m = (key: keyof (typeof runs)[number]) => median(runs.map((r) => r[key]));
    console.log(
      `${ms(m('wall'))} ${ms(m('latency'))} ${ms(m('plan'))} ${ms(m('operators')).padStart(9)} ${ms(m('latency') - m('plan') - m('operators'))}  ${name}  ${url}`,
    );
  }
  connection.closeSync();
  instance.closeSync();
} finally {
  rmSync(work, { recursive: true, force: true });
}
