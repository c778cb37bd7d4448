/**
 * Building a data drop (docs/data-drops.md#build) from one CSV per table: `buildDrop(srcDir, outDir)`
 * writes `${table}.parquet` for every table of schema.ts, then `drop.json` (see write.ts). An
 * optional table (sources, population, cpi) is built when its CSV file is there.
 *
 * CSV format: UTF-8, comma-separated, `"` quoting, a header row with the schema's column names in
 * the schema's order (optional columns such as stage, source_id and derived may be left out), an
 * empty field for NULL. Types are never sniffed. The Parquet files get the CSV's columns, so a
 * drop built without the optional columns is the drop it always was.
 */
import { access, open } from 'node:fs/promises';
import path from 'node:path';
import { quotedIdentifier, quotedString, type DuckDBConnection } from '@duckdb/node-api';
import type { Manifest } from '../data/manifest.js';
import { requiredColumns, type ColumnSpec, type TableSpec } from '../data/schema.js';
import { parquetType, typedColumns, writeDropFiles, type WriteOptions } from './write.js';


const isNumber = (col: ColumnSpec) => col.kind === 'numeric' || col.kind === 'integer';

/** Numbers are read as text and converted by `numberFrom`; other columns in their Parquet type. */
const csvType = (col: ColumnSpec): string => (isNumber(col) ? 'VARCHAR' : parquetType(col));

/** The raw text of a number column, kept beside its value to report what could not be read. */
const textOf = (col: ColumnSpec) => quotedIdentifier(`${col.name}__text`);

/**
 * Numbers are held wider than they are written, as DECIMAL(38,9): DuckDB's casts round silently
 * ("2021.5" cast to INTEGER is 2022), so a fraction in an id or year, or a 4th decimal in money,
 * is reported instead. Parsing text as a 128-bit DECIMAL is slow (about 30,000 rows/s here), so
 * the plain numbers that make up nearly every CSV (an integer of up to 18 digits; money with up
 * to 3 decimals) take a fast exact path through BIGINT or DECIMAL(18,3); anything else (more
 * digits or decimals, an exponent) the wide one. Unreadable text gives NULL, reported by firstProblem.
 */
function numberFrom(col: ColumnSpec): string {
  const text = `NULLIF(trim(${textOf(col)}), '')`;
  const [plain, exact] = col.kind === 'integer' ? ['[+-]?\\d{1,18}', 'BIGINT'] : ['[+-]?\\d{1,15}(\\.\\d{0,3})?', 'DECIMAL(18,3)'];
  return `CASE WHEN regexp_full_match(${text}, '${plain}') THEN CAST(CAST(${text} AS ${exact}) AS DECIMAL(38,9))
               ELSE TRY_CAST(${text} AS DECIMAL(38,9)) END`;
}

export async function buildDrop(srcDir: string, outDir: string, opts: WriteOptions): Promise<Manifest> {
  return writeDropFiles(outDir, opts, async (connection, table, target, step) => {
    const csv = path.join(srcDir, `${table.name}.csv`);
    if (table.optional && !(await access(csv).then(() => true, () => false))) return false;
    await convertTable(connection, csv, target, table, step);
    return true;
  });
}

/** Reads one CSV, checks it, writes it as Parquet. */
async function convertTable(
  connection: DuckDBConnection,
  csv: string,
  out: string,
  table: TableSpec,
  step: (name: string) => void,
): Promise<void> {
  const columns = await checkHeader(csv, table);
  const read = columns.map((c) => `${quotedString(isNumber(c) ? `${c.name}__text` : c.name)}: ${quotedString(csvType(c))}`);
  const values = columns.map((c) => (isNumber(c) ? `${numberFrom(c)} AS ${quotedIdentifier(c.name)}, ${textOf(c)}` : quotedIdentifier(c.name)));
  try {
    await connection.run('DROP TABLE IF EXISTS src');
    step('reading');
    // Paths are bound as parameters (DuckDB accepts them in read_csv and in COPY ... TO), never
    // spliced into the SQL text.
    await connection.run(
      `CREATE TEMP TABLE src AS SELECT ${values.join(', ')} FROM read_csv($csv, header = true, auto_detect = false,
         delim = ',', quote = '"', escape = '"', strict_mode = true, columns = {${read.join(', ')}})`,
      { csv },
    );
    step('checking');
    const problem = await firstProblem(connection, columns);
    if (problem) throw new Error(`data row ${problem.row}: ${problem.message}`);
    step('writing');
    await connection.run(`COPY (SELECT ${typedColumns(columns)} FROM src ORDER BY rowid) TO $out (FORMAT parquet)`, { out });
  } catch (error) {
    throw new Error(`${csv}: ${firstParagraph(error)}`, { cause: error });
  }
}

/**
 * With explicit column types DuckDB maps CSV fields by position and only skips the header, so a
 * reordered or renamed column would load silently into the wrong place: compare names first.
 * Returns the table's columns that the CSV has, in order.
 */
async function checkHeader(csv: string, table: TableSpec): Promise<ColumnSpec[]> {
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
  const columns = table.columns.filter((c) => header.includes(c.name));
  const required = requiredColumns(table).map((c) => c.name);
  const inOrder = columns.map((c) => c.name).join(',') === header.join(',');
  if (!inOrder || !required.every((name) => header.includes(name))) {
    const optional = table.columns.filter((c) => c.absent !== undefined).map((c) => c.name);
    const may = optional.length ? ` (then, optionally and in this order: ${optional.join(', ')})` : '';
    throw new Error(`${csv}: header is "${header.join(',')}", expected "${required.join(',')}"${may}`);
  }
  if (table.oneOf && !table.oneOf.some((name) => header.includes(name))) {
    throw new Error(`${csv}: header must have a ${table.oneOf.join(' or a ')} column`);
  }
  return columns;
}

/** The first row with an unreadable number, an empty required field, a fractional integer or money with more than 3 decimals. */
async function firstProblem(connection: DuckDBConnection, columns: ColumnSpec[]): Promise<{ row: number; message: string } | undefined> {
  const checks: string[] = [];
  for (const c of columns) {
    const col = quotedIdentifier(c.name);
    if (isNumber(c)) {
      checks.push(`WHEN ${col} IS NULL AND trim(${textOf(c)}) <> '' THEN ${quotedString(`${c.name} is not a number: "`)} || ${textOf(c)} || '"'`);
    }
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
