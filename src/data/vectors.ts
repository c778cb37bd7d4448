/**
 * DuckDB's vectors as typed arrays, both ways: numbers out of a result's chunks (full exports,
 * src/formats/) and into a chunk to append (the lines' positions, src/data/line-positions.ts),
 * without a call per value.
 */
import type { DuckDBVector } from '@duckdb/node-api';

export type TypedValues = Int32Array | BigInt64Array | Float64Array;
export const TYPED = { int32: Int32Array, int64: BigInt64Array, float64: Float64Array } as const;

/**
 * The values of a DuckDB vector of INTEGER, BIGINT or DOUBLE as its typed array, when the vector
 * keeps one (node-api's vectors do, as `items`, over the chunk's memory: use it before the next
 * chunk), else read item by item. Only for columns without nulls: the typed array has no validity.
 */
export function typedItems<K extends keyof typeof TYPED>(vector: DuckDBVector, rows: number, type: K): InstanceType<(typeof TYPED)[K]> {
  const Typed = TYPED[type];
  const items = (vector as unknown as { items?: unknown }).items;
  if (items instanceof Typed && items.length === rows) return items as InstanceType<(typeof TYPED)[K]>;
  const values = new Typed(rows);
  for (let i = 0; i < rows; i++) values[i] = vector.getItem(i) as never;
  return values as InstanceType<(typeof TYPED)[K]>;
}

/**
 * Writes `values` into a vector of a chunk made to be appended (INTEGER, BIGINT or DOUBLE, no
 * nulls), through its typed array when it keeps one (see typedItems), else item by item.
 */
export function setTypedItems(vector: DuckDBVector, values: TypedValues): void {
  const items = (vector as unknown as { items?: unknown }).items;
  if (items instanceof values.constructor && (items as TypedValues).length === values.length) (items as TypedValues).set(values as never);
  else for (let i = 0; i < values.length; i++) vector.setItem(i, values[i] as never);
  vector.flush();
}
