/**
 * The typed boundary between the code and its SQL: for each file under sql/, the parameters it
 * binds and the row it gives, declared once. Lease.query is typed by this map, so a wrong query
 * name, a missing or misspelt parameter, or a misread column fails tsc. The parameter and column
 * names are also kept as values, which test/queries.test.ts holds against each .sql file's header
 * comment and against what DuckDB prepares.
 */
import type { LineStage, Stage } from '../domain/stages.js';
import type { LineRange } from './line-anchors.js';

/** An id as rows carry it: a number, or a bigint past 2^53 (data/values.ts). */
export type Id = number | bigint;
/** A `year` filter: the years asked for, or null for every year. */
type Years = readonly number[] | null;

/** Where a line or series row comes from (docs/api.md#stages). */
interface Provenance {
  source_id: Id | null;
  derived: boolean;
}
interface Line extends Provenance {
  id: Id;
  year: number;
  amount: number;
  category_id: Id;
  stage: LineStage;
}
interface ExpenseLine extends Line {
  organization_id: Id;
}
/** A count-joined page (sql/expenses.sql): the count on every row, and one row of nulls for an empty page. */
type Paged<R> = { count: number } & ({ [K in keyof R]: R[K] } | { [K in keyof R]: null });
interface TreeNode {
  year: number;
  id: Id;
  parent_id: Id | null;
  amount: number;
}
interface SeriesValue {
  year: number;
  value: number;
}
/** What a roll-up sums: the sources of its rows, and whether one of them is derived. */
interface Summed {
  source_ids: number[];
  derived: boolean;
}
interface SeriesProvenance extends Provenance {
  /** null for a series whose drop gives it no stages. */
  stage: Stage | null;
}

interface Query<P, R> {
  /** The parameters' names, as the .sql header lists them (the keys of P, checked by tsc). */
  params: readonly (keyof P & string)[];
  /** The columns' names (the keys of R, checked by tsc). */
  columns: readonly (keyof R & string)[];
  /** Types only: never read. */
  types?: { params: P; row: R };
}

/** Every key of T, in a list: tsc refuses a list that misses one. */
type AllOf<T, L extends readonly string[]> = Exclude<keyof T & string, L[number]> extends never ? L : never;

function query<P, R>() {
  return <const PN extends readonly (keyof P & string)[], const CN extends readonly (keyof R & string)[]>(
    params: AllOf<P, PN>,
    columns: AllOf<R, CN>,
  ): Query<P, R> => ({ params, columns });
}

const LINE_COLUMNS = ['id', 'year', 'amount', 'category_id', 'stage', 'source_id', 'derived'] as const;
const PAGE = ['limit', 'offset'] as const;
const LINE_PAGE = ['limit', 'from_id', 'to_id', 'skip'] as const;
/**
 * The line stages that a stage counts, as a statement over lines filters on them; null when they
 * are every line read (src/api/endpoints/lines.ts, lineStagesOf).
 */
type LineStages = readonly LineStage[] | null;

/**
 * Years asked of a page of lines: their first and last (null: every year), and the list of them
 * only when they leave gaps between those two (sql/expenses.sql says why).
 */
export interface YearBounds {
  year_from: number | null;
  year_to: number | null;
  year: Years;
}

/** Which lines a page of lines holds: its years and the line stages the asked stage counts; its size. */
interface LinesFilter extends YearBounds {
  line_stages: LineStages;
  limit: number;
}
/** A category's subtree: a category without subcategories as its id alone, else the list (null: every category). */
export interface CategoryFilter {
  leaf_category: Id | null;
  categories: readonly Id[] | null;
}

/**
 * A page of lines between two anchors: its years, the line stages the asked stage counts, and the
 * category's subtree (CategoryFilter).
 */
type RangeFilter = LinesFilter & LineRange & CategoryFilter;

/** A page of lines read from a copy kept in category or organization order: the lines before it, counted from the anchors. */
type InOrderFilter = LinesFilter & { skip: number };
/** A category's subtree as places in category order (derive/category_order.sql). */
interface CategoryPlaces {
  place_from: number;
  place_to: number;
}

