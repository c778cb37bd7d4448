/**
 * Loading a data drop: read drop.json, verify every file, load the Parquet files into a new
 * in-memory DuckDB, check its columns (columns.ts) and every rule (rules.ts), then derive the
 * pre-computed tables (derived.ts), as docs/data-drops.md#rules says. One entry point, `loadDrop`,
 * shared by the server's startup, its reload and the CLI.
 */
import { createHash } from 'node:crypto';
import { readFile, realpath, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, quotedIdentifier, quotedString, type DuckDBConnection } from '@duckdb/node-api';
import { checkColumns } from './columns.js';
import { derive, type Derived } from './derived.js';
import { MANIFEST_FILE, parseManifest, sha256File, type Manifest } from './manifest.js';
import { DropError, fileProblem, offendingRows, type Problem } from './problems.js';
import { DROP_LIMITS, rowCountProblems, textChunkProblems, textLengthProblems, treeDepthProblems, type DropLimits } from './limits.js';
import { manifestProblems, rulesFor } from './rules.js';
import { TABLES, fileName, type ColumnSpec, type TableSpec } from './schema.js';
import { isLinesTable, LinesStore, type LineAnchors } from './line-anchors.js';
import { DropShape } from './shape.js';
import { NO_EXTENSIONS, duckdbMemoryLimit, lockDown, scratchDir } from './lockdown.js';
import { closeDatabase } from './close-database.js';

export { DropError, type Problem } from './problems.js';

export interface LoadedDrop extends Derived {
  instance: DuckDBInstance;
  /** A new connection onto the drop's tables (they live in an attached database, see connectTo). */
  connect(): Promise<DuckDBConnection>;
  /** The directory as resolved when loaded (DATA_DIR may be a symlink that is re-pointed later). */
  dir: string;
  manifest: Manifest;
  /** A digest of the files' checksums: changes whenever the drop's content changes. */
  fingerprint: string;
  loadedAt: Date;
  /** Which optional tables and columns the drop has (the service fills in the others). */
  shape: DropShape;
  /** Where each page of lines lies (src/data/line-anchors.ts). */
  anchors: LineAnchors;
}

export interface LoadOptions {
  /** Keep checking after the first broken rule, to report everything (the CLI); the server stops at the first. */
  allProblems?: boolean;
  /** Store the tables compressed from this many lines (expenses and resources) up; see COMPRESS_FROM_LINES. */
  compressFromLines?: number;
  /**
   * Keep the tables in this database file instead of memory, with at most `memoryLimit` of DuckDB
   * buffers: an older release read from its files (releases.ts) costs disk, not memory.
   */
  databaseFile?: string;
  memoryLimit?: string;
  /** How big the drop may be (limits.ts); DROP_LIMITS unless a test asks for smaller. */
  limits?: Partial<DropLimits>;
}

/**
 * Drops of this many lines or more are stored compressed: a 10M-line drop then serves from
 * 0.8 GB instead of 2.8 GB, and a reload fits in 3 GB. Compressed segments make every page of
 * lines slower to read (1M lines: a page's p50 about 4.7 ms uncompressed, 6.4 ms compressed), so
 * smaller drops, which fit in memory twice anyway, are kept as they are
 * (docs/performance.md#reload).
 */
const COMPRESS_FROM_LINES = 4_000_000;

