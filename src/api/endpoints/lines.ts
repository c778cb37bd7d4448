/** Expense and resource lines: paged flat lists, or category trees with hierarchy=true. */
import type { LoadedDrop } from '../../data/drop.js';
import type { Lease } from '../../data/lease.js';
import { EVERY_ID, inYear, type Grouping, type LineRange, type LinesTable } from '../../data/line-anchors.js';
import type { CategoryFilter, Id, PageItem, YearBounds } from '../../data/queries.js';
import type { NamedBy } from '../../formats/format.js';
import { flatTable } from '../../formats/table.js';
import { pageBounds, pagingParams, type Page } from '../paging.js';
import { param } from '../params.js';
import * as item from '../responses.js';
import { API_PREFIX } from '../routes.js';
import { categoryTree, treeHeaders, treeVariant } from './category-tree.js';
import { LINES_OF, stageOrDefault, type LineStage, type Stage } from '../../domain/stages.js';
import { subtreeOf } from '../../domain/tree.js';
import { named } from '../../domain/names.js';
import { define, ORDER, page } from './endpoint.js';
import { measuring } from './measured-rows.js';

/**
 * An expense line as served, from a row of ids (sql/expenses.sql). Its provenance (stage, source,
 * derived: endpoint.ts provenance) is written out here rather than spread from a second object,
 * so that a page makes one object per line, not two (docs/performance.md, "Fewer objects an
 * answer").
 */
const expenseItem =
  ({ categoryNames, organizations }: LoadedDrop) =>
  (r: PageItem<'expenses'>) => ({
    id: r.id,
    year: r.year,
    amount: r.amount,
    category: named(categoryNames, r.category_id),
    organization: named(organizations, r.organization_id),
    stage: r.stage,
    source_id: r.source_id,
    derived: r.derived,
  });

/** A resource line as served: its source is its category's name. */
const resourceItem =
  ({ categoryNames }: LoadedDrop) =>
  (r: PageItem<'resources'>) => ({
    id: r.id,
    year: r.year,
    amount: r.amount,
    source: named(categoryNames, r.category_id),
    stage: r.stage,
    source_id: r.source_id,
    derived: r.derived,
  });

/** How a full export's lines are named (see formats/format.ts NamedBy). */
const categoryNamed = ({ categoryNames }: LoadedDrop): NamedBy => ({
  by: 'category_id',
  table: 'categories',
  column: 'name',
  names: categoryNames,
});
const organizationNamed = ({ organizations }: LoadedDrop, column: 'name' | 'code'): NamedBy => ({
  by: 'organization_id',
  table: 'organizations',
  column,
  names: organizationColumn(organizations, column),
});

/** One column of the drop's organizations by id, made once per drop. */
const organizationColumns = new WeakMap<LoadedDrop['organizations'], Record<'name' | 'code', ReadonlyMap<unknown, string>>>();
function organizationColumn(organizations: LoadedDrop['organizations'], column: 'name' | 'code'): ReadonlyMap<unknown, string> {
  let columns = organizationColumns.get(organizations);
  if (!columns) {
    const of = (key: 'name' | 'code') => new Map([...organizations].map(([id, organization]) => [id, organization[key]]));
    organizationColumns.set(organizations, (columns = { name: of('name'), code: of('code') }));
  }
  return columns[column];
}

const EXPENSE_TABLE = flatTable(item.Expense);
const RESOURCE_TABLE = flatTable(item.Resource);

/** The parameters both lists of lines take after year, hierarchy (and expenses' organization). */
const LINE_FILTERS = { category: param.category.optional(), stage: param.stage.optional(), ...measuring, ...pagingParams };

type LineFilter = { year?: number[]; category?: number | bigint; stage?: Stage };

type LinesKind = 'expense' | 'resource';

/**
 * The line stages a statement over lines keeps, or null when the stage counts every line of the
 * years asked (by default, in a drop or a year without outturn lines), so that DuckDB compares no
 * line's stage: a comparison of text for every line read, which was 25 of the 40 ms that one
 * year's lines of a 1M-line drop took to read, and 14 of the 21 ms of one category's.
 */
