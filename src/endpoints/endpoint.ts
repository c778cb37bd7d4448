/**
 * What a data endpoint is (contract section 4), described as data: a path, the zod schema of its
 * query, the shape of its JSON items, how those items flatten into CSV/Arrow rows, and how to
 * answer from the drop. pipeline.ts runs every entry the same way; openapi.ts documents them.
 * The helpers below are shared by the endpoint families in this folder.
 */
import { z } from 'zod';
import type { Lease, Row } from '../data/store.js';
import type { FlatRow, Table } from '../formats/table.js';
import { param, type QuerySchema } from '../params.js';

/** A paged answer: one page of items and the number of items matching in all. */
export interface Page {
  count: number;
  items: unknown[];
}

export interface Endpoint<S extends QuerySchema = QuerySchema> {
  /** Canonical path, with the trailing slash; served without it too. */
  path: string;
  summary: string;
  /** For the docs: what a row is, the order, the filters. */
  description: string;
  query: S;
  /** Paged endpoints answer a Page and are wrapped in the count/next/previous envelope. */
  paged: boolean;
  /** The shape of one JSON item (of `results` on paged endpoints). */
  item: z.ZodType;
  /** How one JSON item flattens into CSV/Arrow rows. */
  table: Table;
  /** With hierarchy=true the items are category trees (item.CategoryNode), flattened by TREE_TABLE. */
  hierarchy?: boolean;
  answer(params: z.infer<S>, lease: Lease): Promise<unknown[] | Page>;
  /**
   * Paged endpoints: every matching row, already flat, for a CSV/Arrow download without limit
   * and offset (contract section 5). Flat lists stream from DuckDB chunk by chunk.
   */
  exportAll?(params: z.infer<S>, lease: Lease): AsyncIterable<FlatRow[]>;
}

/** Every data endpoint also takes `format` (contract section 5); pipeline.ts acts on it. */
export const define = <S extends QuerySchema>(endpoint: Endpoint<S>): Endpoint =>
  ({ ...endpoint, query: endpoint.query.extend({ format: param.format.optional() }) }) as unknown as Endpoint;

export const paging = { limit: param.limit.optional(), offset: param.offset.optional() };
const DEFAULT_LIMIT = 100;

/** The page a request asks for, defaults applied. */
export function pageBounds(params: { limit?: number; offset?: number }): { limit: number; offset: number } {
  return { limit: params.limit ?? DEFAULT_LIMIT, offset: params.offset ?? 0 };
}

/** The count of a count-joined page query (see sql/expenses.sql): on every row, and on the one row of an empty page. */
const countOf = (rows: Row[]) => Number(rows[0]?.count ?? 0);

/** Splits the rows of a count-joined page query into count and items. */
export function page(rows: Row[], item: (row: Row) => unknown): Page {
  return { count: countOf(rows), items: rows.filter((r) => r.id !== null).map(item) };
}

/**
 * The drop's name for an id. Validation guarantees every referenced id has one, so a miss is a
 * bug to report, not a field to leave out of the answer.
 */
export function named<T>(names: ReadonlyMap<unknown, T>, id: unknown): T {
  const found = names.get(id);
  if (found === undefined) throw new Error(`no name for id ${String(id)}`);
  return found;
}

export const ORDER = (order: string) => `Ordered by ${order}.`;
