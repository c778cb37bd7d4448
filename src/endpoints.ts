/**
 * The data endpoints of contract section 4, described as data: a path, the zod schema of its
 * query, the shape of its JSON items, how those items flatten into CSV/Arrow rows, and how to
 * answer from the drop. pipeline.ts runs every entry the same way; openapi.ts documents them.
 */
import { z } from 'zod';
import type { LoadedDrop } from './data/drop.js';
import type { Lease, Row } from './data/store.js';
import { float64, int32, int64, table, utf8, type FlatRow, type Table } from './formats/table.js';
import { roundHalfAway } from './numbers.js';
import { param, type QuerySchema } from './params.js';
import * as item from './responses.js';
import { buildForest, flattenTree, type TreeNode, type TreeRow } from './tree.js';

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
const define = <S extends QuerySchema>(endpoint: Endpoint<S>): Endpoint =>
  ({ ...endpoint, query: endpoint.query.extend({ format: param.format.optional() }) }) as unknown as Endpoint;

const paging = { limit: param.limit.optional(), offset: param.offset.optional() };
const DEFAULT_LIMIT = 100;

/** The page a request asks for, defaults applied. */
export function pageBounds(params: { limit?: number; offset?: number }): { limit: number; offset: number } {
  return { limit: params.limit ?? DEFAULT_LIMIT, offset: params.offset ?? 0 };
}

/** The count of a count-joined page query (see sql/expenses.sql): on every row, and on the one row of an empty page. */
const countOf = (rows: Row[]) => Number(rows[0]?.count ?? 0);

/** Splits the rows of a count-joined page query into count and items. */
function page(rows: Row[], item: (row: Row) => unknown): Page {
  return { count: countOf(rows), items: rows.filter((r) => r.id !== null).map(item) };
}

function treePage(roots: TreeNode[], params: { limit?: number; offset?: number }): Page {
  const { limit, offset } = pageBounds(params);
  return { count: roots.length, items: roots.slice(offset, offset + limit) };
}

/** Every node of every tree, in one chunk: a tree's size is bounded by categories × years, not by lines. */
async function* allTreeRows(roots: Promise<TreeNode[]>): AsyncGenerator<FlatRow[]> {
  yield (await roots).flatMap((root) => TREE_TABLE.rows(root));
}

/**
 * The drop's name for an id. Validation guarantees every referenced id has one, so a miss is a
 * bug to report, not a field to leave out of the answer.
 */
function named<T>(names: ReadonlyMap<unknown, T>, id: unknown): T {
  const found = names.get(id);
  if (found === undefined) throw new Error(`no name for id ${String(id)}`);
  return found;
}

/** An expense line as served, from a row of ids (sql/expenses.sql, all_expenses.sql). */
const expenseItem =
  ({ categoryNames, organizations }: LoadedDrop) =>
  (r: Row) => ({
    id: r.id,
    year: r.year,
    amount: r.amount,
    category: named(categoryNames, r.category_id),
    organization: named(organizations, r.organization_id),
  });

/** A resource line as served: its source is its category's name. */
const resourceItem =
  ({ categoryNames }: LoadedDrop) =>
  (r: Row) => ({ id: r.id, year: r.year, amount: r.amount, source: named(categoryNames, r.category_id) });

/** A streamed export of lines: each chunk of rows as the download's rows. */
async function* downloadChunks(chunks: AsyncIterable<Row[]>, item: (r: Row) => unknown, table: Table): AsyncGenerator<FlatRow[]> {
  for await (const rows of chunks) yield rows.flatMap((r) => table.rows(item(r)));
}

const EXPENSE_TABLE: Table = table<z.infer<typeof item.Expense>>(
  [
    int64('id'),
    int32('year'),
    float64('amount'),
    utf8('category'),
    int64('organization_id'),
    utf8('organization_name'),
    utf8('organization_code'),
  ],
  ({ organization, ...line }) => [
    {
      ...line,
      organization_id: organization.id,
      organization_name: organization.name,
      organization_code: organization.code,
    },
  ],
) as Table;

const RESOURCE_TABLE: Table = table<z.infer<typeof item.Resource>>([int64('id'), int32('year'), float64('amount'), utf8('source')], (r) => [r]) as Table;

/** One row per node of a category tree, depth-first, roots at depth 0 (contract section 5). */
export const TREE_TABLE = table<TreeNode>(
  [int64('id'), int64('parent_id', { nullable: true }), utf8('name'), int32('year'), float64('amount'), int32('depth')],
  (root) => flattenTree(root) as unknown as FlatRow[],
);

const ORDER = (order: string) => `Ordered by ${order}.`;

/**
 * The roll-up computed at load answers the whole tree; one organization's expense tree reads its
 * lines. Nodes are named from the drop's category names (sql/derive/category_names.sql).
 */
