/**
 * Loading a data drop: read drop.json, verify every file, load the Parquet files into a new
 * in-memory DuckDB, check its columns (columns.ts) and every rule (rules.ts), then derive the
 * pre-computed tables (derived.ts), as docs/data-drops.md#rules says. One entry point, `loadDrop`,
 * shared by the server's startup, its reload and the CLI.
 */
import { createHash } from 'node:crypto';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { checkColumns } from './columns.js';
import { derive, type Derived } from './derived.js';
import { MANIFEST_FILE, ManifestSchema, sha256File, type Manifest } from './manifest.js';
import { DropError, fileProblem, offendingRows, type Problem } from './problems.js';
import { RULES } from './rules.js';
import { TABLES, fileName, type TableSpec } from './schema.js';

export { DropError, type Problem } from './problems.js';

export interface LoadedDrop extends Derived {
  instance: DuckDBInstance;
  /** The directory as resolved when loaded (DATA_DIR may be a symlink that is re-pointed later). */
  dir: string;
  manifest: Manifest;
  /** A digest of the files' checksums: changes whenever the drop's content changes. */
  fingerprint: string;
  loadedAt: Date;
}

export interface LoadOptions {
  /** Keep checking after the first broken rule, to report everything (the CLI); the server stops at the first. */
  allProblems?: boolean;
}

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

    const derived = await derive(connection);
    // The load above used every core. Serving queries are small lookups that the pool already runs
    // side by side, one per calling thread; DuckDB's own workers only add hand-offs between threads
    // (1M lines: lower p99 on most queries, 5% more uncached requests/s; see docs/performance.md#what-makes-it-fast).
    await connection.run('SET threads = 1');
    loaded = true;
    return { instance, dir, manifest, fingerprint: fingerprintOf(manifest), loadedAt: new Date(), ...derived };
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
  const problems = await checkColumns(connection, raw, file, table, types);
  if (problems.length) return problems;

  const select = table.columns.map((c) => `CAST(${c.name} AS ${c.sqlType}) AS ${c.name}`).join(', ');
  await connection.run(`CREATE TABLE ${table.name} AS SELECT ${select} FROM ${raw}`);
  await connection.run(`DROP TABLE ${raw}`);
  return [];
}

/** Only the nine tables' checksums count: other entries of `files` are never read. */
function fingerprintOf(manifest: Manifest): string {
  const lines = TABLES.map(fileName)
    .sort()
    .map((name) => `${name}:${manifest.files[name]!.sha256.toLowerCase()}`);
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}
