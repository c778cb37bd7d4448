/**
 * What changed between two data drops (see docs/data-drops.md): per table, the rows added, removed
 * and changed, matched by key (an id for lines, organizations, trees and sources; the year, the
 * debt origin and the stage for series), and the totals per year before and after.
 *
 * The comparison runs in DuckDB, so no row passes through JavaScript. `budget-data diff` reads
 * two directories (or drops at http(s) URLs, downloaded first) in a scratch database. After a
 * reload, the reloader compares the previous drop with the new one from their databases
 * (changeBetween): the previous drop's files on disk may already have been replaced.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { text as textOf } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import { DuckDBInstance, quotedIdentifier, quotedString, type DuckDBConnection } from '@duckdb/node-api';
import { roundHalfAway } from '../domain/numbers.js';
import { sameAsAbsent, type LoadedDrop } from './drop.js';
import { sourceFor } from './drop-source.js';
import { MANIFEST_FILE, readManifestText, type Note } from './manifest.js';
import { scratchDir } from './lockdown.js';
import { TABLES } from './schema.js';
import { plainValue } from './values.js';
import { closeDatabase } from './close-database.js';

/** One drop as the diff reads it: its manifest's labels and one Parquet file per table. */
export interface DropSide {
  version: string;
  created_at: string;
  /** Table name (the file name without `.parquet`) to the file's path. */
  files: ReadonlyMap<string, string>;
  /** drop.json as written (validated), for the changes to its other fields. */
  manifest: Record<string, unknown>;
}

/** A drop.json field whose value differs (every field but version, created_at and files). */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** What totals/?year=Y&stage=S answers on each side, and the change. */
export interface StageTotals {
  year: number;
  stage: 'initial' | 'amended' | 'outturn';
  expenses_before: number | null;
  expenses_after: number | null;
  expenses_change: number | null;
  resources_before: number | null;
  resources_after: number | null;
  resources_change: number | null;
}

/** An expense or resource line added, removed or changed, as a release note names it. */
export interface LineChange {
  table: 'expenses' | 'resources';
  change: 'added' | 'removed' | 'changed';
  id: number | string;
  year: number | null;
  amount_before: number | null;
  amount_after: number | null;
  category: string | null;
  organization: string | null;
  stage: string | null;
  source: string | null;
  /** For a changed line: the columns that changed. */
  changed: string[];
}

export type Key = Record<string, unknown>;

export interface TableDiff {
  table: string;
  /** The columns rows are matched by. */
  key: string[];
  rows_before: number;
  rows_after: number;
  added: number;
  removed: number;
  changed: number;
  /** Up to EXAMPLES keys of each kind, in key order; a changed row names its changed columns with their values before and after. */
  examples: {
    added: Key[];
    removed: Key[];
    changed: { key: Key; columns: Record<string, { before: unknown; after: unknown }> }[];
  };
}

export interface YearTotals {
  year: number;
  /** Sums of the year's expense and resource lines of the law as amended (initial + amendment; outturn lines left out); null when the drop has no line that year. */
  expenses_before: number | null;
  expenses_after: number | null;
  resources_before: number | null;
  resources_after: number | null;
  moved: boolean;
}

export interface DropDiff {
  before: { version: string; created_at: string };
  after: { version: string; created_at: string };
  /** True when no table has a row added, removed or changed and drop.json differs in version and created_at at most. */
  equal: boolean;
  drop_json: FieldChange[];
  tables: TableDiff[];
  totals: YearTotals[];
  /** Per year and stage, where either side has lines. */
  totals_by_stage: StageTotals[];
  /** Every line added, removed or changed (up to MAX_LINES; `lines_left_out` says how many more). */
  lines: LineChange[];
  lines_left_out: number;
  /** The new drop's notes: why figures changed. */
  notes: Note[];
}

