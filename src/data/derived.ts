/**
 * What the service derives from a valid drop once, at load: the pre-computed tables that requests
 * read instead of millions of lines (sql/derive/*.sql), and the names kept in JS by id.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { plainRow } from './problems.js';
import { LINE_STAGES, SERIES_STAGES, STAGE_LINES, STAGES, type LineStage } from '../domain/stages.js';
import { named } from '../domain/names.js';
import { buildForest, deepFreeze, type TreeNode, type TreeRow } from '../domain/tree.js';
import type { DropShape } from './shape.js';
import { readSql } from './sql.js';
import { readRowsAtLoad, type RowsAtLoad } from './rows-at-load.js';

/** Tables (and a type) built once per drop, in this order, so that requests read small pre-computed sums. */
const DERIVED_TABLES = [
  'derive/stage_lines',
  'derive/line_stage_type',
  'derive/category_closure',
  'derive/debt_origin_closure',
  'derive/category_year_sums',
  'derive/category_rollup',
  'derive/category_totals',
  'derive/year_totals',
  'derive/organization_year_sums',
  'derive/organization_category_sums',
  'derive/organization_budgets',
  'derive/line_stage_counts',
  'derive/line_counts',
  'derive/debt_stages',
  'derive/outstanding_debt_stages',
  'derive/deficit_stages',
  // Macros of the CSV that DuckDB writes itself (export-sql.ts), each after the one it calls.
  'derive/js_digits',
  'derive/js_number',
  'derive/csv_text_quoted',
  'derive/csv_text',
];

/**
 * Macros made from one text for each table of lines, after the tables above: the text's
 * `line_table` is the table's name and `line_kind` its kind in line_counts (both the code's own).
 */
const PER_LINE_TABLE = ['derive/all_lines'];
const LINE_TABLES = [
  { table: 'expenses', kind: 'expense' },
  { table: 'resources', kind: 'resource' },
] as const;

/** The tables' parameters: the stages, from the one place they are defined. */
const PARAMS: Record<string, Record<string, string>> = {
  'derive/stage_lines': { stages: JSON.stringify(STAGE_LINES) },
  'derive/line_stage_type': { line_stages: JSON.stringify(LINE_STAGES) },
};

/** The series a measure divides by. */
export const MEASURE_SERIES = ['gdp', 'population', 'cpi'] as const;
export type MeasureSeries = (typeof MEASURE_SERIES)[number];

/** Per table of figures, its years: per stage where the table has stages (docs/api.md, "/meta/"). */
export type Coverage = Record<string, number[] | Record<string, number[]>>;

export interface Derived {
  years: number[];
  coverage: Coverage;
  /** Years between the first and last year with lines that lack expense lines or lack resource lines. */
  gaps: number[];
  /** Names by id (ids as rows carry them); see sql/derive/category_names.sql, organization_names.sql. */
  categoryNames: ReadonlyMap<unknown, string>;
  /** Lines per year that each stage counts, by `expense:amended` (kind and stage). */
  lineCounts: ReadonlyMap<string, ReadonlyMap<number, number>>;
  /** The line stages each year's lines have, by kind (`expense`, `resource`) then year. */
  lineStages: ReadonlyMap<string, ReadonlyMap<number, ReadonlySet<LineStage>>>;
  /** Each category's parent's id, null for a root (an organization's expense tree rolls up along them). */
  categoryParents: ReadonlyMap<unknown, unknown>;
  /** Each category's children's ids, in id order (categories without children are absent). */
  categoryChildren: ReadonlyMap<unknown, readonly unknown[]>;
  /**
   * Every year's category tree, per type and stage (`expense:amended`), from
   * sql/category_tree.sql: the trees of categories × years (18,000 nodes at 26 years of 700
   * categories) cost 14 ms to read and build per request at 1M lines, so they are built once, at
   * load. Frozen: answers share them, and a measure makes measured copies.
   */
  categoryForests: ReadonlyMap<string, readonly TreeNode[]>;
  /**
   * Each category's place in category order and the place of its subtree's last category
   * (derive/category_order.sql): the places between them are its subtree's, among the lines kept
   * in category order. Empty when the drop keeps no such copies (`inOrder`).
   */
  categoryPlaces: ReadonlyMap<unknown, readonly [number, number]>;
  /** Whether the drop keeps its lines in category and organization order too (keepLinesInOrder). */
  inOrder: boolean;
  /** The small roll-ups' rows, every year of them, read once (rows-at-load.ts). */
  rowsAtLoad: RowsAtLoad;
  organizations: ReadonlyMap<unknown, Readonly<{ id: unknown; name: string; code: string }>>;
  /** GDP, population and CPI by year, which the measures divide by (sql/measure_*.sql); empty when the drop has none. */
  measureSeries: Readonly<Record<MeasureSeries, ReadonlyMap<number, number>>>;
}