export async function loadDrop(dataDir: string, options: LoadOptions = {}): Promise<LoadedDrop> {
  const dir = await realpath(dataDir).catch(() => {
    throw new DropError([fileProblem('drop.json', 'data directory does not exist', dataDir)]);
  });
  const manifest = await readManifest(dir);
  const problems: Problem[] = [];
  const stopAtFirst = () => !options.allProblems && problems.length > 0;

  for (const table of TABLES) {
    const file = fileName(table);
    if (manifest.files[file]) continue;
    if (!table.optional) problems.push(fileProblem('drop.json', `files must list ${file}`));
    else if (await isFile(path.join(dir, file))) problems.push(fileProblem('drop.json', `files must list ${file}, which is in the drop`));
  }
  if (problems.length) throw new DropError(problems);
  const limits = { ...DROP_LIMITS, ...options.limits };
  problems.push(...rowCountProblems(manifest, limits), ...(await otherFileProblems(dir, manifest)));
  if (problems.length) throw new DropError(problems);

  // Loading sorts and copies whole tables; jemalloc's background threads give that memory back
  // to the system once the load is done (10M lines: 1.5 GB serving instead of 1.8 GB).
  const spill = path.join(tmpdir(), `budget-duckdb-${process.pid}-${++databases}`);
  const instance = await DuckDBInstance.create(':memory:', {
    allocator_background_threads: 'true',
    allocator_flush_threshold: '32MB',
    // The load's sorts and joins spill to disk past this, rather than stack on the drop still
    // serving during a reload (docs/performance.md#reload). A directory of its own per database:
    // DuckDB creates it and removes it when the database closes.
    memory_limit: options.memoryLimit ?? LOAD_MEMORY_LIMIT,
    temp_directory: spill,
    ...NO_EXTENSIONS,
  });
  const connection = await instance.connect();
  const lines = ['expenses.parquet', 'resources.parquet'].reduce((n, file) => n + (manifest.files[file]?.rows ?? 0), 0);
  // DuckDB compresses in-memory tables only in a database attached with COMPRESS (the default one
  // cannot be), at each checkpoint; see connectTo.
  const compressed = lines >= (options.compressFromLines ?? COMPRESS_FROM_LINES);
  const compress = compressed ? () => connection.run(`CHECKPOINT ${DATABASE}`) : () => Promise.resolve(undefined);
  if (options.databaseFile) await connection.run(`ATTACH ${quotedString(options.databaseFile)} AS ${DATABASE}`);
  else await connection.run(`ATTACH ':memory:' AS ${DATABASE} (COMPRESS)`);
  await connection.run(`USE ${DATABASE}`);
  // The lines tables' anchors are read from their files beside the rest of the load (src/data/line-anchors.ts).
  const linesStore = new LinesStore(() => connectTo(instance));
  let loaded = false;
  const present = new Map<string, ReadonlySet<string>>();
  try {
    for (const table of TABLES) {
      const loadedTable = await loadTable(connection, linesStore, dir, table, manifest, compress, limits);
      if (Array.isArray(loadedTable)) problems.push(...loadedTable);
      else present.set(table.name, loadedTable);
      if (stopAtFirst()) break;
    }
    if (problems.length) throw new DropError(problems);
    // Lines tables whose ids the load saw strictly increasing: their unique-id rule is already met.
    const uniqueIds = await linesStore.settle(connection);

    const shape = new DropShape(
      new Set(TABLES.filter((t) => t.optional && manifest.files[fileName(t)]).map((t) => t.name)),
      present,
    );
    for (const rule of rulesFor(shape, uniqueIds)) {
      const problem = await offendingRows(connection, rule.sql, rule.file, rule.rule);
      if (problem) problems.push(asInFile(problem, shape));
      if (stopAtFirst()) break;
    }
    // Before derive: its closure of each tree grows with the square of its depth.
    if (!stopAtFirst()) problems.push(...(await treeDepthProblems(connection, limits)));
    if (problems.length) throw new DropError(problems);

    // A drop not stored compressed also keeps its lines in category and organization order
    // (keepLinesInOrder): they cost a 2M-line load about 1 s, and would cost a 10M-line load seconds.
    const derived = await derive(connection, shape, { inOrder: !compressed });
    problems.push(...(await manifestProblems(connection, manifest)));
    if (problems.length) throw new DropError(problems);
    // Compresses the tables derive rebuilt or added: a 10M-line drop then serves from about 0.8 GB
    // of RSS instead of 2.8 GB.
    await compress();
    // The load above used every core. Serving queries are small lookups that the pool already runs
    // side by side, one per calling thread; DuckDB's own workers only add hand-offs between threads
    // (1M lines: lower p99 on most queries, 5% more uncached requests/s; see docs/performance.md#what-makes-it-fast).
    await connection.run('SET threads = 1');
    // A LIMIT of 50 or less (a small page past an offset) made DuckDB scan the filter columns, then
    // join back by row id for the rest: a saving for wide files read from disk, but on these
    // in-memory tables 2-8 times slower than one scan
    // (docs/performance.md#small-pages-2026-11-28). GLOBAL: the setting is each connection's, and
    // the pool's connections are opened after this.
    await connection.run('SET GLOBAL late_materialization_max_rows = 0');
    // A release's database file stays readable (and writable at its checkpoint) after the lock.
    await lockDown(connection, [await scratchDir(), spill, ...(options.databaseFile ? [path.dirname(options.databaseFile)] : [])]);
    loaded = true;
    return { instance, connect: () => connectTo(instance), dir, manifest, fingerprint: fingerprintOf(manifest), loadedAt: new Date(), shape, anchors: linesStore.anchors, ...derived };
  } finally {
    await linesStore.close();
    connection.closeSync();
    if (!loaded) closeDatabase(instance);
  }
}

