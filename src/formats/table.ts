/**
 * What a download holds (docs/api.md#columns): named, typed columns, and how one JSON item of an
 * endpoint flattens into rows. Each endpoint variant has one Table; every download format serves
 * them all.
 */
import { z } from 'zod';

/**
 * Types, chosen once for every download: years and depths are 32-bit integers; ids are 64-bit,
 * like the drop's BIGINT ids (a double would silently round ids above 2^53); money and percentages
 * are doubles, the JSON numbers already rounded to 3 and 2 decimals; names are UTF-8 strings; flags
 * (derived) booleans; lists of ids (a roll-up's source_ids) lists of 64-bit integers, which CSV
 * writes as one field joined with `;`.
 */
export type ColumnType = 'int32' | 'int64' | 'float64' | 'utf8' | 'bool' | 'int64_list';

/**
 * A row's value as the typed writers (Arrow, Parquet) take it: their 64-bit integers take bigints,
 * while rows carry ids as numbers, or as bigints past 2^53.
 */
export const COLUMN_VALUES: Record<ColumnType, (value: unknown) => unknown> = {
  int32: Number,
  int64: (value) => (typeof value === 'bigint' ? value : BigInt(value as number | string)),
  float64: Number,
  utf8: String,
  bool: Boolean,
  int64_list: (value) => (value as unknown[]).map((id) => (typeof id === 'bigint' ? id : BigInt(id as number))),
};

export interface Column {
  name: string;
  type: ColumnType;
  /** Whether the column may hold nulls (an empty field in CSV). */
  nullable: boolean;
  /** The field it belongs to when its name does not say so (`fields=`): the organization list's `year` is its `budget`'s. */
  field?: string;
}

/** One row of a download, keyed by column name. */
export type FlatRow = Record<string, unknown>;

export interface Table<Item = unknown> {
  columns: readonly Column[];
  /** The rows one JSON item becomes: usually one, one per year or per tree node for nested items. */
  rows(item: Item): FlatRow[];
  /** The field whose list makes an item several rows (the organization list's `budget`): without it, an item is one row. */
  listField?: string;
}

const column =
  (type: ColumnType) =>
  (name: string, { nullable = false, field }: { nullable?: boolean; field?: string } = {}): Column => ({
    name,
    type,
    nullable,
    ...(field && { field }),
  });

export const int32 = column('int32');
export const int64 = column('int64');
export const float64 = column('float64');
export const utf8 = column('utf8');
export const bool = column('bool');
export const int64List = column('int64_list');

export function table<Item>(columns: Column[], rows: (item: Item) => FlatRow[], listField?: string): Table<Item> {
  return { columns, rows, ...(listField && { listField }) };
}

/**
 * The table of a JSON item made of scalars and nested objects, derived from its zod schema: one
 * row per item, nested fields joined with `_` (organization.id is organization_id), in the
 * schema's order. Column types follow the schema: z.int32() is int32, any other integer int64,
 * other numbers float64, strings and enums utf8, nullable stays nullable.
 */
export function flatTable<Item extends object>(item: z.ZodType<Item>): Table<Item> {
  const leaves = leavesOf(item, [], false);
  return {
    columns: leaves.map((leaf) => leaf.column),
    rows: (value) => {
      const row: FlatRow = {};
      for (const { path, column } of leaves) {
        let at: unknown = value;
        for (const key of path) at = at === null || at === undefined ? at : (at as Record<string, unknown>)[key];
        row[column.name] = at;
      }
      return [row];
    },
  };
}

interface Leaf {
  path: string[];
  column: Column;
}

function leavesOf(schema: z.ZodType, path: string[], nullable: boolean): Leaf[] {
  const name = path.join('_');
  if (schema instanceof z.ZodNullable || schema instanceof z.ZodOptional) {
    return leavesOf(schema.unwrap() as z.ZodType, path, true);
  }
  if (schema instanceof z.ZodObject) {
    return Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([key, field]) => leavesOf(field, [...path, key], nullable));
  }
  if (schema instanceof z.ZodNumber) {
    const format = schema.format;
    const type: ColumnType = format === 'int32' ? 'int32' : schema.isInt ? 'int64' : 'float64';
    return [{ path, column: { name, type, nullable } }];
  }
  if (schema instanceof z.ZodString || schema instanceof z.ZodEnum) return [{ path, column: { name, type: 'utf8', nullable } }];
  if (schema instanceof z.ZodBoolean) return [{ path, column: { name, type: 'bool', nullable } }];
  if (schema instanceof z.ZodArray && schema.element instanceof z.ZodNumber && schema.element.isInt) {
    return [{ path, column: { name, type: 'int64_list', nullable } }];
  }
  throw new Error(`${name || 'the item'} has no column type: only scalars, lists of integers and nested objects flatten (see flatTable)`);
}