function lineStagesOf({ lineStages }: LoadedDrop, kind: LinesKind, { year, stage }: LineFilter): readonly LineStage[] | null {
  const counted = LINES_OF[stageOrDefault(stage)];
  const perYear = lineStages.get(kind) ?? new Map<number, ReadonlySet<LineStage>>();
  for (const y of year ?? perYear.keys()) {
    for (const lineStage of perYear.get(y) ?? []) if (!counted.includes(lineStage)) return counted;
  }
  return null;
}

/**
 * A page of expense or resource lines (one organization's: expenses only), found and counted
 * from the anchors (`located`), or, for one organization's lines of a category, counted and sorted
 * with the page.
 */
async function linesPage(
  lease: Lease,
  table: LinesTable,
  params: LineFilter & { limit?: number; offset?: number },
  organization?: Id,
): Promise<Page> {
  const data = lease.drop.data;
  const bounds = pageBounds(params);
  const kind = table === 'expenses' ? 'expense' : 'resource';
  // Every line of the years asked at the stage asked, or the default.
  const lines = { ...yearBoundsOf(params.year), line_stages: lineStagesOf(data, kind, params), limit: bounds.limit };
  const categories = categoriesOf(data, params.category);
  // A scan that tests a list on each line (the stage's line stages, a category's subtree) reads
  // each line at about twice the cost of one that compares values only.
  const scanCost = lines.line_stages !== null || categories.categories !== null ? LISTED_SCAN_COST : 1;
  const where = located(data, table, kind, params, organization, { ...bounds, scanCost });
  if (where === null) {
    const filter = { organization: organization!, category: params.category!, ...lines, skip: bounds.offset };
    return page(await lease.query('expenses_of_organization', filter), expenseItem(data));
  }
  const { count } = where;
  if ('inOrder' in where) {
    const filter = { ...lines, skip: bounds.offset };
    if (where.inOrder === 'organization') {
      return { count, items: (await lease.query('expenses_by_organization', { ...filter, organization: organization! })).map(expenseItem(data)) };
    }
    const [place_from, place_to] = data.categoryPlaces.get(params.category!)!;
    const inCategory = { ...filter, place_from, place_to };
    return table === 'expenses'
      ? { count, items: (await lease.query('expenses_by_category', inCategory)).map(expenseItem(data)) }
      : { count, items: (await lease.query('resources_by_category', inCategory)).map(resourceItem(data)) };
  }
  const filter = { ...lines, ...categories, ...where.range };
  return table === 'expenses'
    ? { count, items: (await lease.query('expenses', { ...filter, organization: organization ?? null })).map(expenseItem(data)) }
    : { count, items: (await lease.query('resources', filter)).map(resourceItem(data)) };
}

/** The years asked (ascending and distinct, params.ts) as a page of lines binds them. */
function yearBoundsOf(year: readonly number[] | undefined): YearBounds {
  if (year === undefined) return { year_from: null, year_to: null, year: null };
  const first = year[0]!;
  const last = year[year.length - 1]!;
  return { year_from: first, year_to: last, year: last - first + 1 === year.length ? null : year };
}

/**
 * A category's subtree as lines bind it: a category without subcategories as its id alone, which
 * DuckDB compares in its scan faster than it tests a list (1M lines, one category's page of five
 * years: 4.5 -> 3.5 ms of DuckDB's operators).
 */
function categoriesOf(data: LoadedDrop, category: Id | undefined): CategoryFilter {
  if (category === undefined) return { leaf_category: null, categories: null };
  const subtree = subtreeOf(data.categoryChildren, category);
  return subtree.length === 1 ? { leaf_category: subtree[0]!, categories: null } : { leaf_category: null, categories: subtree };
}

/**
 * The same filters as a full export binds them: the category's subtree and the stage's line
 * stages as lists, so that its statement has no join that would lose the lines' id order
 * (sql/derive/all_lines.sql).
 */
const allLinesOf = (data: LoadedDrop, kind: LinesKind, filter: LineFilter) => ({
  ...yearBoundsOf(filter.year),
  ...categoriesOf(data, filter.category),
  line_stages: lineStagesOf(data, kind, filter),
});