/**
 * What one drop's database may hold in memory (DuckDB's own buffers; past it, work spills to its
 * temporary directory). A loaded 10M-line drop holds about 200 MB compressed; the load's window
 * sorts are what need the rest. 10M lines: the load peaked at 5.4 GB without a limit, 1.3 GB with 1 GB.
 */
const LOAD_MEMORY_LIMIT = duckdbMemoryLimit();

/** Databases opened by this process, for their temporary directories' names. */
let databases = 0;

/** The attached database that holds a drop's tables. */
const DATABASE = 'budget';

/**
 * A connection whose unqualified names are the drop's tables. `USE` is per connection, and every
 * new connection starts in DuckDB's default database, which cannot be compressed.
 */
async function connectTo(instance: DuckDBInstance): Promise<DuckDBConnection> {
  const connection = await instance.connect();
  await connection.run(`USE ${DATABASE}`);
  return connection;
}

async function readManifest(dir: string): Promise<Manifest> {
  const text = await readFile(path.join(dir, MANIFEST_FILE), 'utf8').catch(() => {
    throw new DropError([fileProblem('drop.json', 'drop.json must exist in the data directory', dir)]);
  });
  const parsed = parseManifest(text);
  if (!parsed.ok) throw new DropError(parsed.problems.map((problem) => fileProblem('drop.json', problem)));
  return parsed.manifest;
}

/**
 * Verifies one file against the manifest, loads it as-is, checks its columns, then stores it typed
 * in schema order, optional columns the file lacks filled in. Returns the optional columns the
 * file has, or the problems found. An optional table the drop leaves out is stored empty.
 */
async function loadTable(
  connection: DuckDBConnection,
  linesStore: LinesStore,
  dir: string,
  table: TableSpec,
  manifest: Manifest,
  compress: () => Promise<unknown>,
  limits: DropLimits,
): Promise<ReadonlySet<string> | Problem[]> {
  const file = fileName(table);
  const expected = manifest.files[file];
  const name = quotedIdentifier(table.name);
  if (!expected) {
    const columns = table.columns.map((c) => `${quotedIdentifier(c.name)} ${c.sqlType}`).join(', ');
    await connection.run(`CREATE TABLE ${name} (${columns})`);
    return new Set();
  }
  const filePath = path.join(dir, file);
  const unlike = await listedFileProblem(dir, file, expected);
  if (unlike) return [unlike];
  const raw = quotedIdentifier(`raw_${table.name}`);
  try {
    const tooBig = await textChunkProblems(connection, filePath, file, table, limits);
    if (tooBig.length) return tooBig;
  } catch {
    return [fileProblem(file, 'must be a readable Parquet file')];
  }
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
  const tooLong = await textLengthProblems(connection, raw, file, table, types, limits);
  if (tooLong.length) return tooLong;

  // Typed first, then in schema order with the absent columns computed from the typed ones (a
  // stage from a complementary flag written as 0/1 reads the boolean).
  const inFile = table.columns.filter((c) => types.has(c.name));
  const narrow = isLinesTable(table.name) && types.has('amount') && (await amountsFitNarrow(connection, raw));
  const cast = (c: ColumnSpec) =>
    narrow && c.name === 'amount' ? `CAST(CAST(${quotedIdentifier(c.name)} AS ${c.sqlType}) AS ${NARROW_MONEY})` : `CAST(${quotedIdentifier(c.name)} AS ${c.sqlType})`;
  const typed = inFile.map((c) => `${cast(c)} AS ${quotedIdentifier(c.name)}`).join(', ');
  const ordered = table.columns
    .map((c) => (types.has(c.name) ? quotedIdentifier(c.name) : `CAST(${c.absent} AS ${c.sqlType}) AS ${quotedIdentifier(c.name)}`))
    .join(', ');
  const rowsOf = (from: string) => `SELECT ${ordered} FROM (SELECT ${typed} FROM ${from})`;
  // Lines are stored before the first compression: compressed once, they never wait uncompressed
  // beside the other lines table (10M lines: a 2.7 GB spill to disk). Their anchors are read from
  // the file, the same rows in the same order.
  if (!isLinesTable(table.name)) await connection.run(`CREATE TABLE ${name} AS ${rowsOf(raw)}`);
  else await linesStore.store(connection, table.name, rowsOf(raw), rowsOf(`read_parquet(${quotedString(filePath)})`));
  await connection.run(`DROP TABLE ${raw}`);
  // Compressed at once (10M lines: 850 MB to about 90 MB), so that the next file, the rules and
  // the derived tables are worked out beside compressed tables.
  await compress();
  return new Set(inFile.filter((c) => c.absent !== undefined).map((c) => c.name));
}

