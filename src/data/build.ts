/**
 * Building a data drop (contract section 3) from one CSV per table: `buildDrop(srcDir, outDir)`
 * writes `${table}.parquet` for every table of schema.ts, then `drop.json`.
 *
 * CSV format: UTF-8, comma-separated, `"` quoting, a header row with exactly the schema's column
 * names in the schema's order, an empty field for NULL. Types are never sniffed.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance, quotedIdentifier, quotedString, type DuckDBConnection } from '@duckdb/node-api';
import type { Manifest } from './manifest.js';
import { TABLES, fileName, type ColumnSpec, type TableSpec } from './schema.js';

export type { Manifest };

export interface BuildOptions {
  version: string;
  description: string;
  source?: string;
  license?: string;
  /** ISO 8601; defaults to now. Pass a fixed value to make drop.json reproducible. */
  createdAt?: string;
}

const MANIFEST = 'drop.json';

/** Column type inside the Parquet file. The service widens money to DECIMAL(38,6) when loading. */
const parquetType = (col: ColumnSpec): string => (col.kind === 'numeric' ? 'DECIMAL(18,3)' : col.sqlType);

/**
 * Numbers are read wider than they are written: DuckDB's casts round silently ("2021.5" read as
 * INTEGER is 2022), so a fraction in an id or year, or a 4th decimal in money, is reported instead.
 */
const csvType = (col: ColumnSpec): string =>
  col.kind === 'numeric' || col.kind === 'integer' ? 'DECIMAL(38,9)' : parquetType(col);

export async function buildDrop(srcDir: string, outDir: string, opts: BuildOptions): Promise<Manifest> {
  await mkdir(outDir, { recursive: true });
  // Every Parquet file is written under a temporary name and renamed only once all tables have
  // been converted, so a bad CSV never leaves a half-replaced drop behind.
  const tmp = (name: string) => path.join(outDir, `.${name}.${process.pid}.tmp`);
  const files: Manifest['files'] = {};
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    for (const table of TABLES) {
      const rows = await convertTable(connection, path.join(srcDir, `${table.name}.csv`), tmp(fileName(table)), table);
      files[fileName(table)] = { sha256: await sha256(tmp(fileName(table))), rows };
    }
  } catch (error) {
    await Promise.all(TABLES.map((table) => rm(tmp(fileName(table)), { force: true })));
    throw error;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  for (const table of TABLES) await rename(tmp(fileName(table)), path.join(outDir, fileName(table)));

  const manifest: Manifest = {
    version: opts.version,
    created_at: opts.createdAt ?? new Date().toISOString(),
    description: opts.description,
    ...(opts.source === undefined ? {} : { source: opts.source }),
    ...(opts.license === undefined ? {} : { license: opts.license }),
    files,
  };
  // Written last and renamed into place: a watcher of drop.json never sees a half-written manifest,
  // and by the time it changes every file it lists is complete.
  await writeFile(tmp(MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
  await rename(tmp(MANIFEST), path.join(outDir, MANIFEST));
  return manifest;
}

/** Reads one CSV, checks it, writes it as Parquet; returns the row count. */
async function convertTable(connection: DuckDBConnection, csv: string, out: string, table: TableSpec): Promise<number> {
  await checkHeader(csv, table);
  const columns = table.columns.map((c) => `${quotedString(c.name)}: ${quotedString(csvType(c))}`).join(', ');
  const select = table.columns
    .map((c) => `CAST(${quotedIdentifier(c.name)} AS ${parquetType(c)}) AS ${quotedIdentifier(c.name)}`)
    .join(', ');
  try {
    await connection.run('DROP TABLE IF EXISTS src');
    // Paths are bound as parameters (DuckDB accepts them in read_csv and in COPY ... TO), never
    // spliced into the SQL text.
    await connection.run(
      `CREATE TEMP TABLE src AS SELECT * FROM read_csv($csv, header = true, auto_detect = false,
         delim = ',', quote = '"', escape = '"', strict_mode = true, columns = {${columns}})`,
      { csv },
    );
    const problem = await firstProblem(connection, table);
    if (problem) throw new Error(`data row ${problem.row}: ${problem.message}`);
    await connection.run(`COPY (SELECT ${select} FROM src ORDER BY rowid) TO $out (FORMAT parquet)`, { out });
    const count = await connection.runAndReadAll('SELECT count(*) FROM src');
    return Number(count.getRows()[0]![0]);
  } catch (error) {
    throw new Error(`${csv}: ${firstParagraph(error)}`, { cause: error });
  }
}

/**
 * With explicit column types DuckDB maps CSV fields by position and only skips the header, so a
 * reordered or renamed column would load silently into the wrong place: compare names first.
 */
async function checkHeader(csv: string, table: TableSpec): Promise<void> {
  let text: string;
  try {
    const handle = await open(csv, 'r');
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, 0);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(`${csv}: ${missing ? 'file not found' : (error as Error).message}`, { cause: error });
  }
  const header = (text.split('\n')[0] ?? '')
    .replace(/^\uFEFF/, '')
    .replace(/\r$/, '')
    .split(',')
    .map((name) => name.trim().replace(/^"(.*)"$/, '$1'));
  const expected = table.columns.map((c) => c.name);
  if (header.join(',') !== expected.join(',')) {
    throw new Error(`${csv}: header is "${header.join(',')}", expected "${expected.join(',')}"`);
  }
}

/** The first row with an empty required field, a fractional integer or money with more than 3 decimals. */
async function firstProblem(connection: DuckDBConnection, table: TableSpec): Promise<{ row: number; message: string } | undefined> {
  const checks: string[] = [];
  for (const c of table.columns) {
    const col = quotedIdentifier(c.name);
    if (!c.nullable) checks.push(`WHEN ${col} IS NULL THEN ${quotedString(`${c.name} is empty`)}`);
    if (c.kind === 'integer') checks.push(`WHEN ${col} <> trunc(${col}) THEN ${quotedString(`${c.name} is not an integer`)}`);
    if (c.kind === 'numeric') {
      checks.push(`WHEN ${col} <> round(${col}, 3) THEN ${quotedString(`${c.name} has more than 3 decimals`)}`);
    }
  }
  if (!checks.length) return undefined;
  const result = await connection.runAndReadAll(
    `SELECT rowid + 1, message FROM (SELECT rowid, CASE ${checks.join(' ')} END AS message FROM src)
     WHERE message IS NOT NULL ORDER BY rowid LIMIT 1`,
  );
  const first = result.getRows()[0];
  return first ? { row: Number(first[0]), message: String(first[1]) } : undefined;
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** DuckDB's CSV errors end with generic advice ("Possible fixes", tips on sniffing): keep the fault. */
function firstParagraph(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const fault = message.split(/\n\s*\n|\nPossible (?:fixes|solutions)/)[0]!;
  return fault.trim().replace(/\s*\n\s*/g, '; ');
}
