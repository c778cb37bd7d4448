/**
 * The statement of a full export, around the endpoint's `sql/<name>.sql` (a scan of one table, in
 * table order): only the columns a format reads, or every column as DuckDB's own writer is to
 * write it (copyStatement). Everything spliced in is the code's own (file names, column names
 * checked as identifiers); what a request gives, and the drop's names, stay in bound parameters.
 */
import type { Params } from './lease.js';
import { readSql } from './sql.js';

/** A name as SQL: a download's column and table names are the code's own, checked to be plain identifiers. */
export function identifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not an identifier: ${name}`);
  return `"${name}"`;
}

/**
 * An export of at most this many rows is small: read whole (store.ts ServedDrop.chunks), or for
 * DuckDB's own writer sorted first (copyStatement). Either way DuckDB hands on chunks of 2,048
 * rows, where a filter leaves chunks of a few dozen (one year of a 1M-line drop: 461 chunks),
 * each costing a fetch or an evaluation of the statement's lists. A few megabytes at most.
 */
export const SMALL_EXPORT_ROWS = 262_144;

async function scanOf(name: string): Promise<string> {
  return (await readSql(name)).replace(/;\s*$/, '');
}

/** `columns` of the scan, in its order (a projection keeps it). */
export async function selectColumns(name: string, columns: readonly string[]): Promise<string> {
  return `SELECT ${columns.map(identifier).join(', ')} FROM (\n${await scanOf(name)}\n) AS line`;
}

/** A download column as DuckDB's writer is to write it: its name, type, and names by id if it has them. */
export interface CopyColumn {
  name: string;
  type: string;
  /** The drop's names for the ids in column `by`, each as the writer is to write it. */
  named?: { by: string; names: ReadonlyMap<unknown, string> };
}

/** How a format has DuckDB write each value: an SQL expression of `ref`, or undefined when it cannot. */
export type CopyValue = (type: string, ref: string) => string | undefined;

/**
 * The scan with every download column as `value` writes it, names looked up by id in a list bound
 * as a parameter. A lookup in a list keeps the lines' order, where a join to the names table
 * would not (sql/derive/all_lines.sql); it needs ids close enough to index a short list by (ids -
 * the least + 1), so drops whose ids span more than MAX_SLOTS get undefined, as do columns
 * `value` cannot write: those exports are written in JS (formats/).
 */
export async function copyStatement(
  name: string,
  params: Params,
  columns: readonly CopyColumn[],
  value: CopyValue,
  rowsAtMost = Infinity,
): Promise<{ sql: string; params: Params } | undefined> {
  const bound: Params = { ...params };
  const select: string[] = [];
  for (const column of columns) {
    let expression: string | undefined;
    if (column.named) {
      const list = denseList(column.named.names);
      if (!list) return undefined;
      const at = `copy_${select.length}`;
      bound[`${at}_names`] = list.names;
      bound[`${at}_first`] = list.first;
      expression = `($${at}_names::VARCHAR[])[line.${identifier(column.named.by)} - $${at}_first::BIGINT + 1]`;
    } else expression = value(column.type, `line.${identifier(column.name)}`);
    if (expression === undefined) return undefined;
    select.push(`${expression} AS ${identifier(column.name)}`);
  }
  // A small export is sorted (id, the scan's order) before its columns are made: sorting a few
  // thousand rows costs less than evaluating the name lists for every few-row chunk of a filter.
  const scan = rowsAtMost <= SMALL_EXPORT_ROWS ? `SELECT * FROM (\n${await scanOf(name)}\n) ORDER BY id` : await scanOf(name);
  return { sql: `SELECT ${select.join(', ')} FROM (\n${scan}\n) AS line`, params: bound };
}

/**
 * A list of names indexed by id has at most this many slots (the span of the ids). DuckDB makes
 * a bound list anew for every chunk it evaluates: three lists of 903 names cost a CSV export of
 * 1M lines about 0.1 s, of 16K names 1.9 s more, of 64K 6.5 s more, where the JS writer takes
 * about 2 s. Past it, or with sparse ids, the export is written in JS.
 */
const MAX_SLOTS = 4_096;

type DenseList = { names: string[]; first: number } | undefined;

/** Made once per map of names (a drop's, as a writer writes them), not per request. */
const denseLists = new WeakMap<ReadonlyMap<unknown, string>, DenseList>();
function denseList(names: ReadonlyMap<unknown, string>): DenseList {
  if (!denseLists.has(names)) denseLists.set(names, makeDenseList(names));
  return denseLists.get(names);
}

/** The names as a list indexed by id - first (gaps are empty: validation sees that every line's id is named). */
function makeDenseList(names: ReadonlyMap<unknown, string>): DenseList {
  let first = Infinity;
  let last = -Infinity;
  for (const id of names.keys()) {
    if (typeof id !== 'number' || !Number.isSafeInteger(id)) return undefined;
    if (id < first) first = id;
    if (id > last) last = id;
  }
  if (names.size === 0) return { names: [], first: 0 };
  if (last - first + 1 > MAX_SLOTS) return undefined;
  const list = new Array<string>(last - first + 1).fill('');
  for (const [id, name] of names) list[(id as number) - first] = name;
  return { names: list, first };
}