/**
 * Lines' amounts are stored as DECIMAL(18,6) rather than the schema's DECIMAL(38,6) when every one
 * is under 10^12 (made DECIMAL(38,6) first, so the same six decimals): the same values, and the
 * same sums (DuckDB sums either into DECIMAL(38,6)), but an 8-byte decimal, which DuckDB scans
 * about eight times faster than a 16-byte one (1M lines: 2.6 against 21.9 ms;
 * docs/performance.md). A drop with a larger amount keeps DECIMAL(38,6).
 */
const NARROW_MONEY = 'DECIMAL(18,6)';

async function amountsFitNarrow(connection: DuckDBConnection, raw: string): Promise<boolean> {
  const reader = await connection.runAndReadAll(
    `SELECT coalesce(bool_and(abs(TRY_CAST(amount AS DECIMAL(38,6))) < 1000000000000), true) AS fits FROM ${raw}`,
  );
  return reader.getRowObjects()[0]!.fits === true;
}

/** Example rows as the file has them: without the optional columns the service filled in. */
function asInFile(problem: Problem, shape: DropShape): Problem {
  const table = TABLES.find((t) => fileName(t) === problem.file);
  if (!table) return problem;
  const added = new Set(table.columns.filter((c) => c.absent !== undefined && !shape.hasColumn(table.name, c.name)).map((c) => c.name));
  if (!added.size) return problem;
  return { ...problem, examples: problem.examples.map((row) => Object.fromEntries(Object.entries(row).filter(([key]) => !added.has(key)))) };
}

/**
 * Files drop.json lists beyond the tables: the service never reads them, but a release keeps them
 * and a DATA_URL download fetches them, so each must be there as listed (its rows are not counted).
 */
async function otherFileProblems(dir: string, manifest: Manifest): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const [file, listed] of Object.entries(manifest.files)) {
    if (TABLE_FILES.has(file)) continue;
    const unlike = await listedFileProblem(dir, file, listed);
    if (unlike) problems.push(unlike);
  }
  return problems;
}

/**
 * A file drop.json lists that is not in the directory, or not with the size (`bytes`, when given)
 * and sha256 it lists. Nothing here reads `bytes`, but a DATA_URL download of the same drop stops
 * a file at it (remote.ts): a drop valid here must download there.
 */
async function listedFileProblem(dir: string, file: string, { sha256, bytes }: Manifest['files'][string]): Promise<Problem | undefined> {
  const filePath = path.join(dir, file);
  const stats = await stat(filePath).catch(() => null);
  if (!stats?.isFile()) return fileProblem(file, 'file listed in drop.json must exist');
  if (bytes !== undefined && bytes !== stats.size) return fileProblem(file, `bytes must match drop.json (manifest ${bytes}, file ${stats.size})`);
  const actual = await sha256File(filePath);
  if (actual !== sha256.toLowerCase()) return fileProblem(file, `sha256 must match drop.json (manifest ${sha256}, file ${actual})`);
  return undefined;
}

const TABLE_FILES = new Set(TABLES.map(fileName));

const isFile = async (file: string) => (await stat(file).catch(() => null))?.isFile() ?? false;

/**
 * The drop's identity: the checksums of the files the service reads (the nine tables and the
 * optional ones the drop has; other entries of `files` are checked, never read), and every drop.json field
 * that can change an answer (docs/data-drops.md#fingerprint): all of them but the free-text
 * `version`, `created_at` and `description`. A field is added only when the drop has it, so a drop
 * without the optional parts keeps the fingerprint it always had; a field added to ManifestSchema
 * later is covered without a change here.
 */
export function fingerprintOf(manifest: Manifest): string {
  const lines = TABLES.filter((table) => manifest.files[fileName(table)])
    .map(fileName)
    .sort()
    .map((name) => `${name}:${manifest.files[name]!.sha256.toLowerCase()}`);
  const fields = Object.entries(manifest)
    .filter(([key, value]) => !FREE_TEXT.has(key) && key !== 'files' && !sameAsAbsent(value))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, value]) => `drop.json ${key}:${canonicalJson(value)}`);
  return createHash('sha256').update([...lines, ...fields].join('\n')).digest('hex');
}

/**
 * A drop.json value that answers as its absence does: an empty list of known gaps, control totals
 * or notes says there are none, as leaving the field out does (an empty object does not: `stages: {}`
 * is served as such).
 */
export const sameAsAbsent = (value: unknown): boolean => value === undefined || value === null || (Array.isArray(value) && value.length === 0);

/** drop.json fields that describe the drop without changing any answer. */
const FREE_TEXT = new Set(['version', 'created_at', 'description']);

/** JSON with object keys sorted, so that the same content written in another key order is the same drop. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
