/**
 * Loading a data drop: read drop.json, verify every file, load the Parquet files into a new
 * in-memory DuckDB, and check every rule of docs/data-drops.md#rules. One entry point, `loadDrop`,
 * shared by the server's startup, its reload and the CLI.
 */
import { createHash } from 'node:crypto';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { MANIFEST_FILE, ManifestSchema, sha256File, type Manifest } from './manifest.js';
import { RULES } from './rules.js';
import { TABLES, fileName, type ColumnSpec, type TableSpec } from './schema.js';
import { readSql } from './sql.js';
import { jsonText } from '../json.js';
import { plainValue } from './values.js';

export interface Problem {
  file: string;
  rule: string;
  /** How many rows break the rule (1 for file-level problems). */
  count: number;
  /** Up to five offending rows. */
  examples: Record<string, unknown>[];
}

export class DropError extends Error {
  constructor(readonly problems: Problem[]) {
    super(problems.length ? describeProblem(problems[0]!) : 'invalid drop');
  }
}

function describeProblem(p: Problem): string {
  const rows = p.examples.length ? `; offending row: ${jsonText(p.examples[0])}` : '';
  const count = p.count > 1 ? ` (${p.count} rows)` : '';
  return `${p.file}: ${p.rule}${count}${rows}`;
}

export interface LoadedDrop {
  instance: DuckDBInstance;
  /** The directory as resolved when loaded (DATA_DIR may be a symlink that is re-pointed later). */
  dir: string;
  manifest: Manifest;
  /** A digest of the files' checksums: changes whenever the drop's content changes. */
  fingerprint: string;
  loadedAt: Date;
  years: number[];
  /** Names by id (ids as rows carry them); see sql/derive/category_names.sql, organization_names.sql. */
  categoryNames: ReadonlyMap<unknown, string>;
  organizations: ReadonlyMap<unknown, Readonly<{ id: unknown; name: string; code: string }>>;
}

export interface LoadOptions {
  /** Keep checking after the first broken rule, to report everything (the CLI); the server stops at the first. */
  allProblems?: boolean;
}

const EXAMPLES = 5;
/** Tables built once per drop, in this order, so that requests read small pre-computed sums. */
const DERIVED = [
  'derive/category_closure',
  'derive/debt_origin_closure',
  'derive/category_year_sums',
  'derive/category_rollup',
  'derive/category_totals',
  'derive/year_totals',
  'derive/organization_year_sums',
  'derive/organization_budgets',
  'derive/expense_positions',
  'derive/resource_positions',
  'derive/line_counts',
];

export async function loadDrop(dataDir: string, options: LoadOptions = {}): Promise<LoadedDrop> {
  const dir = await realpath(dataDir).catch(() => {
    throw new DropError([fileProblem('drop.json', `data directory ${dataDir} does not exist`)]);
  });
  const manifest = await readManifest(dir);
  const problems: Problem[] = [];
  const stopAtFirst = () => !options.allProblems && problems.length > 0;

  for (const table of TABLES) {
    const entry = manifest.files[fileName(table)];
    if (!entry) problems.push(fileProblem('drop.json', `files must list ${fileName(table)}`));
  }
  if (problems.length) throw new DropError(problems);

  // Loading sorts and copies whole tables; jemalloc's background threads give that memory back
  // to the system once the load is done (10M lines: 1.5 GB serving instead of 1.8 GB).
  const instance = await DuckDBInstance.create(':memory:', {
    allocator_background_threads: 'true',
    allocator_flush_threshold: '32MB',
  });
  const connection = await instance.connect();
  let loaded = false;
  try {
    for (const table of TABLES) {
      problems.push(...(await loadTable(connection, dir, table, manifest)));
      if (stopAtFirst()) break;
    }
    if (problems.length) throw new DropError(problems);

    for (const rule of RULES) {
      const problem = await offendingRows(connection, rule.sql, rule.file, rule.rule);
      if (problem) problems.push(problem);
      if (stopAtFirst()) break;
    }
    if (problems.length) throw new DropError(problems);

    for (const name of DERIVED) await connection.run(await readSql(name));
    const years = (await rowsOf(connection, 'derive/covered_years')).map((r) => Number(r.year));
    const categoryNames = new Map((await rowsOf(connection, 'derive/category_names')).map((r) => [r.id, String(r.name)]));
    const organizations = new Map(
      (await rowsOf(connection, 'derive/organization_names')).map(({ id, name, code }) => [
        id,
        Object.freeze({ id, name: String(name), code: String(code) }),
      ]),
    );
    // The load above used every core. Serving queries are small lookups that the pool already runs
    // side by side, one per calling thread; DuckDB's own workers only add hand-offs between threads
    // (1M lines: lower p99 on most queries, 5% more uncached requests/s; see docs/performance.md#what-makes-it-fast).
    await connection.run('SET threads = 1');
    loaded = true;
    return { instance, dir, manifest, fingerprint: fingerprintOf(manifest), loadedAt: new Date(), years, categoryNames, organizations };
  } finally {
    connection.closeSync();
    if (!loaded) instance.closeSync();
  }
}