/** What /budget/api/meta/ shows of the last swap: counts, drop.json's changed fields and the notes. */
export interface ChangeSummary {
  previous_version: string;
  tables: Record<string, { added: number; removed: number; changed: number }>;
  /** Years whose expense or resource total (law as amended) moved, or that appeared or disappeared. */
  years_with_moved_totals: number[];
  drop_json: FieldChange[];
  notes: Note[];
}

const EXAMPLES = 5;
/** Lines listed one by one; a drop replaced wholesale says how many more there are. */
const MAX_LINES = 10_000;
/** drop.json fields that name the drop rather than describe it: not changes. */
const LABELS = new Set(['version', 'created_at', 'files']);

/**
 * The tables compared, each matched on its key (schema.ts; `stage` joins a series' key when either
 * drop has that column): every table of the drop format, those with ids first, then the series by
 * year, as the reports list them.
 */
const KEYS: ReadonlyMap<string, readonly string[]> = new Map(
  [...TABLES.filter((t) => t.key[0] === 'id'), ...TABLES.filter((t) => t.key[0] !== 'id')].map((t) => [t.name, t.key]),
);
const TABLE_ORDER = [...KEYS.keys()];

/** A column as the service stores it: its type, and its value when a drop leaves it out (schema.ts). */
function columnSpec(table: string, column: string): { type: string; absent: string } {
  const spec = TABLES.find((t) => t.name === table)?.columns.find((c) => c.name === column);
  // A column the format does not know is compared as text.
  return { type: spec?.sqlType ?? 'VARCHAR', absent: spec?.absent ?? 'NULL' };
}

/** Where one side's table is read from: a SQL relation (a table name, or read_parquet of a file) and its columns. */
interface Relation {
  from: string;
  columns: string[];
}

/**
 * Compares two drops read from Parquet files, in a scratch database. With `examples`, each table
 * also lists a few keys of each kind (the CLI); without, only the counts (the reloader's summary).
 */
