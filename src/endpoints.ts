/**
 * The data endpoints of contract section 4, described as data: a path, the zod schema of its
 * query, and how to answer from the drop. pipeline.ts runs every entry the same way.
 */
import { z } from 'zod';
import type { Lease, Row } from './data/store.js';
import { roundHalfAway } from './numbers.js';
import { param, type QuerySchema } from './params.js';
import { buildForest, type TreeRow } from './tree.js';

/** A paged answer: one page of items and the number of items matching in all. */
export interface Page {
  count: number;
  items: unknown[];
}

export interface Endpoint<S extends QuerySchema = QuerySchema> {
  /** Canonical path, with the trailing slash; served without it too. */
  path: string;
  summary: string;
  query: S;
  /** Paged endpoints answer a Page and are wrapped in the count/next/previous envelope. */
  paged: boolean;
  answer(params: z.infer<S>, lease: Lease): Promise<unknown[] | Page>;
}

const define = <S extends QuerySchema>(endpoint: Endpoint<S>): Endpoint => endpoint as unknown as Endpoint;

const paging = { limit: param.limit.optional(), offset: param.offset.optional() };
const DEFAULT_LIMIT = 100;

/** Splits the rows of a count-joined page query (see sql/expenses.sql) into count and items. */
function page(rows: Row[], item: (row: Row) => unknown): Page {
  return { count: Number(rows[0]?.count ?? 0), items: rows.filter((r) => r.id !== null).map(item) };
}

function treePage(rows: Row[], limit = DEFAULT_LIMIT, offset = 0): Page {
  const roots = buildForest(rows as unknown as TreeRow[]);
  return { count: roots.length, items: roots.slice(offset, offset + limit) };
}

export const ENDPOINTS: readonly Endpoint[] = [
  define({
    path: '/budget/api/totals/',
    summary: 'Total expenses, total resources and balance per year',
    paged: false,
    query: z.object({ year: param.year.optional(), include_complementary: param.boolean.optional() }),
    answer: ({ year, include_complementary }, lease) =>
      lease.query('totals', { year: year ?? null, include_complementary: include_complementary ?? true }),
  }),
  define({
    path: '/budget/api/budget-categories/',
    summary: 'Categories with their expenses or resources rolled up over their subtree',
    paged: false,
    query: z.object({ year: param.year.optional(), type: param.categoryType.optional() }),
    answer: ({ year, type }, lease) => lease.query('budget_categories', { year: year ?? null, type: type ?? null }),
  }),
  define({
    path: '/budget/api/expenses/',
    summary: 'Expense lines, or the expense category tree per year with hierarchy=true',
    paged: true,
    query: z.object({
      year: param.year.optional(),
      hierarchy: param.boolean.optional(),
      organization: param.id.optional(),
      ...paging,
    }),
    answer: async ({ year, hierarchy, organization, limit, offset }, lease) => {
      const filter = { year: year ?? null, organization: organization ?? null };
      if (hierarchy) return treePage(await lease.query('expense_tree', filter), limit, offset);
      const rows = await lease.query('expenses', { ...filter, limit: limit ?? DEFAULT_LIMIT, offset: offset ?? 0 });
      return page(rows, (r) => ({
        id: r.id,
        year: r.year,
        amount: r.amount,
        category: r.category,
        organization: { id: r.organization_id, name: r.organization_name, code: r.organization_code },
      }));
    },
  }),
  define({
    path: '/budget/api/resources/',
    summary: 'Resource lines, or the resource category tree per year with hierarchy=true',
    paged: true,
    query: z.object({ year: param.year.optional(), hierarchy: param.boolean.optional(), ...paging }),
    answer: async ({ year, hierarchy, limit, offset }, lease) => {
      if (hierarchy) return treePage(await lease.query('resource_tree', { year: year ?? null }), limit, offset);
      const rows = await lease.query('resources', { year: year ?? null, limit: limit ?? DEFAULT_LIMIT, offset: offset ?? 0 });
      return page(rows, (r) => ({ id: r.id, year: r.year, amount: r.amount, source: r.source }));
    },
  }),
  define({
    path: '/budget/api/organization/',
    summary: 'Organizations with their expenses and resources per year',
    paged: true,
    query: z.object({ year: param.year.optional(), ...paging }),
    answer: async ({ year, limit, offset }, lease) => {
      const rows = await lease.query('organizations', { year: year ?? null, limit: limit ?? DEFAULT_LIMIT, offset: offset ?? 0 });
      // One row per (organization, year): fold the years into each organization's budget.
      const byId = new Map<unknown, { id: unknown; name: unknown; code: unknown; budget: unknown[] }>();
      for (const r of rows) {
        if (r.id === null) continue;
        let org = byId.get(r.id);
        if (!org) byId.set(r.id, (org = { id: r.id, name: r.name, code: r.code, budget: [] }));
        if (r.year !== null) org.budget.push({ year: r.year, expenses: r.expenses, resources: r.resources });
      }
      return { count: Number(rows[0]?.count ?? 0), items: [...byId.values()] };
    },
  }),
  define({
    path: '/budget/api/organization/stats/',
    summary: 'Total expenses and resources per organization',
    paged: false,
    query: z.object({ year: param.year.optional(), organization_id: param.id.optional() }),
    answer: ({ year, organization_id }, lease) =>
      lease.query('organization_stats', { year: year ?? null, organization_id: organization_id ?? null }),
  }),
  define({
    path: '/budget/api/debt/',
    summary: 'Debt per year and origin, rolled up over the origin tree',
    paged: false,
    query: z.object({ year: param.year.optional(), parent: param.parent.optional() }),
    answer: async ({ year, parent }, lease) => {
      const rows = await lease.query('debt', { year: year ?? null, top_level: parent === null, parent: parent ?? null });
      return rows.map((r) => ({ year: r.year, debt_origin: { id: r.id, parent: r.parent, name: r.name }, value: r.value }));
    },
  }),
  define({
    path: '/budget/api/outstanding-debt/',
    summary: 'Outstanding public debt per year, with GDP and the debt as a percentage of GDP',
    paged: false,
    query: z.object({ year: param.yearOrLast.optional() }),
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
    paged: false,
    query: z.object({}),
    answer: async (_params, lease) => {
      const rows = await lease.query('deficit');
      return rows.map((r) => ({ ...r, percent: roundHalfAway(r.percent as number, 2) }));
    },
  }),
];