/**
 * What reading one line of a copy kept in category or organization order costs, in lines of the
 * table in id order scanned between two anchors; a line the sort keeps for the page (those past
 * the offset and before it) costs twice that again. Measured at 1M lines (medians of 25 runs,
 * scripts/bench/query-time.ts): one organization's 3,300 lines read and sorted for a page at
 * offset 3,000 took 4.8-6.6 ms, against 4.0-4.9 ms for the 77,000 lines scanned between its
 * anchors; 517 lines for a page of five years at offset 200, 3.6-4.1 ms, against 8.1-9.5 ms for
 * the 575,000 lines scanned from its first.
 */
const SORTED_LINE_COST = 20;

/**
 * What scanning a line costs when the page tests a list on it, against one that compares values
 * only (1M lines in three stages, scripts/bench/query-time.ts: 104,000 lines scanned for one
 * category's outturn page, 3.4 ms of DuckDB's operators, 33 ns a line; 575,000 lines for one
 * organization's page of five years, 6.3 ms, 11 ns a line).
 */
const LISTED_SCAN_COST = 2;

/**
 * Where a page of lines lies and how many lines match, from the anchors (src/data/line-anchors.ts),
 * which count every line of each stage, of each year, and of each category (its subtree) and
 * organization in every year and in each:
 * - one grouping value (every line, one year, a category or an organization in every year or in
 *   one): the page lies between two of its anchors;
 * - a category's or an organization's lines of several years: counted per year, the page found
 *   from the earliest of those years' first lines on;
 * - every line of several years: counted per year at load (lineCounts), the page found the same
 *   way.
 * A category's or an organization's page is read from the copy of the lines kept in its order
 * (`inOrder`) when its lines lie so far apart among the ids that the range would make DuckDB scan
 * more lines than reading and sorting its own lines from the copy costs (copyIsCheaper).
 * Null for one organization's lines of a category, which no anchor counts.
 */
function located(
  data: LoadedDrop,
  table: LinesTable,
  kind: LinesKind,
  filter: LineFilter,
  organization: Id | undefined,
  { limit, offset, scanCost }: { limit: number; offset: number; scanCost: number },
): { count: number; range: LineRange } | { count: number; inOrder: 'category' | 'organization' } | null {
  const { anchors } = data;
  const stage = stageOrDefault(filter.stage);
  const { year, category } = filter;
  if (category !== undefined && organization !== undefined) return null;
  const between = (grouping: Grouping, value: Id | string) => ({
    count: anchors.countOf(table, stage, grouping, value),
    range: anchors.rangeOf(table, stage, grouping, value, offset, limit),
  });
  // Several years' lines: from the earliest of their first lines on, past `offset` of them. In a
  // drop whose ids grow with the years, the scan then starts at the first year asked.
  const fromFirstOf = (grouping: Grouping, values: readonly (number | string)[]): LineRange => {
    const from_id = values.reduce((first, value) => {
      const id = anchors.firstOf(table, stage, grouping, value);
      return id < first ? id : first;
    }, EVERY_ID.to_id);
    return { from_id, to_id: EVERY_ID.to_id, skip: offset };
  };
  const by: { grouping: 'category' | 'organization'; yearly: Grouping; value: Id } | undefined =
    category !== undefined
      ? { grouping: 'category', yearly: 'category-year', value: category }
      : organization !== undefined
        ? { grouping: 'organization', yearly: 'organization-year', value: organization }
        : undefined;
  if (by === undefined) {
    if (year === undefined) return between('all', 0);
    if (year.length === 1) return between('year', year[0]!);
    return { count: linesCounted(data, kind, filter), range: fromFirstOf('year', year) };
  }
  const { grouping, yearly, value } = by;
  const inEachYear = year?.map((y) => inYear(value, y));
  const found =
    inEachYear === undefined
      ? between(grouping, value)
      : inEachYear.length === 1
        ? between(yearly, inEachYear[0]!)
        : { count: inEachYear.reduce((sum, key) => sum + anchors.countOf(table, stage, yearly, key), 0), range: fromFirstOf(yearly, inEachYear) };
  const severalYears = (inEachYear?.length ?? 1) > 1;
  return data.inOrder && copyIsCheaper(data, table, stage, found, { limit, offset, scanCost, severalYears })
    ? { count: found.count, inOrder: grouping }
    : found;
}

