/**
 * Full exports against DuckDB's own COPY of the same rows, measured side by side in one run.
 *
 *   npx tsx scripts/bench/exports.ts DROP_DIR [--runs 3]     (after npm run build)
 *
 * For CSV, Arrow and Parquet, of every expense line and of one year's: the server's export over
 * HTTP (first byte, total, size, the server's RSS growth while it runs), as a first request (on a
 * second server that keeps no export file, EXPORT_CACHE_MB=0, so that every run is one: the median
 * of the runs, the worst first byte) and asked again (sent from its file), and the time DuckDB takes
 * to COPY the same rows (the endpoint's own scan, names joined, in id order) to a file with its
 * CSV and Parquet writers, in a database loaded by the same code with the same settings. Arrow
 * has no DuckDB writer to race; it is set against the faster of the two, Parquet. The CSV is also
 * asked again compressed (br, gzip), as browsers ask for it.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { loadDrop } from '../../src/data/drop.js';
import { scratchDir } from '../../src/data/lockdown.js';
import { identifier } from '../../src/data/export-sql.js';
import { readSql } from '../../src/data/sql.js';
import { bound as bindings, Store } from '../../src/data/store.js';
import { expenses } from '../../src/api/endpoints/lines.js';
import type { NamedBy } from '../../src/formats/format.js';
import { cpuUs, startService, type Running } from './service.js';

const execFileAsync = promisify(execFile);
const TIMED_DOWNLOAD = fileURLToPath(new URL('./timed-download.ts', import.meta.url));

export interface ExportFigure {
  format: 'csv' | 'arrow' | 'parquet';
  scope: string;
  path: string;
  rows: number;
  firstByteMs: number;
  totalMs: number;
  bytes: number;
  rssGrowthMb: number;
  copyMs: number;
  /** The first request of an export (the median of the runs on a server keeping no file) over COPY's: COPY time / its time. */
  ratio: number;
  /** The same export asked again of the unchanged drop (sent from its file): median time, and COPY time over it. */
  againMs: number;
  againRatio: number;
  /** CSV: the same, asked again compressed (once one request has had the compressed bytes made). */
  againCompressed?: { encoding: 'br' | 'gzip'; ms: number; ratio: number }[];
}

/**
 * The export's rows as DuckDB alone would write them: the endpoint's scan with its names joined,
 * in the scan's order. A join does not keep it, so the scan is numbered by row_number() OVER ()
 * (which does) and the result ordered by that: what DuckDB must do to write these rows itself.
 */
async function namedInOrder(name: string, columns: readonly string[], named: Readonly<Record<string, NamedBy>> = {}): Promise<string> {
  const joins: string[] = [];
  const select = columns.map((column) => {
    const by = named[column];
    if (!by) return `line.${identifier(column)}`;
    const alias = `name_${joins.length}`;
    joins.push(`LEFT JOIN ${identifier(by.table)} AS ${alias} ON ${alias}.id = line.${identifier(by.by)}`);
    return `${alias}.${identifier(by.column)} AS ${identifier(column)}`;
  });
  const scan = (await readSql(name)).replace(/;\s*$/, '');
  return [
    `SELECT ${select.join(', ')}`,
    `FROM (SELECT *, row_number() OVER () AS export_row FROM (\n${scan}\n)) AS line`,
    ...joins,
    'ORDER BY line.export_row',
  ].join('\n');
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
}

/**
 * Waits until a process has been all but idle for 200 ms (at most 3 s). The fresh server goes on
 * working for a while after an export's last byte (collecting what it left behind); asked at once, the
 * kept server shared the 2 cores with that and its "asked again" read 41-147 ms in 5 of 14 tries
 * for one year's Arrow, against 11-20 ms (once 92) 1.5 s later (a scratch script, 2026-11-29).
 */
async function quiet(pid: number): Promise<void> {
  const until = performance.now() + 3_000;
  while (performance.now() < until) {
    const before = cpuUs(pid);
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (cpuUs(pid) - before < 20_000) return;
  }
}

/**
 * Downloads `url` to nowhere in a process of its own (timed-download.ts), timing the first byte
 * and the end, and samples the server's RSS meanwhile.
 */
async function download(
  url: string,
  pid: number,
  encoding = 'identity',
): Promise<{ firstByteMs: number; totalMs: number; bytes: number; rssGrowthMb: number }> {
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  try {
    // This process's own loader flags (tsx's) run the TypeScript script.
    const { stdout } = await execFileAsync(process.execPath, [...process.execArgv, TIMED_DOWNLOAD, url, encoding]);
    const { status, firstByteMs, totalMs, bytes } = JSON.parse(stdout) as { status: number; firstByteMs: number; totalMs: number; bytes: number };
    if (status !== 200) throw new Error(`${url}: ${status}`);
    return { firstByteMs, totalMs, bytes, rssGrowthMb: peak - before };
  } finally {
    clearInterval(sampler);
  }
}

