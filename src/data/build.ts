/**
 * Building a data drop (contract section 3) from one CSV per table: `buildDrop(srcDir, outDir)`
 * writes `${table}.parquet` for every table of schema.ts, then `drop.json` (see write.ts).
 *
 * CSV format: UTF-8, comma-separated, `"` quoting, a header row with exactly the schema's column
 * names in the schema's order, an empty field for NULL. Types are never sniffed.
 */
import { open } from 'node:fs/promises';
import path from 'node:path';
import { quotedIdentifier, quotedString, type DuckDBConnection } from '@duckdb/node-api';
import type { Manifest } from './manifest.js';
import type { ColumnSpec, TableSpec } from './schema.js';
import { parquetType, typedColumns, writeDropFiles, type WriteOptions } from './write.js';

export type { Manifest };
export type BuildOptions = WriteOptions;

/**
 * Numbers are read wider than they are written: DuckDB's casts round silently ("2021.5" read as
 * INTEGER is 2022), so a fraction in an id or year, or a 4th decimal in money, is reported instead.
 */
const csvType = (col: ColumnSpec): string =>
  col.kind === 'numeric' || col.kind === 'integer' ? 'DECIMAL(38,9)' : parquetType(col);

export async function buildDrop(srcDir: string, outDir: string, opts: BuildOptions): Promise<Manifest> {
  return writeDropFiles(outDir, opts, (connection, table, target) =>
    convertTable(connection, path.join(srcDir, `${table.name}.csv`), target, table),
  );
}

/** Reads one CSV, checks it, writes it as Parquet. */
async function convertTable(connection: DuckDBConnection, csv: string, out: string, table: TableSpec): Promise<void> {
  await checkHeader(csv, table);
  const columns = table.columns.map((c) => `${quotedString(c.name)}: ${quotedString(csvType(c))}`).join(', ');
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
    await connection.run(`COPY (SELECT ${typedColumns(table)} FROM src ORDER BY rowid) TO $out (FORMAT parquet)`, { out });
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

/** DuckDB's CSV errors end with generic advice ("Possible fixes", tips on sniffing): keep the fault. */
function firstParagraph(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const fault = message.split(/\n\s*\n|\nPossible (?:fixes|solutions)/)[0]!;
  return fault.trim().replace(/\s*\n\s*/g, '; ');
}
