/**
 * Reading a download's columns out of DuckDB's result chunks, for full exports built column by
 * column (Arrow, CSV): numbers as typed arrays (src/data/vectors.ts), and names taken from the
 * drop's by id. Reading a string out of DuckDB costs about 1 µs a row, so a million lines'
 * category names alone took a second; the drop's names are a few thousand strings, converted once
 * per export.
 */
import type { DuckDBVector } from '@duckdb/node-api';
import { plainValue } from '../data/values.js';
import { HIGH_HALF, TYPED, int64Halves, typedItems, type TypedValues } from '../data/vectors.js';
import { memo } from '../lib/memo.js';
import type { ExportQuery } from './format.js';
import type { Column } from './table.js';

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

/** The typed arrays of a batch's chunks, as one array of `type`. */
export function concatTyped(type: NumberColumn['type'], parts: readonly TypedValues[]): TypedValues {
  const all = new TYPED[type](parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part as never, at);
    at += part.length;
  }
  return all;
}

/** A copy of `array` at least `needed` long (twice as long, or more), for columns built as chunks come. */
export function grown<T extends Uint8Array | TypedValues>(array: T, needed: number): T {
  const bigger = new (array.constructor as new (length: number) => T)(Math.max(array.length * 2, needed));
  bigger.set(array as never);
  return bigger;
}

/** Ids below this are looked up in an array (dense: category and organization ids are small). */
const ARRAY_IDS = 1 << 20;

/**
 * A named column's value for each row of a chunk, read from its BIGINT id column: `valueOf` is
 * called once per id (a name, its UTF-8 bytes, its CSV field). No bigint is made per row: an id is
 * read as the two 32-bit halves of its 64 bits, and a small one found in an array by index. Made
 * into a bigint, made plain and looked up in a Map, a million lines' three names took a quarter of
 * a second of a Parquet export.
 */
export function perId<T>(valueOf: (id: unknown) => T): (vector: DuckDBVector, rows: number) => (i: number) => T {
  const small: T[] = [];
  const other = memo(valueOf);
  return (vector, rows) => {
    const ids = typedItems(vector, rows, 'int64');
    const halves = int64Halves(ids);
    return (i) => {
      const low = halves[2 * i + 1 - HIGH_HALF]!;
      if (halves[2 * i + HIGH_HALF] === 0 && low >= 0 && low < ARRAY_IDS) return small[low] ?? (small[low] = valueOf(low));
      return other(plainValue(ids[i]));
    };
  };
}
