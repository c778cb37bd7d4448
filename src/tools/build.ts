/**
 * Building a data drop (docs/data-drops.md#build) from one CSV per table, or one `.xlsx` workbook
 * with a sheet per table (input.ts): `buildDrop(src, outDir)` writes `${table}.parquet` for every
 * table of schema.ts and `drop.json` (see write.ts) into a new directory beside `outDir`, loads it
 * exactly as the server does (every rule, control totals included), and only then puts it in
 * place at once (replace.ts). A build that fails leaves `outDir` byte for byte as it was.
 *
 * CSV format: a header row with the schema's column names in the schema's order (optional columns
 * such as stage, source_id and derived may be left out), an empty field for NULL. Types are never
 * sniffed: every field is read as text and converted here, so that a value that is not what its
 * column expects is reported with its line, never as a database engine's message.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { DuckDBInstance, quotedIdentifier, quotedString, type DuckDBConnection } from '@duckdb/node-api';
import { DropError, fingerprintOf, loadDrop, type Problem } from '../data/drop.js';
import { codeOf, ruleOf } from '../data/problems.js';
import { ControlTotalSchema, MANIFEST_FILE, NoteSchema, parseManifest, type Manifest } from '../data/manifest.js';
import { requiredColumns, TABLES, fileName, type ColumnSpec, type TableSpec } from '../data/schema.js';
import { dropWarnings, placedWarning, warningText, type DropWarning, type Place } from '../data/warnings.js';
import { jsonText } from '../domain/json.js';
import { headerOf, InputError, isWorkbook, lineOf, MANIFEST_TABLES, readInput, type InputOptions, type TableInput } from './input.js';
import { replaceDir, stagingDir } from './replace.js';
import { parquetType, typedColumns, writeDropFiles, type WriteOptions } from './write.js';

export interface BuildOptions extends WriteOptions, InputOptions {
  /** A drop whose drop.json fields are carried over when not given here, and whose tables the input must have (--from). */
  from?: string;
  /** Tables left out on purpose, though `from` has them (--without). */
  without?: readonly string[];
  /** Warnings fail the build (--strict). */
  strict?: boolean;
  /** Warnings about drop.json that the layers above know to give (cli.ts: a definition of no field). */
  manifestWarnings?: (manifest: Manifest) => string[];
}

export interface Built {
  manifest: Manifest;
  /** Where the drop now is: `outDir`, or the new target of `outDir` when it is a symlink. */
  dir: string;
  /** What validation warns about (docs/data-drops.md#warnings); with `strict`, the build fails instead. */
  warnings: string[];
}

/** A refused build: every problem (up to MAX_PROBLEMS) in the analyst's terms, and the version refused. */
export class BuildError extends Error {
  constructor(
    readonly version: string,
    readonly problems: string[],
  ) {
    super(problems[0] ?? 'build failed');
  }
}

const MAX_PROBLEMS = 20;

/** The drop.json fields `--from` never carries: they name this build, or explain one release's change only. */
const NOT_CARRIED = new Set(['version', 'created_at', 'files', 'notes']);

/** What builds under way have written outside OUT_DIR (the staged drop, the input's converted copy). */
const underWay = new Set<string>();
/** Builds putting their drop in place: stopped between two of its renames, OUT_DIR would be left renamed aside. */
let placing = 0;

/**
 * Removes, at once, what builds under way have written outside OUT_DIR, for a process about to
 * exit on a signal (Ctrl-C, a kill): its finally blocks will not run. Returns false, removing
 * nothing, while a drop is being put in place: that must finish, and OUT_DIR then holds it.
 */
export function abandonBuilds(): boolean {
  if (placing) return false;
  for (const dir of underWay) rmSync(dir, { recursive: true, force: true });
  return true;
}