export const QUERIES = {
  expenses: query<RangeFilter & { organization: Id | null }, ExpenseLine>()(
    ['organization', 'year_from', 'year_to', 'year', 'leaf_category', 'categories', 'line_stages', ...LINE_PAGE],
    [...LINE_COLUMNS, 'organization_id'],
  ),
  expenses_of_organization: query<{ organization: Id; category: Id; skip: number } & LinesFilter, Paged<ExpenseLine>>()(
    ['organization', 'category', 'year_from', 'year_to', 'year', 'line_stages', 'limit', 'skip'],
    ['count', ...LINE_COLUMNS, 'organization_id'],
  ),
  expenses_by_category: query<InOrderFilter & CategoryPlaces, ExpenseLine>()(
    ['place_from', 'place_to', 'year_from', 'year_to', 'year', 'line_stages', 'limit', 'skip'],
    [...LINE_COLUMNS, 'organization_id'],
  ),
  expenses_by_organization: query<InOrderFilter & { organization: Id }, ExpenseLine>()(
    ['organization', 'year_from', 'year_to', 'year', 'line_stages', 'limit', 'skip'],
    [...LINE_COLUMNS, 'organization_id'],
  ),
  resources_by_category: query<InOrderFilter & CategoryPlaces, Line>()(
    ['place_from', 'place_to', 'year_from', 'year_to', 'year', 'line_stages', 'limit', 'skip'],
    LINE_COLUMNS,
  ),
  resources: query<RangeFilter, Line>()(['year_from', 'year_to', 'year', 'leaf_category', 'categories', 'line_stages', ...LINE_PAGE], LINE_COLUMNS),
  all_expenses: query<YearBounds & CategoryFilter & { organization: Id | null; line_stages: LineStages }, ExpenseLine>()(
    ['year_from', 'year_to', 'year', 'organization', 'leaf_category', 'categories', 'line_stages'],
    [...LINE_COLUMNS, 'organization_id'],
  ),
  all_resources: query<YearBounds & CategoryFilter & { line_stages: LineStages }, Line>()(
    ['year_from', 'year_to', 'year', 'leaf_category', 'categories', 'line_stages'],
    LINE_COLUMNS,
  ),
  organizations: query<
    { year: Years; search: string | null; stage: Stage; limit: number; offset: number },
    Paged<{ id: Id; name: string; code: string; budget: string }>
  >()(['year', 'search', 'stage', ...PAGE], ['count', 'id', 'name', 'code', 'budget']),
  all_organizations: query<{ year: Years; search: string | null; stage: Stage }, { id: Id; name: string; code: string }>()(
    ['year', 'search', 'stage'],
    ['id', 'name', 'code'],
  ),
  all_organization_years: query<
    { year: Years; search: string | null; stage: Stage },
    { id: Id; name: string; code: string; year: number | null; expenses: number | null; resources: number | null }
  >()(['year', 'search', 'stage'], ['id', 'name', 'code', 'year', 'expenses', 'resources']),
  organization_stats: query<
    { year: Years; organization_id: Id | null; stage: Stage; by_year: boolean },
    Summed & { organization_id: Id; year: number | null; total_expenses: number | null; total_resources: number | null }
  >()(['year', 'organization_id', 'stage', 'by_year'], ['organization_id', 'year', 'total_expenses', 'total_resources', 'source_ids', 'derived']),
  budget_categories: query<
    { year: Years; type: 'expense' | 'resource' | null; stage: Stage; by_year: boolean },
    Summed & { id: Id; year: number | null; type: 'expense' | 'resource'; parent_id: Id | null; expenses: number; resources: number }
  >()(['year', 'type', 'stage', 'by_year'], ['id', 'year', 'type', 'parent_id', 'expenses', 'resources', 'source_ids', 'derived']),
  category_tree: query<{ type: 'expense' | 'resource'; year: Years; stage: Stage }, TreeNode>()(
    ['type', 'year', 'stage'],
    ['year', 'id', 'parent_id', 'amount'],
  ),
  organization_expense_tree: query<{ organization: Id; year: Years; stage: Stage }, TreeNode>()(
    ['organization', 'year', 'stage'],
    ['year', 'id', 'parent_id', 'amount'],
  ),
  organization_expense_sums: query<
    { organization: Id; year: Years; line_stages: readonly LineStage[] },
    { year: number; category_id: Id; millionths: number | bigint }
  >()(['organization', 'year', 'line_stages'], ['year', 'category_id', 'millionths']),
  totals: query<{ year: Years; stage: Stage }, Summed & { year: number; total_expenses: number; total_resources: number; balance: number }>()(
    ['year', 'stage'],
    ['year', 'total_expenses', 'total_resources', 'balance', 'source_ids', 'derived'],
  ),
  share_totals: query<{ year: Years; stage: Stage }, { year: number; kind: 'expense' | 'resource'; total: number }>()(
    ['year', 'stage'],
    ['year', 'kind', 'total'],
  ),
  debt: query<
    { year: Years; top_level: boolean; parent: Id | null; stage: Stage | null },
    SeriesValue & SeriesProvenance & { id: Id; parent: Id | null; name: string }
  >()(['year', 'top_level', 'parent', 'stage'], ['year', 'id', 'parent', 'name', 'value', 'stage', 'source_id', 'derived']),
  outstanding_debt: query<
    { year: Years; last: boolean; stage: Stage | null },
    SeriesProvenance & { year: number; outstanding_debt: number; gdp: number | null; value: number | null; published_value: number | null }
  >()(['year', 'last', 'stage'], ['year', 'outstanding_debt', 'gdp', 'value', 'published_value', 'stage', 'source_id', 'derived']),
  deficit: query<
    { year: Years; stage: Stage | null },
    SeriesValue & SeriesProvenance & { percent: number | null; published_percent: number | null; gdp: number | null }
  >()(['year', 'stage'], ['year', 'value', 'percent', 'published_percent', 'gdp', 'stage', 'source_id', 'derived']),
  measure_gdp: query<Record<never, never>, SeriesValue>()([], ['year', 'value']),
  measure_population: query<Record<never, never>, SeriesValue>()([], ['year', 'value']),
  measure_cpi: query<Record<never, never>, SeriesValue>()([], ['year', 'value']),
  sources: query<
    Record<never, never>,
    { id: Id; title: string; url: string | null; publisher: string | null; published: string | null; quote: string | null }
  >()([], ['id', 'title', 'url', 'publisher', 'published', 'quote']),
};

export type QueryName = keyof typeof QUERIES;
type TypesOf<N extends QueryName> = NonNullable<(typeof QUERIES)[N]['types']>;
/** What a query binds. */
export type ParamsOf<N extends QueryName> = TypesOf<N>['params'];
/** A row a query gives. */
export type RowOf<N extends QueryName> = TypesOf<N>['row'];
/** A row of a page's items, the count-only row of an empty page left out (endpoints/endpoint.ts page()). */
export type PageItem<N extends QueryName> = Exclude<RowOf<N>, { id: null }>;