export async function diffDrops(before: DropSide, after: DropSide): Promise<DropDiff> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const relations = async (side: DropSide) => {
      const out = new Map<string, Relation>();
      for (const [table, file] of side.files) {
        if (!KEYS.has(table)) continue;
        const from = `read_parquet(${quotedString(file)})`;
        let described;
        try {
          described = (await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${from}`)).getRowObjects();
        } catch (error) {
          // drop.json lists it, but it is not there: say so, rather than call it unreadable.
          const missing = !(await stat(file).catch(() => null));
          throw new Error(`${table}.parquet: ${missing ? 'listed in drop.json but missing' : 'not a readable Parquet file'} (${file})`, { cause: error });
        }
        out.set(table, { from, columns: described.map((r) => String(r.column_name)) });
      }
      return out;
    };
    return await compare(connection, before, await relations(before), after, await relations(after), true);
  } finally {
    connection.closeSync();
    closeDatabase(instance);
  }
}

type Side = { version: string; created_at: string; manifest: Record<string, unknown> };

async function compare(
  connection: DuckDBConnection,
  before: Side,
  a: ReadonlyMap<string, Relation>,
  after: Side,
  b: ReadonlyMap<string, Relation>,
  withExamples: boolean,
): Promise<DropDiff> {
  const names = TABLE_ORDER.filter((t) => a.has(t) || b.has(t));
  const compared = names.map((t) => ({ table: t, ...comparedSql(t, a.get(t), b.get(t)) }));
  // One statement counts every table: each statement has a fixed cost that dominates on small drops.
  const counted = (
    await connection.runAndReadAll(
      compared
        .map(
          ({ table, sql }) => `SELECT * FROM (${sql}
             SELECT ${quotedString(table)} AS "table", count(*) FILTER (WHERE __kind = 'added') AS added,
                    count(*) FILTER (WHERE __kind = 'removed') AS removed, count(*) FILTER (WHERE __kind = 'changed') AS changed,
                    (SELECT count(*) FROM a) AS before, (SELECT count(*) FROM b) AS after
             FROM compared)`,
        )
        .join(' UNION ALL '),
    )
  ).getRowObjects();
  const counts = new Map(counted.map((row) => [String(row.table), row]));
  const tables: TableDiff[] = [];
  for (const c of compared) tables.push(await diffTable(connection, c, counts.get(c.table)!, withExamples));
  const dropJson = fieldChanges(before.manifest, after.manifest);
  const lines = withExamples ? await lineChanges(connection, compared, a, b) : { lines: [], left_out: 0 };
  return {
    before: { version: before.version, created_at: before.created_at },
    after: { version: after.version, created_at: after.created_at },
    equal: dropJson.length === 0 && tables.every((t) => t.added + t.removed + t.changed === 0),
    drop_json: dropJson,
    tables,
    totals: await yearTotals(connection, a, b),
    totals_by_stage: withExamples ? await stageTotals(connection, a, b) : [],
    lines: lines.lines,
    lines_left_out: lines.left_out,
    notes: (after.manifest.notes as Note[] | undefined) ?? [],
  };
}

/** drop.json's fields that differ, in a stable order (keys compared as canonical JSON). */
function fieldChanges(before: Record<string, unknown>, after: Record<string, unknown>): FieldChange[] {
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((f) => !LABELS.has(f)).sort();
  return fields
    .filter((field) => canonical(before[field]) !== canonical(after[field]))
    .map((field) => ({ field, before: before[field] ?? null, after: after[field] ?? null }));
}

function canonical(value: unknown): string {
  if (value === undefined || value === null || sameAsAbsent(value)) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([x], [y]) => (x < y ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The line's stage on a side: its stage column, or what its complementary flag says. */
function lineStage(r: Relation): string {
  if (r.columns.includes('stage')) return 'stage';
  return r.columns.includes('complementary') ? "CASE WHEN complementary THEN 'amendment' ELSE 'initial' END" : "'initial'";
}

/** What totals/ answers per year and API stage (initial; amended = initial + amendment; outturn), on each side. */
async function stageTotals(connection: DuckDBConnection, a: ReadonlyMap<string, Relation>, b: ReadonlyMap<string, Relation>): Promise<StageTotals[]> {
  const sums = (r: Relation | undefined) => {
    if (!r || !r.columns.includes('year') || !r.columns.includes('amount')) return 'SELECT NULL::INTEGER AS year, NULL::VARCHAR AS stage, NULL::DECIMAL(38,6) AS total WHERE false';
    return `SELECT year::INTEGER AS year, s.stage, sum(amount::DECIMAL(38,6)) AS total
            FROM (SELECT year, amount, ${lineStage(r)} AS line_stage FROM ${r.from}) l
            JOIN (VALUES ('initial', 'initial'), ('amended', 'initial'), ('amended', 'amendment'), ('outturn', 'outturn')) s(stage, line_stage) USING (line_stage)
            GROUP BY ALL`;
  };
  const rows = (
    await connection.runAndReadAll(
      `WITH eb AS (${sums(a.get('expenses'))}), ea AS (${sums(b.get('expenses'))}),
            rb AS (${sums(a.get('resources'))}), ra AS (${sums(b.get('resources'))}),
            keys AS (SELECT year, stage FROM eb UNION SELECT year, stage FROM ea UNION SELECT year, stage FROM rb UNION SELECT year, stage FROM ra)
       SELECT keys.year, keys.stage, round(eb.total, 3)::DOUBLE AS eb, round(ea.total, 3)::DOUBLE AS ea,
              round(rb.total, 3)::DOUBLE AS rb, round(ra.total, 3)::DOUBLE AS ra
       FROM keys LEFT JOIN eb USING (year, stage) LEFT JOIN ea USING (year, stage) LEFT JOIN rb USING (year, stage) LEFT JOIN ra USING (year, stage)
       ORDER BY keys.year, array_position(['initial', 'amended', 'outturn'], keys.stage)`,
    )
  ).getRowObjects();
  const money = (v: unknown) => (v === null ? null : roundHalfAway(Number(v), 3));
  const change = (x: number | null, y: number | null) => roundHalfAway((y ?? 0) - (x ?? 0), 3);
  return rows.map((r) => {
    const [eb, ea, rb, ra] = [money(r.eb), money(r.ea), money(r.rb), money(r.ra)];
    return {
      year: Number(r.year),
      stage: String(r.stage) as StageTotals['stage'],
      expenses_before: eb,
      expenses_after: ea,
      expenses_change: eb === null && ea === null ? null : change(eb, ea),
      resources_before: rb,
      resources_after: ra,
      resources_change: rb === null && ra === null ? null : change(rb, ra),
    };
  });
}

/** Id to name of a small table (categories, organizations, sources) on one side. */
async function namesOf(connection: DuckDBConnection, r: Relation | undefined, column: string): Promise<Map<string, string>> {
  if (!r || !r.columns.includes('id') || !r.columns.includes(column)) return new Map();
  const rows = (await connection.runAndReadAll(`SELECT id::VARCHAR AS id, ${quotedIdentifier(column)}::VARCHAR AS name FROM ${r.from}`)).getRows();
  return new Map(rows.map(([id, name]) => [String(id), String(name)]));
}

/** Every expense and resource line added, removed or changed, with the names a reader knows them by. */
async function lineChanges(
  connection: DuckDBConnection,
  compared: ({ table: string } & ReturnType<typeof comparedSql>)[],
  a: ReadonlyMap<string, Relation>,
  b: ReadonlyMap<string, Relation>,
): Promise<{ lines: LineChange[]; left_out: number }> {
  const names = {
    category: [await namesOf(connection, a.get('categories'), 'name'), await namesOf(connection, b.get('categories'), 'name')],
    organization: [await namesOf(connection, a.get('organizations'), 'name'), await namesOf(connection, b.get('organizations'), 'name')],
    source: [await namesOf(connection, a.get('sources'), 'title'), await namesOf(connection, b.get('sources'), 'title')],
  } as const;
  const lines: LineChange[] = [];
  let leftOut = 0;
  for (const { table, sql, values } of compared) {
    if (table !== 'expenses' && table !== 'resources') continue;
    const rows = (await connection.runAndReadAll(`${sql} SELECT * FROM compared WHERE __kind IS NOT NULL ORDER BY id`)).getRowObjects();
    for (const row of rows) {
      if (lines.length >= MAX_LINES) {
        leftOut++;
        continue;
      }
      const change = String(row.__kind) as LineChange['change'];
      const side = change === 'removed' ? 'before' : 'after';
      const value = (column: string) => (values.includes(column) ? plainValue(row[`${side}:${column}`]) : null);
      const named = (kind: keyof typeof names, column: string) => {
        const id = value(column);
        if (id === null || id === undefined) return null;
        return names[kind][side === 'before' ? 0 : 1].get(String(id)) ?? `#${String(id)}`;
      };
      const number = (v: unknown) => (v === null || v === undefined ? null : roundHalfAway(Number(v), 3));
      lines.push({
        table,
        change,
        id: plainValue(row.id) as number,
        year: number(value('year')),
        amount_before: change === 'added' ? null : number(plainValue(row['before:amount'])),
        amount_after: change === 'removed' ? null : number(plainValue(row['after:amount'])),
        category: named('category', 'category_id'),
        organization: named('organization', 'organization_id'),
        stage: stageOf(value),
        source: named('source', 'source_id'),
        changed: change === 'changed' ? values.filter((c) => row[`differs:${c}`] === true) : [],
      });
    }
  }
  return { lines, left_out: leftOut };
}