async function readManifest(dir: string): Promise<Manifest> {
  const text = await readFile(path.join(dir, MANIFEST_FILE), 'utf8').catch(() => {
    throw new DropError([fileProblem('drop.json', `drop.json must exist in ${dir}`)]);
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DropError([fileProblem('drop.json', 'must be valid JSON')]);
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new DropError([fileProblem('drop.json', `${issue.path.join('.') || 'manifest'} ${issue.message}`)]);
  }
  return parsed.data;
}

/** Verifies one file against the manifest, loads it as-is, checks its columns, then stores it typed. */
async function loadTable(connection: DuckDBConnection, dir: string, table: TableSpec, manifest: Manifest): Promise<Problem[]> {
  const file = fileName(table);
  const expected = manifest.files[file]!;
  const filePath = path.join(dir, file);
  if (!(await stat(filePath).catch(() => null))?.isFile()) return [fileProblem(file, 'file listed in drop.json must exist')];

  const sha256 = await sha256File(filePath);
  if (sha256 !== expected.sha256.toLowerCase()) {
    return [fileProblem(file, `sha256 must match drop.json (manifest ${expected.sha256}, file ${sha256})`)];
  }
  const raw = `raw_${table.name}`;
  try {
    await connection.run(`CREATE TABLE ${raw} AS SELECT * FROM read_parquet($path)`, { path: filePath });
  } catch {
    return [fileProblem(file, 'must be a readable Parquet file')];
  }
  const rows = Number((await connection.runAndReadAll(`SELECT count(*) AS n FROM ${raw}`)).getRowObjects()[0]!.n);
  if (rows !== expected.rows) return [fileProblem(file, `row count must match drop.json (manifest ${expected.rows}, file ${rows})`)];

  const described = (await connection.runAndReadAll(`DESCRIBE ${raw}`)).getRowObjects();
  const types = new Map(described.map((r) => [String(r.column_name), String(r.column_type)]));
  const problems: Problem[] = [];
  for (const column of table.columns) {
    const type = types.get(column.name);
    if (type === undefined) problems.push(fileProblem(file, `column ${column.name} must exist`));
    else if (!accepts(column, type)) problems.push(fileProblem(file, `column ${column.name} must be ${KIND_WORDS[column.kind]}, not ${type}`));
  }
  if (problems.length) return problems;

  for (const column of table.columns) {
    for (const check of valueChecks(column, types.get(column.name)!)) {
      const problem = await offendingRows(connection, `SELECT * FROM ${raw} WHERE ${check.where}`, file, check.rule);
      if (problem) problems.push(problem);
    }
  }
  if (problems.length) return problems;

  const select = table.columns.map((c) => `CAST(${c.name} AS ${c.sqlType}) AS ${c.name}`).join(', ');
  await connection.run(`CREATE TABLE ${table.name} AS SELECT ${select} FROM ${raw}`);
  await connection.run(`DROP TABLE ${raw}`);
  return [];
}

const INTEGER = /^U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)$/;
const FLOAT = /^(FLOAT|DOUBLE)$/;
const DECIMAL = /^DECIMAL\(\d+,\d+\)$/;
const NULL_TYPE = /^"?NULL"?$/;
const WIDER_THAN_BIGINT = /^(UBIGINT|U?HUGEINT)$/;

const KIND_WORDS: Record<ColumnSpec['kind'], string> = {
  integer: 'an integer',
  numeric: 'a number',
  string: 'a string',
  boolean: 'a boolean',
};

