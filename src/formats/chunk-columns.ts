/**
 * Reading a download's columns out of DuckDB's result chunks, for full exports built column by
 * column (Arrow, CSV): numbers as typed arrays (src/data/vectors.ts), and names taken from the
 * drop's by id. Reading a string out of DuckDB costs about 1 µs a row, so a million lines'
 * category names alone took a second; the drop's names are a few thousand strings, converted once
 * per export.
 */
import { TYPED, type TypedValues } from '../data/vectors.js';
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
