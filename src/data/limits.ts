/**
 * How big a drop may be, checked before the steps whose memory grows with it (security review,
 * finding 5; docs/data-drops.md#size-limits). A drop within the rules can still exhaust a replica's
 * memory while it loads: a 4,000-deep category chain made the roll-up closure (N²/2 rows) take
 * 592 MB, one 200 MB organization name in a 9.4 MB Parquet file 1.55 GB. Each limit is checked
 * before the step it protects: row counts from drop.json before any file is read, the size of
 * text in a file from its Parquet metadata before it is loaded (then each value's length), and the
 * depth of the trees before the closure is derived. A drop past a limit is rejected like any
 * other invalid drop: the drop being served keeps serving.
 */
import { quotedIdentifier, type DuckDBConnection } from '@duckdb/node-api';
import type { Manifest } from './manifest.js';
import { fileProblem, type Problem } from './problems.js';
import type { TableSpec } from './schema.js';

export interface DropLimits {
  /** Lines per file (expenses, resources). */
  maxLines: number;
  /** Rows per file of every other table. */
  maxRows: number;
  /** Characters per text value (a name, a code, a source's title). */
  maxTextLength: number;
  /** Bytes of one text column in one Parquet row group, uncompressed: bounds what reading it takes. */
  maxTextChunkBytes: number;
  /** Levels of a tree (categories, debt origins): a root is level 1. */
  maxDepth: number;
}

export const DROP_LIMITS: DropLimits = {
  maxLines: 50_000_000,
  maxRows: 1_000_000,
  maxTextLength: 10_000,
  maxTextChunkBytes: 64 << 20,
  maxDepth: 32,
};

const LINE_FILES = new Set(['expenses.parquet', 'resources.parquet']);

/** Row counts as drop.json states them (the load checks each file has exactly as many). */
export function rowCountProblems(manifest: Manifest, limits: DropLimits): Problem[] {
  return Object.entries(manifest.files).flatMap(([file, { rows }]) => {
    const max = LINE_FILES.has(file) ? limits.maxLines : limits.maxRows;
    return rows > max ? [fileProblem(file, `must have at most ${max.toLocaleString('en')} rows (drop.json says ${rows.toLocaleString('en')})`)] : [];
  });
}

/**
 * Before a file is loaded: no text column may hold more than `maxTextChunkBytes` in one row group
 * (read from the Parquet footer, without reading the data).
 */
export async function textChunkProblems(connection: DuckDBConnection, filePath: string, file: string, table: TableSpec, limits: DropLimits): Promise<Problem[]> {
  const texts = table.columns.filter((c) => c.kind === 'string').map((c) => c.name);
  if (texts.length === 0) return [];
  const reader = await connection.runAndReadAll(
    `SELECT path_in_schema AS column_name, row_group_id, total_uncompressed_size AS bytes FROM parquet_metadata($path)
     WHERE path_in_schema IN (${texts.map((t) => `'${t}'`).join(', ')}) AND total_uncompressed_size > $max ORDER BY bytes DESC LIMIT 1`,
    // The names are the schema's own (schema.ts), never the drop's.
    { path: filePath, max: limits.maxTextChunkBytes },
  );
  const row = reader.getRowObjects()[0];
  if (!row) return [];
  const mb = (bytes: number) => `${Math.round(bytes / (1 << 20))} MB`;
  return [
    {
      file,
      rule: `a text column must hold at most ${mb(limits.maxTextChunkBytes)} per row group (${String(row.column_name)} holds ${mb(Number(row.bytes))}); text values must be at most ${limits.maxTextLength.toLocaleString('en')} characters`,
      count: 1,
      examples: [{ column: String(row.column_name), row_group: Number(row.row_group_id), bytes: Number(row.bytes) }],
    },
  ];
}

/** Once a file is loaded (as read, `raw`): no text value longer than `maxTextLength`. */
export async function textLengthProblems(connection: DuckDBConnection, raw: string, file: string, table: TableSpec, present: ReadonlyMap<string, string>, limits: DropLimits): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const column of table.columns.filter((c) => c.kind === 'string' && present.get(c.name) === 'VARCHAR')) {
    const name = quotedIdentifier(column.name);
    const key = present.has('id') ? 'id' : present.has('year') ? 'year' : undefined;
    const reader = await connection.runAndReadAll(
      `SELECT ${key ? `${quotedIdentifier(key)}, ` : ''}length(${name}) AS length FROM ${raw} WHERE length(${name}) > $max ORDER BY length DESC LIMIT 3`,
      { max: limits.maxTextLength },
    );
    const rows = reader.getRowObjects();
    if (rows.length === 0) continue;
    problems.push({
      file,
      rule: `${column.name} must be at most ${limits.maxTextLength.toLocaleString('en')} characters`,
      count: rows.length,
      examples: rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]))),
    });
  }
  return problems;
}

/**
 * Once the trees are known to be trees (no cycle): none deeper than `maxDepth`. The walk stops one
 * level past the limit, so it costs at most the tree's rows, however deep the drop's chain.
 */
export async function treeDepthProblems(connection: DuckDBConnection, limits: DropLimits): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const table of ['categories', 'debt_origins']) {
    const reader = await connection.runAndReadAll(
      `WITH RECURSIVE walk(id, depth) AS (
         SELECT id, 1 FROM ${table} WHERE parent_id IS NULL
         UNION ALL
         SELECT child.id, walk.depth + 1 FROM walk JOIN ${table} child ON child.parent_id = walk.id WHERE walk.depth <= $max
       )
       SELECT id FROM walk WHERE depth > $max ORDER BY id LIMIT 3`,
      { max: limits.maxDepth },
    );
    const rows = reader.getRowObjects();
    if (rows.length === 0) continue;
    problems.push({
      file: `${table}.parquet`,
      rule: `a tree must be at most ${limits.maxDepth} levels deep (parent_id chains)`,
      count: rows.length,
      examples: rows.map((r) => ({ id: Number(r.id), level: limits.maxDepth + 1 })),
    });
  }
  return problems;
}