/**
 * Builds the derived tables in the drop's database and reads what JS keeps. Runs after every rule
 * has passed. `inOrder`: also keeps the lines in category and organization order (keepLinesInOrder).
 */
export async function derive(connection: DuckDBConnection, shape: DropShape, { inOrder }: { inOrder: boolean }): Promise<Derived> {
  for (const name of DERIVED_TABLES) await connection.run(await readSql(name), PARAMS[name]);
  for (const name of PER_LINE_TABLE) {
    const text = await readSql(name);
    for (const { table, kind } of LINE_TABLES) await connection.run(text.replaceAll('line_table', table).replaceAll('line_kind', kind));
  }
  const categoryPlaces = inOrder ? await keepLinesInOrder(connection) : new Map<unknown, readonly [number, number]>();
  const years = (await rowsOf(connection, 'derive/covered_years')).map((r) => Number(r.year));
  const coverage = coverageOf(await rowsOf(connection, 'derive/coverage'), shape);
  const lineCounts = new Map<string, Map<number, number>>();
  for (const { kind, stage, year, lines } of await rowsOf(connection, 'derive/line_counts_by_year')) {
    const key = `${String(kind)}:${String(stage)}`;
    if (!lineCounts.has(key)) lineCounts.set(key, new Map());
    lineCounts.get(key)!.set(Number(year), Number(lines));
  }
  const lineStages = new Map<string, Map<number, Set<LineStage>>>();
  for (const { kind, year, line_stage } of await rowsOf(connection, 'derive/line_stages_by_year')) {
    if (!lineStages.has(String(kind))) lineStages.set(String(kind), new Map());
    const years = lineStages.get(String(kind))!;
    if (!years.has(Number(year))) years.set(Number(year), new Set());
    // One of LINE_STAGES: the load's rules refuse any other stage before derive runs.
    years.get(Number(year))!.add(line_stage as LineStage);
  }
  const categoryRows = await rowsOf(connection, 'derive/category_names');
  const categoryNames = new Map(categoryRows.map((r) => [r.id, String(r.name)]));
  const categoryParents = new Map(categoryRows.map((r) => [r.id, r.parent_id]));
  const categoryChildren = new Map<unknown, unknown[]>();
  for (const { id, parent_id } of categoryRows) {
    if (parent_id === null) continue;
    const siblings = categoryChildren.get(parent_id);
    if (siblings) siblings.push(id);
    else categoryChildren.set(parent_id, [id]);
  }
  const organizations = new Map(
    (await rowsOf(connection, 'derive/organization_names')).map(({ id, name, code }) => [
      id,
      Object.freeze({ id, name: String(name), code: String(code) }),
    ]),
  );
  const categoryForests = new Map<string, readonly TreeNode[]>();
  const treeSql = await readSql('category_tree');
  const nameOf = (id: unknown) => named(categoryNames, id);
  for (const type of ['expense', 'resource'] as const) {
    for (const stage of STAGES) {
      const rows = (await connection.runAndReadAll(treeSql, { type, stage, year: null })).getRowObjects().map(plainRow);
      categoryForests.set(`${type}:${stage}`, deepFreeze(buildForest(rows as unknown as TreeRow[], nameOf)));
    }
  }
  const rowsAtLoad = await readRowsAtLoad(connection);
  const measureSeries = {} as Record<MeasureSeries, ReadonlyMap<number, number>>;
  for (const name of MEASURE_SERIES) {
    measureSeries[name] = new Map((await rowsOf(connection, `measure_${name}`)).map((r) => [Number(r.year), Number(r.value)]));
  }
  return {
    years,
    coverage,
    gaps: gapsIn(coverage),
    lineCounts,
    lineStages,
    categoryNames,
    categoryParents,
    categoryChildren,
    organizations,
    categoryForests,
    categoryPlaces,
    inOrder,
    rowsAtLoad,
    measureSeries,
  };
}

