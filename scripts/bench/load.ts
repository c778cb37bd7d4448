/**
 * Where a drop's load spends its time: loads DIR as the server does (load + validate + derive) and
 * prints each statement DuckDB ran with its wall time and the process's CPU time meanwhile, the
 * costliest first, then the totals. CPU time says what a statement costs whatever else the machine
 * runs; the load's wall time on a quiet machine is at least its CPU time over the cores.
 *
 *   npx tsx scripts/bench/load.ts DIR [--top 30] [--memory-limit 1.5GB]
 */
import { parseArgs } from 'node:util';
import { DuckDBConnection } from '@duckdb/node-api';
import { loadDrop } from '../../src/data/drop.js';

const { positionals, values: args } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '30' }, 'memory-limit': { type: 'string' } },
});

const statements: { ms: number; cpuMs: number; sql: string }[] = [];
let depth = 0;
// runAndReadAll runs through run: only the outermost call is a statement of the load's.
const prototype = DuckDBConnection.prototype as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
for (const method of ['run', 'runAndReadAll', 'stream', 'streamAndReadAll']) {
  const original = prototype[method]!;
  prototype[method] = async function (this: DuckDBConnection, sql: unknown, ...rest: unknown[]) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    depth++;
    try {
      return await original.call(this, sql, ...rest);
    } finally {
      depth--;
      const used = process.cpuUsage(cpu);
      if (depth === 0)
        statements.push({ ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, sql: String(sql).replace(/\s+/g, ' ') });
    }
  };
}

const cpu = process.cpuUsage();
const started = performance.now();
const drop = await loadDrop(positionals[0] ?? 'data', args['memory-limit'] ? { memoryLimit: args['memory-limit'] } : {});
const totalMs = performance.now() - started;
const used = process.cpuUsage(cpu);
drop.instance.closeSync();

console.log('   wall ms     CPU ms  statement');
for (const s of [...statements].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, Number(args.top)))
  console.log(`${s.ms.toFixed(0).padStart(9)}  ${s.cpuMs.toFixed(0).padStart(9)}  ${s.sql.slice(0, 110)}`);
console.log(
  `load + validate ${(totalMs / 1000).toFixed(1)} s, CPU ${((used.user + used.system) / 1000 / 1000).toFixed(1)} s, ${statements.length} statements, RSS after ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`,
);