export async function exportFigures(dir: string, runs = 3, service?: Running): Promise<ExportFigure[]> {
  const drop = await loadDrop(dir);
  const store = new Store(1);
  store.swap(drop);
  const lease = store.lease()!;
  const connection = await drop.connect();
  const server = service ?? (await startService(dir, '0'));
  // Keeps no export file: each of its exports is a first request.
  const fresh = await startService(dir, '0', [], { EXPORT_CACHE_MB: '0' });
  const year = drop.years[Math.floor(drop.years.length / 2)]!;
  const figures: ExportFigure[] = [];
  try {
    for (const [scope, query] of [
      ['all lines', ''],
      [`year ${year}`, `year=${year}`],
    ] as const) {
      // The statement the server runs for this export, and its row count.
      const bound = expenses.bind(`/budget/api/expenses/?${query}`);
      const whole = bound.exportAll!(lease);
      if (Symbol.asyncIterator in whole) throw new Error('expenses/ exports from a query');
      const statement = await namedInOrder(
        whole.sql,
        bound.table.columns.map((c) => c.name),
        whole.named,
      );
      const { values, types } = bindings(whole.params);
      const [count] = (await connection.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM (${statement})`, values, types)).getRows();
      const rows = Number(count![0]);
      const copyMs: Record<'csv' | 'parquet', number[]> = { csv: [], parquet: [] };
      type Download = Awaited<ReturnType<typeof download>>;
      const first: Record<ExportFigure['format'], Download[]> = { csv: [], arrow: [], parquet: [] };
      const again: Record<ExportFigure['format'], Download[]> = { csv: [], arrow: [], parquet: [] };
      const urlOf = (on: Running, format: string) => `http://127.0.0.1:${on.port}/budget/api/expenses/?${query ? `${query}&` : ''}format=${format}`;
      // The kept server writes each export's file once, then sends it from there.
      for (const format of ['csv', 'arrow', 'parquet'] as const) await download(urlOf(server, format), server.child.pid!);
      for (let run = 0; run < runs; run++) {
        for (const format of ['csv', 'parquet'] as const) {
          // The one directory a locked drop's DuckDB may write to (src/data/lockdown.ts).
          const file = path.join(await scratchDir(), `bench-copy-${process.pid}.${format}`);
          const options = format === 'csv' ? `FORMAT csv, HEADER, NEW_LINE '\\r\\n'` : 'FORMAT parquet';
          const started = performance.now();
          await connection.run(`COPY (${statement}) TO '${file}' (${options})`, values, types);
          copyMs[format].push(performance.now() - started);
          rmSync(file, { force: true });
        }
        for (const format of ['csv', 'arrow', 'parquet'] as const) {
          first[format].push(await download(urlOf(fresh, format), fresh.child.pid!));
          // "Asked again" is the kept server's figure alone, as COPY's is DuckDB's alone.
          await quiet(fresh.child.pid!);
          again[format].push(await download(urlOf(server, format), server.child.pid!));
        }
      }
      // Asked compressed, as browsers and curl --compressed ask: the first such request compresses
      // the kept file and keeps what it makes too; the runs after are sent from that file.
      const againCompressed = [];
      for (const encoding of ['br', 'gzip'] as const) {
        await download(urlOf(server, 'csv'), server.child.pid!, encoding);
        const ms: number[] = [];
        for (let run = 0; run < runs; run++) ms.push((await download(urlOf(server, 'csv'), server.child.pid!, encoding)).totalMs);
        againCompressed.push({ encoding, ms: median(ms), ratio: median(copyMs.csv) / median(ms) });
      }
      for (const format of ['csv', 'arrow', 'parquet'] as const) {
        const copy = median(copyMs[format === 'arrow' ? 'parquet' : format]);
        const totalMs = median(first[format].map((r) => r.totalMs));
        const againMs = median(again[format].map((r) => r.totalMs));
        figures.push({
          format,
          scope,
          path: `/budget/api/expenses/?${query ? `${query}&` : ''}format=${format}`,
          rows,
          firstByteMs: Math.max(...first[format].map((r) => r.firstByteMs)),
          totalMs,
          bytes: first[format][0]!.bytes,
          rssGrowthMb: Math.max(...first[format].map((r) => r.rssGrowthMb)),
          copyMs: copy,
          ratio: copy / totalMs,
          againMs,
          againRatio: copy / againMs,
          ...(format === 'csv' && { againCompressed }),
        });
      }
    }
  } finally {
    connection.closeSync();
    lease.release();
    store.close();
    for (const running of service ? [fresh] : [fresh, server]) {
      const exited = new Promise((resolve) => running.child.once('exit', resolve));
      running.child.kill('SIGTERM');
      await exited;
    }
  }
  return figures;
}

export function printExportFigures(figures: readonly ExportFigure[]): void {
  console.log(
    'export                     rows   first byte ms   total ms      MB   rows/s   DuckDB COPY ms   x COPY   again ms   again x COPY   server RSS +MB',
  );
  for (const f of figures) {
    console.log(
      `${`${f.format}, ${f.scope}`.padEnd(22)} ${String(f.rows).padStart(9)} ${f.firstByteMs.toFixed(1).padStart(15)} ${f.totalMs.toFixed(0).padStart(10)} ${(f.bytes / 2 ** 20).toFixed(1).padStart(7)} ${Math.round(
        f.rows / (f.totalMs / 1000),
      )
        .toString()
        .padStart(
          8,
        )} ${f.copyMs.toFixed(0).padStart(16)} ${f.ratio.toFixed(2).padStart(7)}x ${f.againMs.toFixed(0).padStart(10)} ${f.againRatio.toFixed(2).padStart(13)}x ${f.rssGrowthMb.toFixed(0).padStart(16)}`,
    );
  }
  console.log('\nasked again, compressed      again ms   again x COPY');
  for (const f of figures) {
    for (const c of f.againCompressed ?? []) {
      console.log(`${`${f.format} (${c.encoding}), ${f.scope}`.padEnd(26)} ${c.ms.toFixed(0).padStart(10)} ${c.ratio.toFixed(2).padStart(13)}x`);
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ options: { runs: { type: 'string', default: '3' } }, allowPositionals: true });
  const dir = positionals[0];
  if (!dir) throw new Error('usage: tsx scripts/bench/exports.ts DROP_DIR [--runs 3]');
  printExportFigures(await exportFigures(dir, Number(values.runs)));
}