/**
 * A line's stage as the API serves it: its stage column or, when neither drop has one (so the
 * column is not compared), what its complementary flag says (spec section 8).
 */
function stageOf(value: (column: string) => unknown): string | null {
  const stage = value('stage');
  if (stage !== null && stage !== undefined) return String(stage);
  const complementary = value('complementary');
  if (typeof complementary !== 'boolean') return null;
  return complementary ? 'amendment' : 'initial';
}

/**
 * The SQL of one table compared: both sides with the union of their columns in comparable types
 * (a column a side lacks takes the value the format gives it when absent), fully joined on the
 * key, each row with its kind (added, removed, changed, or null when equal).
 */
function comparedSql(table: string, a: Relation | undefined, b: Relation | undefined) {
  const all = [...new Set([...(a?.columns ?? []), ...(b?.columns ?? [])])];
  const key = KEYS.get(table)!.filter((c) => all.includes(c));
  const values = all.filter((c) => !key.includes(c));
  const q = quotedIdentifier;
  const side = (r: Relation | undefined) => {
    if (!r) return `SELECT ${all.map((c) => `CAST(NULL AS ${columnSpec(table, c).type}) AS ${q(c)}`).join(', ')}, true AS __present WHERE false`;
    const select = all.map((c) => {
      const { type, absent } = columnSpec(table, c);
      return `CAST(${r.columns.includes(c) ? q(c) : absent} AS ${type}) AS ${q(c)}`;
    });
    return `SELECT ${select.join(', ')}, true AS __present FROM ${r.from}`;
  };
  const on = key.map((c) => `a.${q(c)} IS NOT DISTINCT FROM b.${q(c)}`).join(' AND ') || 'false';
  const differs = values.map((c) => `a.${q(c)} IS DISTINCT FROM b.${q(c)}`).join(' OR ') || 'false';
  const kind = `CASE WHEN b.__present IS NULL THEN 'removed' WHEN a.__present IS NULL THEN 'added' WHEN ${differs} THEN 'changed' END`;
  const columns = [
    `${kind} AS __kind`,
    ...key.map((c) => `coalesce(a.${q(c)}, b.${q(c)}) AS ${q(c)}`),
    ...values.flatMap((c) => [
      `a.${q(c)} AS ${q(`before:${c}`)}`,
      `b.${q(c)} AS ${q(`after:${c}`)}`,
      `(a.${q(c)} IS DISTINCT FROM b.${q(c)}) AS ${q(`differs:${c}`)}`,
    ]),
  ];
  const sql = `WITH a AS (${side(a)}), b AS (${side(b)}),
    compared AS (SELECT ${columns.join(', ')} FROM a FULL OUTER JOIN b ON ${on})`;
  return { sql, key, values };
}