export async function buildDrop(src: string, outDir: string, opts: BuildOptions): Promise<Built> {
  // Made synchronously, so that it is known before a signal can be handled (abandonBuilds).
  const scratch = mkdtempSync(path.join(tmpdir(), 'budget-build-'));
  underWay.add(scratch);
  const staged = await stagingDir(outDir);
  underWay.add(staged);
  try {
    const problems: string[] = [];
    let inputs: Map<string, TableInput>;
    try {
      inputs = await readInput(src, scratch, opts);
    } catch (error) {
      if (error instanceof InputError) throw new BuildError(opts.version, [error.message]);
      throw error;
    }
    const previous = opts.from === undefined ? undefined : await previousManifest(opts.from);
    problems.push(...tableProblems(src, inputs, opts, previous));
    for (const input of inputs.values()) problems.push(...(input.problems ?? []));
    const carried = Object.fromEntries(Object.entries(previous ?? {}).filter(([key]) => !NOT_CARRIED.has(key)));
    const given = await manifestTables(inputs, opts, problems);
    if (problems.length) throw new BuildError(opts.version, problems.slice(0, MAX_PROBLEMS));

    const fields: WriteOptions = {
      ...opts,
      description: opts.description ?? (carried.description as string | undefined) ?? `Built from ${path.basename(path.resolve(src))}`,
      source: opts.source ?? (carried.source as string | undefined),
      license: opts.license ?? (carried.license as string | undefined),
      units: opts.units ?? (carried.units as WriteOptions['units']),
      extra: {
        ...Object.fromEntries(Object.entries(carried).filter(([key]) => !['description', 'source', 'license', 'units'].includes(key))),
        ...given,
      },
    };
    const manifest = await writeDropFiles(staged, fields, async (connection, table, target, step) => {
      const input = inputs.get(table.name);
      if (!input) return false;
      const found = await convertTable(connection, input, target, table, step);
      problems.push(...found);
      return found.length === 0;
    });
    if (problems.length) throw new BuildError(opts.version, problems.slice(0, MAX_PROBLEMS));

    const warnings = await validate(staged, inputs, opts);
    const reused = await reusedVersion(outDir, manifest);
    if (reused) throw new BuildError(opts.version, [reused]);
    placing++;
    try {
      const dir = await replaceDir(staged, outDir, new Set([MANIFEST_FILE, ...TABLES.map(fileName)]), manifest.version);
      return { manifest, dir, warnings };
    } finally {
      placing--;
    }
  } catch (error) {
    await rm(staged, { recursive: true, force: true });
    throw error;
  } finally {
    await rm(scratch, { recursive: true, force: true });
    underWay.delete(scratch);
    underWay.delete(staged);
  }
}

/** Loads the staged drop as the server would; its problems are told with the input's lines. */
async function validate(staged: string, inputs: Map<string, TableInput>, opts: BuildOptions): Promise<string[]> {
  let warnings: DropWarning[];
  let manifestWarnings: string[];
  try {
    const drop = await loadDrop(staged, { allProblems: true });
    try {
      warnings = await dropWarnings(drop);
      manifestWarnings = opts.manifestWarnings?.(drop.manifest) ?? [];
    } finally {
      drop.instance.closeSync();
    }
  } catch (error) {
    if (!(error instanceof DropError)) throw error;
    throw new BuildError(opts.version, await inAnalystTerms(error.problems.slice(0, MAX_PROBLEMS), staged, inputs));
  }
  const told = [...(await warningsInAnalystTerms(warnings, staged, inputs)), ...manifestWarnings];
  if (opts.strict && told.length)
    throw new BuildError(
      opts.version,
      told.slice(0, MAX_PROBLEMS).map((w) => `${w} (--strict makes warnings errors)`),
    );
  return told;
}

