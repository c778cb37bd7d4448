/**
 * What a CSV or Arrow download holds (contract section 5): named, typed columns, and how one JSON
 * item of an endpoint flattens into rows. Each endpoint declares one Table; the writers in this
 * folder serve them all.
 */

/**
 * Arrow types, chosen once for every download: years and depths are Int32; ids are Int64, like
 * the drop's BIGINT ids (Float64 would silently round ids above 2^53); money and percentages are
 * Float64, the JSON numbers already rounded to 3 and 2 decimals; names are UTF-8 strings.
 */
export type ColumnType = 'int32' | 'int64' | 'float64' | 'utf8';

export interface Column {
  name: string;
  type: ColumnType;
  /** Whether the column may hold nulls (an empty field in CSV). */
  nullable: boolean;
}

/** One row of a download, keyed by column name. */
export type FlatRow = Record<string, unknown>;

export interface Table<Item = unknown> {
  columns: readonly Column[];
  /** The rows one JSON item becomes: usually one, one per year or per tree node for nested items. */
  rows(item: Item): FlatRow[];
}

const column =
  (type: ColumnType) =>
  (name: string, { nullable = false } = {}): Column => ({ name, type, nullable });

export const int32 = column('int32');
export const int64 = column('int64');
export const float64 = column('float64');
export const utf8 = column('utf8');

export function table<Item>(columns: Column[], rows: (item: Item) => FlatRow[]): Table<Item> {
  return { columns, rows };
}