/**
 * Whether reading and sorting a value's own lines from the copy kept in its order costs less than
 * scanning the lines between the page's two ids (located). A page between two anchors scans the
 * lines between them, of every stage (the anchors count the stage's); one of several years scans
 * from the earliest year's first line until it has found its own lines, at their share of every line.
 */
function copyIsCheaper(
  { anchors, manifest }: LoadedDrop,
  table: LinesTable,
  stage: Stage,
  { count, range }: { count: number; range: LineRange },
  { limit, offset, scanCost, severalYears }: { limit: number; offset: number; scanCost: number; severalYears: boolean },
): boolean {
  const stageLines = anchors.countOf(table, stage, 'all', 0);
  const tableLines = manifest.files[`${table}.parquet`]?.rows ?? stageLines;
  const inRange = (anchors.linesBetween(table, stage, range.from_id, range.to_id) * tableLines) / Math.max(stageLines, 1);
  const scanned = severalYears ? inRange * Math.min(1, (offset + limit) / count) : inRange;
  const sorted = count + 2 * Math.min(count, offset + limit);
  return sorted * SORTED_LINE_COST < scanned * scanCost;
}

/**
 * How many lines the stage counts in the years asked, of every category and organization: the
 * count of a page of such lines, and at most the lines of a full export.
 */
function linesCounted({ lineCounts }: LoadedDrop, kind: LinesKind, { year, stage }: LineFilter): number {
  const perYear = lineCounts.get(`${kind}:${stageOrDefault(stage)}`) ?? new Map<number, number>();
  return (year ?? [...perYear.keys()]).reduce((sum, y) => sum + (perYear.get(y) ?? 0), 0);
}

export const expenses = define({
  path: `${API_PREFIX}/expenses/`,
  summary: 'Expense lines, or the expense category tree per year with hierarchy=true',
  description:
    `Flat: one item per expense line, ${ORDER('id').toLowerCase()} With hierarchy=true: the expense category ` +
    'tree of each year with rolled-up amounts, roots ordered by year then id, children by id; only nodes ' +
    'with lines under them for the filter; paging counts root nodes.',
  paged: true,
  query: { year: param.year.optional(), hierarchy: param.boolean.optional(), organization: param.id.optional(), ...LINE_FILTERS },
  figures: ['amount'],
  headers: treeHeaders,
  variants: [
    {
      name: 'list',
      item: item.Expense,
      table: EXPENSE_TABLE,
      answer: (params, lease) => linesPage(lease, 'expenses', params, params.organization),
      exportAll: (params, lease) => ({
        sql: 'all_expenses',
        params: { ...allLinesOf(lease.drop.data, 'expense', params), organization: params.organization ?? null },
        rowsAtMost: linesCounted(lease.drop.data, 'expense', params),
        named: {
          category: categoryNamed(lease.drop.data),
          organization_name: organizationNamed(lease.drop.data, 'name'),
          organization_code: organizationNamed(lease.drop.data, 'code'),
        },
      }),
    },
    treeVariant((params, lease) => categoryTree(lease, 'expense', stageOrDefault(params.stage), params)),
  ],
});

export const resources = define({
  path: `${API_PREFIX}/resources/`,
  summary: 'Resource lines, or the resource category tree per year with hierarchy=true',
  description:
    `Flat: one item per resource line, ${ORDER('id').toLowerCase()} With hierarchy=true: the resource category ` +
    'tree of each year, as for expenses.',
  paged: true,
  query: { year: param.year.optional(), hierarchy: param.boolean.optional(), ...LINE_FILTERS },
  figures: ['amount'],
  headers: treeHeaders,
  variants: [
    {
      name: 'list',
      item: item.Resource,
      table: RESOURCE_TABLE,
      answer: (params, lease) => linesPage(lease, 'resources', params),
      exportAll: (params, lease) => ({
        sql: 'all_resources',
        params: allLinesOf(lease.drop.data, 'resource', params),
        rowsAtMost: linesCounted(lease.drop.data, 'resource', params),
        named: { source: categoryNamed(lease.drop.data) },
      }),
    },
    treeVariant((params, lease) => categoryTree(lease, 'resource', stageOrDefault(params.stage), params)),
  ],
});