/**
 * Keeps second copies of the lines in category order (derive/category_order.sql, then
 * derive/lines_by_category.sql for each table of lines) and of the expense lines in organization
 * order (derive/expenses_by_organization.sql),
 * for the pages of a category or an organization whose lines are few and far apart among the ids
 * (src/api/endpoints/lines.ts). They are kept in a database of their own, compressed: a 2M-line
 * drop's copies then hold about 30 MB of memory instead of 235 MB, and a page reads them as fast,
 * for its lines lie side by side (docs/performance.md#lines-kept-in-category-and-organization-order-2026-11-27-night).
 */
export async function keepLinesInOrder(connection: DuckDBConnection): Promise<ReadonlyMap<unknown, readonly [number, number]>> {
  await connection.run(`ATTACH ':memory:' AS ${IN_ORDER_DATABASE} (COMPRESS)`);
  await connection.run(await readSql('derive/category_order'));
  const byCategory = await readSql('derive/lines_by_category');
  for (const { table } of LINE_TABLES) await connection.run(byCategory.replaceAll('line_table', table));
  await connection.run(await readSql('derive/expenses_by_organization'));
  await connection.run(`CHECKPOINT ${IN_ORDER_DATABASE}`);
  // Each category's places, which a page binds.
  const places = await rowsOf(connection, 'derive/category_places');
  return new Map(places.map((r) => [r.category_id, [Number(r.place), Number(r.last_place)] as const]));
}

/** The database that keepLinesInOrder attaches, which the copies' SQL names. */
const IN_ORDER_DATABASE = 'in_order';

/**
 * Lines always have stages (without a stage column, complementary gives them); a series has them
 * when its file has a stage column. Every stage of a staged table is listed, [] when it has none.
 */
function coverageOf(rows: Record<string, unknown>[], shape: DropShape): Coverage {
  const yearsOf = (table: string, stage?: string) =>
    rows.filter((r) => r.table_name === table && (stage === undefined || r.stage === stage)).map((r) => Number(r.year));
  const perStage = (table: string, stages: readonly string[]) => Object.fromEntries(stages.map((stage) => [stage, yearsOf(table, stage)]));
  const coverage: Coverage = {};
  for (const table of ['expenses', 'resources']) coverage[table] = perStage(table, LINE_STAGES);
  for (const table of ['debt', 'gdp', 'outstanding_debt', 'deficit', 'population', 'cpi']) {
    coverage[table] = shape.hasColumn(table, 'stage') ? perStage(table, SERIES_STAGES) : [...new Set(yearsOf(table))];
  }
  return coverage;
}

function gapsIn(coverage: Coverage): number[] {
  const years = (table: string) => new Set(Object.values(coverage[table] as Record<string, number[]>).flat());
  const expenses = years('expenses');
  const resources = years('resources');
  const all = [...expenses, ...resources];
  if (!all.length) return [];
  const gaps: number[] = [];
  for (let year = Math.min(...all); year <= Math.max(...all); year++) {
    if (!expenses.has(year) || !resources.has(year)) gaps.push(year);
  }
  return gaps;
}

/** The rows of `sql/<name>.sql`, in plain values as ServedDrop.query gives them. */
async function rowsOf(connection: DuckDBConnection, name: string): Promise<Record<string, unknown>[]> {
  return (await connection.runAndReadAll(await readSql(name))).getRowObjects().map(plainRow);
}
