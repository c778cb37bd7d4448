/**
 * What the service derives from a valid drop once, at load: the pre-computed tables that requests
 * read instead of millions of lines (sql/derive/*.sql), and the names kept in JS by id.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { plainRow } from './problems.js';
import { readSql } from './sql.js';

/** Tables built once per drop, in this order, so that requests read small pre-computed sums. */
const DERIVED_TABLES = [
  'derive/category_closure',
  'derive/debt_origin_closure',
  'derive/category_year_sums',
  'derive/category_rollup',
  'derive/category_totals',
  'derive/year_totals',
  'derive/organization_year_sums',
  'derive/organization_budgets',
  'derive/expense_positions',
  'derive/resource_positions',
  'derive/line_counts',
];

export interface Derived {
  years: number[];
  /** Names by id (ids as rows carry them); see sql/derive/category_names.sql, organization_names.sql. */
  categoryNames: ReadonlyMap<unknown, string>;
  organizations: ReadonlyMap<unknown, Readonly<{ id: unknown; name: string; code: string }>>;
}

/** Builds the derived tables in the drop's database and reads what JS keeps. Runs after every rule has passed. */
export async function derive(connection: DuckDBConnection): Promise<Derived> {
  for (const name of DERIVED_TABLES) await connection.run(await readSql(name));
  const years = (await rowsOf(connection, 'derive/covered_years')).map((r) => Number(r.year));
  const categoryNames = new Map((await rowsOf(connection, 'derive/category_names')).map((r) => [r.id, String(r.name)]));
  const organizations = new Map(
    (await rowsOf(connection, 'derive/organization_names')).map(({ id, name, code }) => [
      id,
      Object.freeze({ id, name: String(name), code: String(code) }),
    ]),
  );
  return { years, categoryNames, organizations };
}

/** The rows of `sql/<name>.sql`, in plain values as ServedDrop.query gives them. */
async function rowsOf(connection: DuckDBConnection, name: string): Promise<Record<string, unknown>[]> {
  return (await connection.runAndReadAll(await readSql(name))).getRowObjects().map(plainRow);
}