/** Warnings told against the input: where a far year is, by its first line in the CSV file (or sheet). */
async function warningsInAnalystTerms(warnings: DropWarning[], staged: string, inputs: Map<string, TableInput>): Promise<string[]> {
  if (!warnings.some((w) => w.at)) return warnings.map(warningText);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const out: string[] = [];
    for (const w of warnings) {
      const places: Place[] = [];
      for (const { table, rows } of w.at ?? []) {
        const input = inputs.get(table);
        if (!input) break;
        const sql = 'SELECT min(file_row_number) FROM read_parquet($file, file_row_number = true) WHERE year = $year';
        const first = (await connection.runAndReadAll(sql, { file: path.join(staged, `${table}.parquet`), year: w.year ?? null })).getRows()[0]?.[0];
        places.push({ label: input.label, first: `line ${lineOf(input, Number(first))}`, rows });
      }
      out.push(w.at && places.length === w.at.length ? placedWarning(w.text, places, 'line') : warningText(w));
    }
    return out;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/**
 * A server keeps each drop it served as a release, known by its version, and refuses a drop whose
 * version it holds with other content: a build that put such a drop in place of the one in OUT
 * would leave the directory and the served drop disagreeing. What OUT holds is all this tool can
 * see of the releases, so that is what it checks.
 */
async function reusedVersion(outDir: string, manifest: Manifest): Promise<string | undefined> {
  const text = await readFile(path.join(outDir, MANIFEST_FILE), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const current = parseManifest(text);
  if (!current.ok || current.manifest.version !== manifest.version || fingerprintOf(current.manifest) === fingerprintOf(manifest)) return undefined;
  return `--version ${manifest.version}: ${outDir} already holds a drop of that version with other content, and a server keeps each version as a release of its own; give this drop a version of its own`;
}

async function previousManifest(dir: string): Promise<Record<string, unknown>> {
  const file = path.join(dir, MANIFEST_FILE);
  const text = await readFile(file, 'utf8').catch(() => {
    throw new BuildError('', [`--from ${dir}: no ${MANIFEST_FILE} there (--from names the directory of the drop to carry over)`]);
  });
  const parsed = parseManifest(text);
  if (!parsed.ok)
    throw new BuildError(
      '',
      parsed.problems.map((p) => `--from ${file}: ${p}`),
    );
  return JSON.parse(text) as Record<string, unknown>;
}

/** What is wrong with the tables named by --without: each must be an optional table. */
export function withoutProblems(names: readonly string[]): string[] {
  const optional = TABLES.filter((t) => t.optional).map((t) => t.name);
  return names.flatMap((name) => {
    const table = TABLES.find((t) => t.name === name);
    if (!table) return [`--without ${name}: not a table; the optional tables are ${optional.join(', ')}`];
    if (!table.optional) return [`--without ${name}: every drop has ${name}; only ${optional.join(', ')} may be left out`];
    return [];
  });
}

/** Tables missing from the input: required ones, and those the previous drop has unless left out on purpose. */
function tableProblems(src: string, inputs: Map<string, TableInput>, opts: BuildOptions, previous: Record<string, unknown> | undefined): string[] {
  const problems: string[] = [];
  const without = new Set(opts.without ?? []);
  const where = (name: string) => (isWorkbook(src) ? `sheet "${name}" of ${path.basename(src)}` : `${name}.csv`);
  problems.push(...withoutProblems([...without]));
  for (const name of without) inputs.delete(name);
  for (const table of TABLES) {
    if (inputs.has(table.name) || without.has(table.name)) continue;
    const previousFiles = (previous?.files ?? {}) as Record<string, unknown>;
    if (!table.optional) problems.push(`${where(table.name)}: not found (every drop has ${table.name})`);
    else if (Object.hasOwn(previousFiles, fileName(table))) {
      problems.push(
        `${where(table.name)}: not found, but the drop of --from ${opts.from} has ${table.name}; add it, or say --without ${table.name} to leave it out`,
      );
    }
  }
  return problems;
}

/** What each column of control_totals and notes expects, as the analyst reads it. */
const MANIFEST_EXPECTED: Record<string, string> = {
  year: 'a year from 1900 to 2100',
  stage: 'one of initial, amended, outturn',
  total_expenses: 'a number, such as 63000',
  total_resources: 'a number, such as 63000',
  table: 'the name of a table',
  id: 'a whole number (the line id, or the year for a series)',
  text: 'a text',
  source_id: 'a whole number (the id of a source)',
};

/** drop.json fields given as tables of the input (control_totals, notes), checked with their lines. */
async function manifestTables(inputs: Map<string, TableInput>, opts: BuildOptions, problems: string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of [
    ['control_totals', ControlTotalSchema],
    ['notes', NoteSchema],
  ] as const) {
    const input = inputs.get(name);
    if (!input) continue;
    // input.csv was written by input.ts: one record per line, a row wider than the header kept wide.
    const [header = [], ...rows] = parse(await readFile(input.csv, 'utf8'), { relax_column_count: true }) as string[][];
    const columns: readonly string[] = MANIFEST_TABLES[name];
    const shape = schema.shape as Record<string, { safeParse(value: unknown): { success: boolean } }>;
    const required = columns.filter((c) => !shape[c]!.safeParse(undefined).success);
    // One column whose name holds the other separator: the file is not separated as the others are.
    const separator = opts.locale === 'fr' ? ',' : ';';
    if (header.length === 1 && header[0]!.includes(separator)) {
      const how =
        opts.locale === 'fr'
          ? 'by ",", but --locale fr reads ";"-separated files'
          : 'by ";", as a French spreadsheet exports them; build with --locale fr';
      problems.push(`${headerOf(input)}: the columns are separated ${how}`);
      continue;
    }
    if (new Set(header).size !== header.length || !header.every((c) => columns.includes(c)) || !required.every((c) => header.includes(c))) {
      const optional = columns.filter((c) => !required.includes(c));
      problems.push(
        `${headerOf(input)}: header is "${header.join(',')}", expected "${columns.join(',')}" (${optional.join(' and ')} may be left out)`,
      );
      continue;
    }
    const items: unknown[] = [];
    rows.forEach((values, i) => {
      const where = `${input.label}, line ${lineOf(input, i)}`;
      if (values.length > header.length) {
        problems.push(`${where}: ${fieldCountProblem(input, String(values.length), header.length)}`);
        return;
      }
      const item: Record<string, unknown> = {};
      header.forEach((key, c) => {
        const value = values[c]?.trim() ?? '';
        if (value === '') return;
        item[key] = ['text', 'table', 'stage'].includes(key) || !/^[+-]?\d+(\.\d+)?$/.test(value) ? value : Number(value);
      });
      const parsed = schema.safeParse(item);
      if (parsed.success) items.push(parsed.data);
      else {
        const column = String(parsed.error.issues[0]!.path[0]);
        const value = item[column];
        const what = value === undefined ? 'is empty; expected' : `"${String(value)}" is not`;
        problems.push(`${where}, column ${column}: ${what} ${MANIFEST_EXPECTED[column]}`);
      }
    });
    out[name] = items;
  }
  return out;
}

const isNumber = (col: ColumnSpec) => col.kind === 'numeric' || col.kind === 'integer';
/** Read as text and converted here: numbers and flags (so that a bad one is reported with its line). */
const readAsText = (col: ColumnSpec) => isNumber(col) || col.kind === 'boolean';

/** The raw text of a converted column, kept beside its value to report what could not be read. */
const textOf = (col: ColumnSpec) => quotedIdentifier(`${col.name}__text`);

/**
 * Numbers are held wider than they are written: DuckDB's casts round silently ("2021.5" cast to
 * INTEGER is 2022), so a fraction in an id or year, or a 4th decimal in money, is reported
 * instead. Integers are held as DECIMAL(38,9); money as DECIMAL(38,6), the type the server stores
 * it in, whose 32 digits before the point hold every amount the server accepts (less than 10^32).
 * Parsing text as a 128-bit DECIMAL is slow (about 30,000 rows/s here), so the plain numbers that
 * make up nearly every CSV (an integer of up to 18 digits; money with up to 3 decimals) take a
 * fast exact path through BIGINT or DECIMAL(18,3); anything else (more digits or decimals, an
 * exponent) the wide one. Unreadable text, or money too large to hold, gives NULL, reported by rowProblems.
 */
function numberFrom(col: ColumnSpec): string {
  const text = `NULLIF(trim(${textOf(col)}), '')`;
  const [plain, exact, held] =
    col.kind === 'integer' ? ['[+-]?\\d{1,18}', 'BIGINT', 'DECIMAL(38,9)'] : ['[+-]?\\d{1,15}(\\.\\d{0,3})?', 'DECIMAL(18,3)', 'DECIMAL(38,6)'];
  return `CASE WHEN regexp_full_match(${text}, '${plain}') THEN CAST(CAST(${text} AS ${exact}) AS ${held})
               ELSE TRY_CAST(${text} AS ${held}) END`;
}

const flagFrom = (col: ColumnSpec) =>
  `CASE lower(trim(${textOf(col)})) WHEN 'true' THEN true WHEN '1' THEN true WHEN 'false' THEN false WHEN '0' THEN false END`;

/** What a column expects, as the analyst reads it. */
function expected(col: ColumnSpec): string {
  if (col.kind === 'integer') return col.name === 'year' ? 'a year such as 2026' : 'a whole number';
  if (col.kind === 'numeric') return 'a number with at most 3 decimals, such as 13700.5 (with --locale fr: 13 700,5)';
  if (col.kind === 'boolean') return 'true or false (also 1 or 0; with --locale fr, VRAI or FAUX)';
  return 'a text';
}

/** Reads one CSV, checks it, writes it as Parquet. Returns the problems found (none: written). */
async function convertTable(
  connection: DuckDBConnection,
  input: TableInput,
  out: string,
  table: TableSpec,
  step: (name: string) => void,
): Promise<string[]> {
  const header = await checkHeader(input, table);
  if (typeof header === 'string') return [header];
  const columns = header;
  const read = columns.map(
    (c) => `${quotedString(readAsText(c) ? `${c.name}__text` : c.name)}: ${quotedString(readAsText(c) ? 'VARCHAR' : parquetType(c))}`,
  );
  const values = columns.map((c) =>
    isNumber(c)
      ? `${numberFrom(c)} AS ${quotedIdentifier(c.name)}, ${textOf(c)}`
      : c.kind === 'boolean'
        ? `${flagFrom(c)} AS ${quotedIdentifier(c.name)}, ${textOf(c)}`
        : quotedIdentifier(c.name),
  );
  await connection.run('DROP TABLE IF EXISTS src');
  step('reading');
  try {
    // Paths are bound as parameters (DuckDB accepts them in read_csv and in COPY ... TO), never
    // spliced into the SQL text.
    await connection.run(
      `CREATE TEMP TABLE src AS SELECT ${values.join(', ')} FROM read_csv($csv, header = true, auto_detect = false,
         delim = ',', quote = '"', escape = '"', strict_mode = true, columns = {${read.join(', ')}})`,
      { csv: input.csv },
    );
  } catch (error) {
    return [csvReadProblem(input, columns.length, error)];
  }
  step('checking');
  const problems = await rowProblems(connection, input, columns);
  if (problems.length) return problems;
  step('writing');
  const wide = await wideMoney(connection, columns);
  await connection.run(`COPY (SELECT ${typedColumns(columns, wide)} FROM src ORDER BY rowid) TO $out (FORMAT parquet)`, { out });
  return [];
}

/** The money columns holding an amount of 10^15 or more, which DECIMAL(18,3) cannot hold. */
async function wideMoney(connection: DuckDBConnection, columns: ColumnSpec[]): Promise<Set<string>> {
  const money = columns.filter((c) => c.kind === 'numeric');
  if (!money.length) return new Set();
  const found = (
    await connection.runAndReadAll(
      `SELECT ${money.map((c) => `coalesce(max(abs(${quotedIdentifier(c.name)})) >= 1000000000000000, false)`).join(', ')} FROM src`,
    )
  ).getRows()[0]!;
  return new Set(money.filter((_, i) => found[i] === true).map((c) => c.name));
}

/**
 * DuckDB's CSV reader stops at a line it cannot split into the header's fields, or at bytes that
 * are not UTF-8: say so with the line, in the analyst's terms.
 */
function csvReadProblem(input: TableInput, expectedFields: number, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = /Line:\s*(\d+)/i.exec(message)?.[1];
  // DuckDB numbers the lines of the file it read, header included: for a converted table, map back.
  const where = line === undefined ? input.label : `${input.label}, line ${input.lines ? lineOf(input, Number(line) - 2) : line}`;
  const found = /Found:?\s*(\d+)/i.exec(message)?.[1];
  if (/unicode|utf-?8|byte sequence/i.test(message)) {
    return `${where}: is not UTF-8 text; name its character set with --encoding (a spreadsheet on Windows usually writes windows-1252)`;
  }
  if (found !== undefined || /columns|fields/i.test(message))
    return `${where}: ${fieldCountProblem(input, found ?? 'another number of', expectedFields)}`;
  return `${where}: cannot be read as comma-separated values with a header row (check the quotes)`;
}

/** A record split into more or fewer fields than the header has. */
function fieldCountProblem(input: TableInput, found: string, expectedFields: number): string {
  const expected = `${found} fields, expected ${expectedFields} (the header's columns)`;
  // A sheet's cells need no quotes; a file's values holding its separator do.
  if (!input.separator) return expected;
  const holding = input.separator === ';' ? '";"' : 'comma';
  return `${expected}; a value holding a ${holding} must be in "quotes"${input.lines ? '' : ", and a ';'-separated export needs --locale fr"}`;
}

/**
 * With explicit column types DuckDB maps CSV fields by position and only skips the header, so a
 * reordered or renamed column would load silently into the wrong place: compare names first.
 * Returns the table's columns that the CSV has, in order, or the problem.
 */
async function checkHeader(input: TableInput, table: TableSpec): Promise<ColumnSpec[] | string> {
  const text = (await readFile(input.csv)).subarray(0, 64 * 1024).toString('utf8');
  const first = (text.split('\n')[0] ?? '').replace(/^\uFEFF/, '').replace(/\r$/, '');
  const header = first.split(',').map((name) => name.trim().replace(/^"(.*)"$/, '$1'));
  const where = headerOf(input);
  if (!input.lines && header.length === 1 && first.includes(';')) {
    return `${where}: the columns are separated by ";", as a French spreadsheet exports them; build with --locale fr`;
  }
  const columns = table.columns.filter((c) => header.includes(c.name));
  const required = requiredColumns(table).map((c) => c.name);
  const inOrder = columns.map((c) => c.name).join(',') === header.join(',');
  if (!inOrder || !required.every((name) => header.includes(name))) {
    const optional = table.columns.filter((c) => c.absent !== undefined).map((c) => c.name);
    const may = optional.length ? ` (then, optionally and in this order: ${optional.join(', ')})` : '';
    // As the analyst wrote it: with the file's own separator (a converted file's header was rewritten with commas).
    const sep = input.separator ?? ',';
    return `${where}: header is "${header.join(sep)}", expected "${required.join(sep)}"${may}`;
  }
  if (table.oneOf && !table.oneOf.some((name) => header.includes(name))) {
    return `${where}: header must have a ${table.oneOf.join(' or a ')} column`;
  }
  return columns;
}

/** Rows with an unreadable number or flag, an empty required field, a fractional integer or money with more than 3 decimals. */
async function rowProblems(connection: DuckDBConnection, input: TableInput, columns: ColumnSpec[]): Promise<string[]> {
  const checks: string[] = [];
  const say = (col: ColumnSpec, what: string) => `${quotedString(`column ${col.name}: `)} || ${what}`;
  const value = (col: ColumnSpec) => `'"' || ${textOf(col)} || '"'`;
  for (const c of columns) {
    const col = quotedIdentifier(c.name);
    if (c.kind === 'numeric') {
      // The server's own check (columns.ts), on the value held or, when too large to hold, the text.
      const magnitude = `abs(coalesce(${col}::DOUBLE, TRY_CAST(trim(${textOf(c)}) AS DOUBLE)))`;
      checks.push(
        `WHEN isfinite(${magnitude}) AND ${magnitude} >= 1e32 THEN ${say(c, `${value(c)} || ' is too large (money must be less than 10^32 in absolute value)'`)}`,
      );
    }
    if (readAsText(c)) {
      checks.push(`WHEN ${col} IS NULL AND trim(${textOf(c)}) <> '' THEN ${say(c, `${value(c)} || ${quotedString(` is not ${expected(c)}`)}`)}`);
    }
    if (!c.nullable) checks.push(`WHEN ${col} IS NULL THEN ${say(c, quotedString(`is empty; expected ${expected(c)}`))}`);
    if (c.kind === 'integer') checks.push(`WHEN ${col} <> trunc(${col}) THEN ${say(c, `${value(c)} || ${quotedString(` is not ${expected(c)}`)}`)}`);
    if (c.name === 'year') checks.push(`WHEN ${col} NOT BETWEEN 1 AND 9999 THEN ${say(c, `${value(c)} || ' is not a year from 1 to 9999'`)}`);
    if (c.kind === 'integer' && c.name !== 'year') {
      checks.push(
        `WHEN ${col} NOT BETWEEN -9223372036854775808 AND 9223372036854775807 THEN ${say(c, `${value(c)} || ' is too large for an id (ids are 64-bit integers, from -9223372036854775808 to 9223372036854775807)'`)}`,
      );
    }
    if (c.kind === 'numeric') {
      // Money is held to 6 decimals, which would round a 7th away unseen: the value is read as a
      // double too, and a decimal past the 3rd within its 15 significant digits is refused; past
      // them it is a spreadsheet's float noise (1234.1 * 3 = 3702.2999999999997), read as 3702.3.
      const d = `TRY_CAST(trim(${textOf(c)}) AS DOUBLE)`;
      const finer = `abs(${d} - round(${d}, 3)) > greatest(abs(${d}), 1) * 1e-14`;
      checks.push(`WHEN ${col} <> round(${col}, 3) OR ${finer} THEN ${say(c, `${value(c)} || ' has more than 3 decimals'`)}`);
    }
  }
  if (!checks.length) return [];
  const result = await connection.runAndReadAll(
    `SELECT rowid, message FROM (SELECT rowid, CASE ${checks.join(' ')} END AS message FROM src)
     WHERE message IS NOT NULL ORDER BY rowid LIMIT ${MAX_PROBLEMS}`,
  );
  return result
    .getRows()
    .map(([rowid, message]) => `${input.label}, line ${lineOf(input, Number(rowid))}, ${asWritten(input, Number(rowid), String(message))}`);
}

/**
 * A row's problem (`column amount: "12.34567" has …`) quoting the value as the analyst wrote it
 * (12,34567 under --locale fr). A value the conversion rewrote was read as a plain number, with
 * no quote in it.
 */
function asWritten(input: TableInput, record: number, message: string): string {
  const column = /^column ([^:]+): "/.exec(message)?.[1];
  const written = column === undefined ? undefined : input.written?.get(column)?.[record];
  return written === undefined ? message : message.replace(/^(column [^:]+: )"[^"]*"/, (_, start: string) => `${start}"${written}"`);
}

/**
 * A rule the loaded drop breaks, told against the input: the CSV file (or sheet) instead of the
 * Parquet file, and each example row with its line. Rows are found in the staged Parquet file,
 * which keeps the input's order.
 */
async function inAnalystTerms(problems: Problem[], staged: string, inputs: Map<string, TableInput>): Promise<string[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const out: string[] = [];
    for (const p of problems) {
      // The analyst wrote a note as a line of notes.csv, not as an entry of drop.json's list.
      const notes = inputs.get('notes');
      if (p.note !== undefined && notes) {
        out.push(`${notes.label}, line ${lineOf(notes, p.note)}: ${p.rule}`);
        continue;
      }
      // A control total given as a line of control_totals.csv, not one carried over by --from.
      const totals = inputs.get('control_totals');
      if (p.controlTotal !== undefined && totals) {
        out.push(`${totals.label}, line ${lineOf(totals, p.controlTotal.index)}, column ${p.controlTotal.column}: ${p.rule}${codeOf(p)}`);
        continue;
      }
      const table = p.file.replace(/\.parquet$/, '');
      const input = inputs.get(table);
      const count = p.count > 1 ? ` (${p.count} rows${p.examples.length < p.count ? `, first ${p.examples.length}` : ''})` : '';
      if (!input || !p.examples.length) {
        out.push(`${input?.label ?? p.file}: ${ruleOf(p)}${count}${codeOf(p)}`);
        continue;
      }
      const lines: string[] = [];
      for (const example of p.examples) {
        const found = (await rowIndices(connection, path.join(staged, p.file), example)).map((index) => lineOf(input, index));
        const at = found.length === 0 ? '' : found.length === 1 ? `line ${found[0]}: ` : `lines ${found.join(', ')}: `;
        lines.push(`    ${at}${'occurrences' in example ? duplicateText(example) : jsonText(example)}`);
      }
      out.push([`${input.label}: ${p.rule}${count}${codeOf(p)}:`, ...lines].join('\n'));
    }
    return out;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** A duplicate (a unique rule's example: its key and how often) in words: `code "MA" is given 2 times`. */
function duplicateText({ occurrences, ...key }: Record<string, unknown>): string {
  const parts = Object.entries(key).map(([column, value]) => `${column} ${jsonText(value)}`);
  const named = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)} are given together` : `${parts[0]} is given`;
  return `${named} ${String(occurrences)} times`;
}

/**
 * The positions in its file of the rows matching an example's key (a duplicate's own columns;
 * else id; else year, origin and stage), the first five: one for most problems, each line of a
 * key given twice for a duplicate.
 */
async function rowIndices(connection: DuckDBConnection, file: string, example: Record<string, unknown>): Promise<number[]> {
  try {
    const described = (await connection.runAndReadAll('DESCRIBE SELECT * FROM read_parquet($file)', { file })).getRowObjects();
    const columns = new Set(described.map((r) => String(r.column_name)));
    const candidates =
      'occurrences' in example
        ? Object.keys(example).filter((k) => k !== 'occurrences')
        : columns.has('id') && 'id' in example
          ? ['id']
          : ['year', 'debt_origin_id', 'stage'];
    const keys = candidates.filter((k) => columns.has(k) && example[k] !== undefined && example[k] !== null);
    if (!keys.length) return [];
    const where = keys.map((k) => `CAST(${quotedIdentifier(k)} AS VARCHAR) = $${k}`).join(' AND ');
    const params = Object.fromEntries(keys.map((k) => [k, String(example[k])]));
    const rows = (
      await connection.runAndReadAll(`SELECT file_row_number FROM read_parquet($file, file_row_number = true) WHERE ${where} ORDER BY 1 LIMIT 5`, {
        file,
        ...params,
      })
    ).getRows();
    return rows.map((row) => Number(row[0]));
  } catch {
    return [];
  }
}