async function diffTable(
  connection: DuckDBConnection,
  { table, sql, key, values }: { table: string } & ReturnType<typeof comparedSql>,
  counts: Record<string, unknown>,
  withExamples: boolean,
): Promise<TableDiff> {
  const order = key.map((c) => quotedIdentifier(c)).join(', ') || '1';
  const examplesOf = async (which: string) =>
    withExamples && Number(counts[which])
      ? (await connection.runAndReadAll(`${sql} SELECT * FROM compared WHERE __kind = '${which}' ORDER BY ${order} LIMIT ${EXAMPLES}`)).getRowObjects()
      : [];
  const keyOf = (row: Record<string, unknown>): Key => Object.fromEntries(key.map((c) => [c, plainValue(row[c])]));

  return {
    table,
    key,
    rows_before: Number(counts.before),
    rows_after: Number(counts.after),
    added: Number(counts.added),
    removed: Number(counts.removed),
    changed: Number(counts.changed),
    examples: {
      added: (await examplesOf('added')).map(keyOf),
      removed: (await examplesOf('removed')).map(keyOf),
      changed: (await examplesOf('changed')).map((row) => ({
        key: keyOf(row),
        columns: Object.fromEntries(
          values.filter((c) => row[`differs:${c}`] === true).map((c) => [c, { before: plainValue(row[`before:${c}`]), after: plainValue(row[`after:${c}`]) }]),
        ),
      })),
    },
  };
}