async function categoryTree(lease: Lease, type: 'expense' | 'resource', year?: number, organization?: number | bigint): Promise<TreeNode[]> {
  const rows =
    organization === undefined
      ? await lease.query('category_tree', { type, year: year ?? null })
      : await lease.query('organization_expense_tree', { organization, year: year ?? null });
  const { categoryNames } = lease.drop.data;
  return buildForest(rows as unknown as TreeRow[], (id) => named(categoryNames, id));
}

export const ENDPOINTS: readonly Endpoint[] = [
  define({
    path: '/budget/api/totals/',
    summary: 'Total expenses, total resources and balance per year',
    description: `One row per year with expense or resource lines; balance = total_resources - total_expenses. ${ORDER('year')}`,
    paged: false,
    query: z.object({ year: param.year.optional(), include_complementary: param.boolean.optional() }),
    item: item.Total,
    table: table<z.infer<typeof item.Total>>(
      [int32('year'), float64('total_expenses'), float64('total_resources'), float64('balance')],
      (t) => [t],
    ),
    answer: ({ year, include_complementary }, lease) =>
      lease.query('totals', { year: year ?? null, include_complementary: include_complementary ?? true }),
  }),
  define({
    path: '/budget/api/budget-categories/',
    summary: 'Categories with their expenses or resources rolled up over their subtree',
    description: `One row per category whose subtree has lines for the filter, with the sums of those lines. ${ORDER('id')}`,
    paged: false,
    query: z.object({ year: param.year.optional(), type: param.categoryType.optional() }),
    item: item.BudgetCategory,
    table: table<z.infer<typeof item.BudgetCategory>>(
      [
        int64('id'),
        utf8('category'),
        utf8('type'),
        int64('parent_id', { nullable: true }),
        float64('expenses'),
        float64('resources'),
      ],
      (c) => [c],
    ),
    answer: async ({ year, type }, lease) => {
      const rows = await lease.query('budget_categories', { year: year ?? null, type: type ?? null });
      const { categoryNames } = lease.drop.data;
      return rows.map(({ id, ...rest }) => ({ id, category: named(categoryNames, id), ...rest }));
    },
  }),
  define({
    path: '/budget/api/expenses/',
    summary: 'Expense lines, or the expense category tree per year with hierarchy=true',
    description:
      `Flat: one item per expense line, ${ORDER('id').toLowerCase()} With hierarchy=true: the expense category ` +
      'tree of each year with rolled-up amounts, roots ordered by year then id, children by id; only nodes ' +
      'with lines under them for the filter; paging counts root nodes.',
    paged: true,
    query: z.object({
      year: param.year.optional(),
      hierarchy: param.boolean.optional(),
      organization: param.id.optional(),
      ...paging,
    }),
    item: item.Expense,
    hierarchy: true,
    table: EXPENSE_TABLE,
    answer: async ({ year, hierarchy, organization, ...paged }, lease) => {
      if (hierarchy) return treePage(await categoryTree(lease, 'expense', year, organization), paged);
      const rows =
        organization === undefined
          ? await lease.query('expenses', { year: year ?? null, ...pageBounds(paged) })
          : await lease.query('expenses_of_organization', { organization, year: year ?? null, ...pageBounds(paged) });
      return page(rows, expenseItem(lease.drop.data));
    },
    exportAll: ({ year, hierarchy, organization }, lease) => {
      if (hierarchy) return allTreeRows(categoryTree(lease, 'expense', year, organization));
      const lines = lease.stream('all_expenses', { year: year ?? null, organization: organization ?? null });
      return downloadChunks(lines, expenseItem(lease.drop.data), EXPENSE_TABLE);
    },
  }),
  define({
    path: '/budget/api/resources/',
    summary: 'Resource lines, or the resource category tree per year with hierarchy=true',
    description:
      `Flat: one item per resource line, ${ORDER('id').toLowerCase()} With hierarchy=true: the resource category ` +
      'tree of each year, as for expenses.',
    paged: true,
    query: z.object({ year: param.year.optional(), hierarchy: param.boolean.optional(), ...paging }),
    item: item.Resource,
    hierarchy: true,
    table: RESOURCE_TABLE,
    answer: async ({ year, hierarchy, ...paged }, lease) => {
      if (hierarchy) return treePage(await categoryTree(lease, 'resource', year), paged);
      const rows = await lease.query('resources', { year: year ?? null, ...pageBounds(paged) });
      return page(rows, resourceItem(lease.drop.data));
    },
    exportAll: ({ year, hierarchy }, lease) =>
      hierarchy
        ? allTreeRows(categoryTree(lease, 'resource', year))
        : downloadChunks(lease.stream('all_resources', { year: year ?? null }), resourceItem(lease.drop.data), RESOURCE_TABLE),
  }),
  define({
    path: '/budget/api/organization/',
    summary: 'Organizations with their expenses and resources per year',
    description:
      'Without year: every organization (budget may be empty). With year: only organizations with lines that ' +
      `year, and budget holds that year alone. ${ORDER('id')} In CSV and Arrow: one row per organization and ` +
      'year; an organization without lines is one row with empty year, expenses and resources.',
    paged: true,
    query: z.object({ year: param.year.optional(), ...paging }),
    item: item.Organization,
    table: table<z.infer<typeof item.Organization>>(
      [
        int64('id'),
        utf8('name'),
        utf8('code'),
        int32('year', { nullable: true }),
        float64('expenses', { nullable: true }),
        float64('resources', { nullable: true }),
      ],
      ({ budget, ...organization }) =>
        budget.length > 0
          ? budget.map((year) => ({ ...organization, ...year }))
          : [{ ...organization, year: null, expenses: null, resources: null }],
    ),
    answer: async ({ year, ...paged }, lease) => {
      const rows = await lease.query('organizations', { year: year ?? null, ...pageBounds(paged) });
      return page(rows, (r) => ({ id: r.id, name: r.name, code: r.code, budget: JSON.parse(r.budget as string) }));
    },
    exportAll: ({ year }, lease) => lease.stream('all_organization_years', { year: year ?? null }),
  }),
  define({
    path: '/budget/api/organization/stats/',
    summary: 'Total expenses and resources per organization',
    description: `Without year: every organization; with year: those with lines that year. ${ORDER('organization_id')}`,
    paged: false,
    query: z.object({ year: param.year.optional(), organization_id: param.id.optional() }),
    item: item.OrganizationStats,
    table: table<z.infer<typeof item.OrganizationStats>>(
      [int64('organization_id'), float64('total_expenses'), float64('total_resources')],
      (s) => [s],
    ),
    answer: ({ year, organization_id }, lease) =>
      lease.query('organization_stats', { year: year ?? null, organization_id: organization_id ?? null }),
  }),
  define({
    path: '/budget/api/debt/',
    summary: 'Debt per year and origin, rolled up over the origin tree',
    description:
      'One row per (year, origin) whose subtree has a value that year, the value rolled up. parent=null keeps ' +
      `top-level origins; parent=<id> keeps the children of that origin. ${ORDER('year, then origin id')}`,
    paged: false,
    query: z.object({ year: param.year.optional(), parent: param.parent.optional() }),
    item: item.Debt,
    table: table<z.infer<typeof item.Debt>>(
      [
        int32('year'),
        int64('debt_origin_id'),
        int64('debt_origin_parent', { nullable: true }),
        utf8('debt_origin_name'),
        float64('value'),
      ],
      ({ year, debt_origin, value }) => [
        { year, debt_origin_id: debt_origin.id, debt_origin_parent: debt_origin.parent, debt_origin_name: debt_origin.name, value },
      ],
    ),
    answer: async ({ year, parent }, lease) => {
      const rows = await lease.query('debt', { year: year ?? null, top_level: parent === null, parent: parent ?? null });
      return rows.map((r) => ({ year: r.year, debt_origin: { id: r.id, parent: r.parent, name: r.name }, value: r.value }));
    },
  }),
  define({
    path: '/budget/api/outstanding-debt/',
    summary: 'Outstanding public debt per year, with GDP and the debt as a percentage of GDP',
    description: `value = outstanding_debt / gdp * 100. year=last: the most recent year only. ${ORDER('year')}`,
    paged: false,
    query: z.object({ year: param.yearOrLast.optional() }),
    item: item.OutstandingDebt,
    table: table<z.infer<typeof item.OutstandingDebt>>(
      [int32('year'), float64('outstanding_debt'), float64('gdp'), float64('value')],
      (d) => [d],
    ),
    answer: async ({ year }, lease) => {
      const rows = await lease.query('outstanding_debt', {
        year: typeof year === 'number' ? year : null,
        last: year === 'last',
      });
      return rows.map((r) => ({ ...r, value: roundHalfAway(r.value as number, 2) }));
    },
  }),
  define({
    path: '/budget/api/deficit/',
    summary: 'Budget deficit per year, with GDP and the deficit as a percentage of GDP',
    description: `percent = value / gdp * 100. ${ORDER('year')}`,
    paged: false,
    query: z.object({}),
    item: item.Deficit,
    table: table<z.infer<typeof item.Deficit>>([int32('year'), float64('value'), float64('percent'), float64('gdp')], (d) => [d]),
    answer: async (_params, lease) => {
      const rows = await lease.query('deficit');
      return rows.map((r) => ({ ...r, percent: roundHalfAway(r.percent as number, 2) }));
    },
  }),
];
