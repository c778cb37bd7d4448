/**
 * Writing a drop directory (docs/data-drops.md#the-drop-format), shared by `buildDrop` (from CSV files) and
 * `synthDrop` (generated rows): every table's Parquet file, then drop.json with the files' true
 * checksums and row counts.
 */
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance, quotedIdentifier, type DuckDBConnection } from '@duckdb/node-api';
import { MANIFEST_FILE, sha256File, type Manifest, type Units } from '../data/manifest.js';
import { TABLES, fileName, type ColumnSpec, type TableName, type TableSpec } from '../data/schema.js';

interface DropInfo {
  version: string;
  description?: string;
  source?: string;
  license?: string;
  units?: Units;
  /** What the stages cover, the gaps the drop knows of, its own wording of fields (docs/data-drops.md#dropjson). */
  stages?: Manifest['stages'];
  known_gaps?: Manifest['known_gaps'];
  definitions?: Manifest['definitions'];
  /** ISO 8601; defaults to now. Pass a fixed value to make drop.json reproducible. */
  createdAt?: string;
  /** Further drop.json fields (control_totals, notes, and those carried over by --from), written before `files`. */
  extra?: Record<string, unknown>;
}

/** Progress of one table: while a step runs (its statement's percent done), then once written. */
export type TableProgress =
  { file: string; done: false; step: string; percent: number; seconds: number } | { file: string; done: true; rows: number; seconds: number };

export interface WriteOptions extends DropInfo {
  onProgress?: (progress: TableProgress) => void;
}

/**
 * Writes one table's Parquet file at `target`, on the shared connection; names each step (one
 * statement) as it starts, since progress is per statement. Resolves false when it wrote nothing
 * because the drop leaves this optional table out.
 */
type TableWriter = (
  connection: DuckDBConnection,
  table: TableSpec & { name: TableName },
  target: string,
  step: (name: string) => void,
) => Promise<boolean>;

const PROGRESS_EVERY_MS = 1000;

/**
 * Column type inside the Parquet file, as docs/data-drops.md#types recommends: money as
 * DECIMAL(18,3), or, in a column `wide` because it holds an amount of 10^15 or more, which
 * DECIMAL(18,3) cannot, as DECIMAL(38,3), which holds every amount the server accepts. The service
 * widens money to DECIMAL(38,6) when loading.
 */
export const parquetType = (col: ColumnSpec, wide = false): string =>
  col.kind !== 'numeric' ? col.sqlType : wide ? 'DECIMAL(38,3)' : 'DECIMAL(18,3)';

/** The select list that gives a table these columns (in schema order), in their Parquet types; `wide`: the money columns written wide. */
export const typedColumns = (columns: readonly ColumnSpec[], wide: ReadonlySet<string> = new Set()): string =>
  columns.map((c) => `CAST(${quotedIdentifier(c.name)} AS ${parquetType(c, wide.has(c.name))}) AS ${quotedIdentifier(c.name)}`).join(', ');

/**
 * Writes every table with `writeTable`, then drop.json. Every Parquet file is written under a
 * temporary name and renamed only once all tables have been written, so a failure never leaves a
 * half-replaced drop behind.
 */
export async function writeDropFiles(outDir: string, options: WriteOptions, writeTable: TableWriter): Promise<Manifest> {
  await mkdir(outDir, { recursive: true });
  const tmp = (name: string) => path.join(outDir, `.${name}.${process.pid}.tmp`);
  const files: Manifest['files'] = {};
  const written: TableSpec[] = [];
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    if (options.onProgress) await connection.run('SET enable_progress_bar = true; SET enable_progress_bar_print = false');
    for (const table of TABLES) {
      const file = fileName(table);
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      let step = 'writing';
      const ticker =
        options.onProgress &&
        setInterval(() => {
          const { percentage } = connection.progress;
          if (percentage >= 1) options.onProgress!({ file, done: false, step, percent: percentage, seconds: seconds() });
        }, PROGRESS_EVERY_MS);
      let wrote: boolean;
      try {
        wrote = await writeTable(connection, table, tmp(file), (name) => (step = name));
      } finally {
        clearInterval(ticker);
      }
      if (!wrote) continue;
      written.push(table);
      const rows = await parquetRows(connection, tmp(file));
      files[file] = { sha256: await sha256File(tmp(file)), rows, bytes: (await stat(tmp(file))).size };
      options.onProgress?.({ file, done: true, rows, seconds: seconds() });
    }
  } catch (error) {
    await Promise.all(TABLES.map((table) => rm(tmp(fileName(table)), { force: true })));
    throw error;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  for (const table of written) await rename(tmp(fileName(table)), path.join(outDir, fileName(table)));
  // An optional table left out of this drop must not linger from a drop built before in the same
  // directory: the service would refuse a file that drop.json does not list.
  for (const table of TABLES) if (table.optional && !written.includes(table)) await rm(path.join(outDir, fileName(table)), { force: true });

  const manifest: Manifest = {
    version: options.version,
    created_at: options.createdAt ?? new Date().toISOString(),
    description: options.description ?? '',
    ...(options.source === undefined ? {} : { source: options.source }),
    ...(options.license === undefined ? {} : { license: options.license }),
    ...(options.units === undefined ? {} : { units: options.units }),
    ...(options.extra as Partial<Manifest> | undefined),
    ...(options.stages === undefined ? {} : { stages: options.stages }),
    ...(options.known_gaps === undefined ? {} : { known_gaps: options.known_gaps }),
    ...(options.definitions === undefined ? {} : { definitions: options.definitions }),
    files,
  };
  await writeManifest(outDir, manifest);
  return manifest;
}

/**
 * Written last and renamed into place: a watcher of drop.json never sees a half-written manifest,
 * and by the time it changes every file it lists is complete.
 */
async function writeManifest(outDir: string, manifest: Manifest): Promise<void> {
  const tmp = path.join(outDir, `.${MANIFEST_FILE}.${process.pid}.tmp`);
  await writeFile(tmp, `${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
  await rename(tmp, path.join(outDir, MANIFEST_FILE));
}

/** The row count from the Parquet footer, as the service will count it when loading. */
async function parquetRows(connection: DuckDBConnection, file: string): Promise<number> {
  const reader = await connection.runAndReadAll('SELECT count(*) FROM read_parquet($file)', { file });
  return Number(reader.getRows()[0]![0]);
}