/** Per year, the sums /totals/ gives by default (initial + amendment lines), on each side. */
async function yearTotals(connection: DuckDBConnection, a: ReadonlyMap<string, Relation>, b: ReadonlyMap<string, Relation>): Promise<YearTotals[]> {
  const sums = (r: Relation | undefined) => {
    if (!r || !r.columns.includes('year') || !r.columns.includes('amount')) return 'SELECT NULL::INTEGER AS year, NULL::DECIMAL(38,6) AS total WHERE false';
    const lawOnly = r.columns.includes('stage') ? `WHERE stage IS DISTINCT FROM 'outturn'` : '';
    return `SELECT year::INTEGER AS year, sum(amount::DECIMAL(38,6)) AS total FROM ${r.from} ${lawOnly} GROUP BY ALL`;
  };
  const rows = (
    await connection.runAndReadAll(
      `WITH eb AS (${sums(a.get('expenses'))}), ea AS (${sums(b.get('expenses'))}),
            rb AS (${sums(a.get('resources'))}), ra AS (${sums(b.get('resources'))}),
            years AS (SELECT year FROM eb UNION SELECT year FROM ea UNION SELECT year FROM rb UNION SELECT year FROM ra)
       SELECT years.year, round(eb.total, 3)::DOUBLE AS eb, round(ea.total, 3)::DOUBLE AS ea,
              round(rb.total, 3)::DOUBLE AS rb, round(ra.total, 3)::DOUBLE AS ra,
              (eb.total IS DISTINCT FROM ea.total OR rb.total IS DISTINCT FROM ra.total) AS moved
       FROM years LEFT JOIN eb USING (year) LEFT JOIN ea USING (year) LEFT JOIN rb USING (year) LEFT JOIN ra USING (year)
       ORDER BY years.year`,
    )
  ).getRowObjects();
  const money = (v: unknown) => (v === null ? null : roundHalfAway(Number(v), 3));
  return rows.map((r) => ({
    year: Number(r.year),
    expenses_before: money(r.eb),
    expenses_after: money(r.ea),
    resources_before: money(r.rb),
    resources_after: money(r.ra),
    moved: r.moved === true,
  }));
}

export function summarize(diff: DropDiff): ChangeSummary {
  return {
    previous_version: diff.before.version,
    tables: Object.fromEntries(diff.tables.map((t) => [t.table, { added: t.added, removed: t.removed, changed: t.changed }])),
    years_with_moved_totals: diff.totals.filter((t) => t.moved).map((t) => t.year),
    drop_json: diff.drop_json,
    notes: diff.notes,
  };
}