/**
 * Tools write the same logical column in different physical types: pandas turns an integer column
 * with nulls into floats, some writers store flags as 0/1. Those are accepted when every value
 * fits (checked row by row in valueChecks); anything else is a wrong type.
 */
function accepts(column: ColumnSpec, type: string): boolean {
  // A column with no values at all (an empty table, or a parent_id that is null everywhere) has
  // no type to speak of: pyarrow writes it with the null type, which DuckDB reads as "NULL".
  if (NULL_TYPE.test(type)) return true;
  switch (column.kind) {
    case 'integer':
    case 'numeric':
      return INTEGER.test(type) || FLOAT.test(type) || DECIMAL.test(type);
    case 'string':
      // Categorical string columns (pandas' category dtype) arrive as ENUM.
      return type === 'VARCHAR' || type.startsWith('ENUM(');
    case 'boolean':
      return type === 'BOOLEAN' || INTEGER.test(type);
  }
}

function valueChecks(column: ColumnSpec, type: string): { rule: string; where: string }[] {
  const c = column.name;
  const checks: { rule: string; where: string }[] = [];
  if (!column.nullable) checks.push({ rule: `column ${c} must not be missing (null)`, where: `${c} IS NULL` });
  if (FLOAT.test(type)) checks.push({ rule: `column ${c} must be a finite number`, where: `NOT isfinite(${c})` });
  if (column.kind === 'integer' && !INTEGER.test(type)) {
    checks.push({ rule: `column ${c} must hold whole numbers`, where: `isfinite(${c}::DOUBLE) AND ${c} <> trunc(${c})` });
  }
  if (column.kind === 'boolean' && INTEGER.test(type)) {
    checks.push({ rule: `column ${c} must be a boolean (or 0/1)`, where: `${c} NOT IN (0, 1)` });
  }
  if (column.sqlType === 'INTEGER') {
    checks.push({ rule: `column ${c} must be a year between 1 and 9999`, where: `${c} NOT BETWEEN 1 AND 9999` });
  }
  if (column.sqlType.startsWith('DECIMAL')) {
    checks.push({ rule: `column ${c} must be less than 10^32 in absolute value`, where: `isfinite(${c}::DOUBLE) AND abs(${c}::DOUBLE) >= 1e32` });
  }
  if (column.sqlType === 'BIGINT' && !INTEGER.test(type)) {
    checks.push({ rule: `column ${c} must fit a 64-bit integer`, where: `abs(${c}::DOUBLE) >= 9.2e18` });
  }
  if (column.sqlType === 'BIGINT' && WIDER_THAN_BIGINT.test(type)) {
    // UBIGINT (Parquet UINT_64) holds values up to 2^64 - 1, which the cast to BIGINT would fail on.
    checks.push({ rule: `column ${c} must fit a 64-bit integer`, where: `${c} > 9223372036854775807 OR ${c} < -9223372036854775808` });
  }
  return checks;
}

/** The rows of `sql/<name>.sql`, in plain values as ServedDrop.query gives them. */
async function rowsOf(connection: DuckDBConnection, name: string): Promise<Record<string, unknown>[]> {
  return (await connection.runAndReadAll(await readSql(name))).getRowObjects().map(plainRow);
}

/** Only the nine tables' checksums count: other entries of `files` are never read. */
function fingerprintOf(manifest: Manifest): string {
  const lines = TABLES.map(fileName)
    .sort()
    .map((name) => `${name}:${manifest.files[name]!.sha256.toLowerCase()}`);
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

/** The rows `sql` selects, which break `rule`: how many, and the first few as examples; null when none. */
async function offendingRows(connection: DuckDBConnection, sql: string, file: string, rule: string): Promise<Problem | null> {
  const reader = await connection.runAndReadAll(`SELECT *, count(*) OVER () AS __count FROM (${sql}) LIMIT ${EXAMPLES}`);
  const rows = reader.getRowObjects();
  if (!rows.length) return null;
  return { file, rule, count: Number(rows[0]!.__count), examples: rows.map(({ __count, ...row }) => plainRow(row)) };
}

function fileProblem(file: string, rule: string): Problem {
  return { file, rule, count: 1, examples: [] };
}

function plainRow(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plainValue(v)]));
}
