/**
 * Reading a download's columns out of DuckDB's result chunks, for full exports built column by
 * column (Arrow, CSV): numbers as typed arrays, and names taken from the drop's by id. Reading a
 * string out of DuckDB costs about 1 µs a row, so a million lines' category names alone took a
 * second; the drop's names are a few thousand strings, converted once per export.
 */
import type { DuckDBVector } from '@duckdb/node-api';
import type { ExportQuery } from './format.js';
import type { Column } from './table.js';

export type TypedValues = Int32Array | BigInt64Array | Float64Array;
export const TYPED = { int32: Int32Array, int64: BigInt64Array, float64: Float64Array } as const;
export type NumberColumn = Column & { type: keyof typeof TYPED };

/** The result columns to ask DuckDB for, and for each download column the one it is read from. */
export interface Source {
  /** Each download column's name, or for a named one the id column it is looked up by; once each. */
  select: readonly string[];
  /** For each download column, its index in `select`. */
  from: readonly number[];
}

export function sourceOf(columns: readonly Column[], named: ExportQuery['named']): Source {
  const by = columns.map((c) => named?.[c.name]?.by ?? c.name);
  const select = [...new Set(by)];
  return { select, from: by.map((name) => select.indexOf(name)) };
}

/**
 * The values of a DuckDB vector of INTEGER, BIGINT or DOUBLE as its typed array, when the vector
 * keeps one (node-api's vectors do, as `items`, over the chunk's memory: use it before the next
 * chunk), else read item by item. Only for columns without nulls: the typed array has no validity.
 */
export function typedItems(vector: DuckDBVector, rows: number, type: NumberColumn['type']): TypedValues {
  const Typed = TYPED[type];
  const items = (vector as unknown as { items?: unknown }).items;
  if (items instanceof Typed && items.length === rows) return items;
  const values = new Typed(rows);
  for (let i = 0; i < rows; i++) values[i] = vector.getItem(i) as never;
  return values;
}

/**
 * An id of a BIGINT column as the drop's names are keyed (values.ts plainValue): a number, or a
 * bigint past 2^53, which a number would round to another id.
 */
export const idOf = (id: bigint): number | bigint => (id >= -MAX_SAFE && id <= MAX_SAFE ? Number(id) : id);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Converts each distinct key once: the drop's few thousand names for a million lines. */
export function memo<K, V>(convert: (key: K) => V): (key: K) => V {
  const seen = new Map<K, V>();
  return (key) => {
    let value = seen.get(key);
    if (value === undefined) seen.set(key, (value = convert(key)));
    return value;
  };
}