/** A drop directory as the diff reads it: drop.json's labels and the files it lists. */
export async function dropSideOf(dir: string): Promise<DropSide> {
  let text: string;
  try {
    text = await readFile(path.join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    throw new Error(`${dir}: no ${MANIFEST_FILE} (a drop is a directory of Parquet files and its ${MANIFEST_FILE})`);
  }
  return sideFromManifest(text, dir, (file) => path.join(dir, file));
}

function sideFromManifest(text: string, where: string, locate: (file: string) => string): DropSide {
  const read = readManifestText(text);
  if (!read.ok && 'notJson' in read) throw new Error(`${where}: ${MANIFEST_FILE} is not valid JSON`);
  if (!read.ok) throw new Error(`${where}: ${MANIFEST_FILE} is not a drop manifest (${read.issues[0]!.path} ${read.issues[0]!.message})`);
  const files = new Map<string, string>();
  // Only the tables the diff knows: a manifest's other names are neither read nor downloaded.
  for (const file of Object.keys(read.manifest.files)) {
    const table = file.replace(/\.parquet$/, '');
    if (KEYS.has(table) && file === `${table}.parquet`) files.set(table, locate(file));
  }
  return { version: read.manifest.version, created_at: read.manifest.created_at, files, manifest: read.json as Record<string, unknown> };
}

/**
 * Downloads the drop published at `url` (a directory URL: `<url>/drop.json` and the files it
 * lists, over http(s) or in object storage, as DATA_URL reads it: drop-source.ts) into `into`.
 * The files are fetched as listed; they are not validated, only compared.
 */
export async function downloadDrop(url: string, into: string): Promise<DropSide> {
  const source = sourceFor(url);
  const fetched = async (file: string) => {
    try {
      return (await source.get(file, new AbortController().signal)).body;
    } catch (error) {
      throw new Error(`${source.urlOf(file)}: ${(error as Error).message}`, { cause: error });
    }
  };
  const manifest = await textOf(await fetched(MANIFEST_FILE));
  await mkdir(into, { recursive: true });
  const side = sideFromManifest(manifest, url, (file) => path.join(into, file));
  for (const [table, file] of side.files) await pipeline(await fetched(`${table}.parquet`), createWriteStream(file));
  return side;
}

/**
 * The drop's tables as its database holds them (the tables the diff knows, listed in its manifest),
 * with the columns of the drop format only: the service adds columns of its own at load (each
 * series row's most final stage), which move when other rows do and are no change to the data.
 */
async function tablesOf(connection: DuckDBConnection, drop: LoadedDrop): Promise<Map<string, string[]>> {
  const rows = (
    await connection.runAndReadAll(`SELECT table_name, list(column_name ORDER BY column_index) AS columns FROM duckdb_columns() WHERE NOT internal AND database_name = current_database() GROUP BY ALL`)
  ).getRowObjects();
  const listed = new Set(Object.keys(drop.manifest.files).map((f) => f.replace(/\.parquet$/, '')));
  const out = new Map<string, string[]>();
  for (const row of rows) {
    const table = String(row.table_name);
    const spec = TABLES.find((t) => t.name === table);
    if (!spec || !listed.has(table)) continue;
    const columns = (row.columns as { items: unknown[] }).items.map(String);
    out.set(table, columns.filter((column) => spec.columns.some((c) => c.name === column)));
  }
  return out;
}

/**
 * The change summary from the served drop to the next one, for /meta/ after a swap. The previous
 * drop's tables are written to Parquet and compared inside the next drop's database (not yet
 * serving), so only one side is copied and no third database is opened. Read-only on both.
 * `copied` is called once the previous drop is no longer read: the caller can let its database
 * close before the comparison, which joins every line of both drops, needs memory of its own.
 */
export async function changeBetween(previous: LoadedDrop, next: LoadedDrop, copied: () => void = () => {}): Promise<ChangeSummary> {
  // Under the one directory the locked databases may still write to and read from (lockdown.ts).
  const scratch = await mkdtemp(path.join(await scratchDir(), 'diff-'));
  const current = await next.connect();
  try {
    const a = new Map<string, Relation>();
    const old = await previous.connect();
    try {
      for (const [table, columns] of await tablesOf(old, previous)) {
        const file = path.join(scratch, `${table}.parquet`);
        const select = columns.map((column) => quotedIdentifier(column)).join(', ');
        await old.run(`COPY (SELECT ${select} FROM ${quotedIdentifier(table)}) TO $file (FORMAT parquet)`, { file });
        a.set(table, { from: `read_parquet(${quotedString(file)})`, columns });
      }
    } finally {
      old.closeSync();
    }
    copied();
    const b = new Map<string, Relation>();
    for (const [table, columns] of await tablesOf(current, next)) b.set(table, { from: quotedIdentifier(table), columns });
    const side = (m: LoadedDrop['manifest']): Side => ({ version: m.version, created_at: m.created_at, manifest: m as Record<string, unknown> });
    return summarize(await compare(current, side(previous.manifest), a, side(next.manifest), b, false));
  } finally {
    current.closeSync();
    await rm(scratch, { recursive: true, force: true });
  }
}
