/** Expense and resource lines: paged flat lists, or category trees with hierarchy=true. */
import { z } from 'zod';
import type { LoadedDrop } from '../data/drop.js';
import type { Row } from '../data/store.js';
import { float64, int32, int64, table, utf8, type FlatRow, type Table } from '../formats/table.js';
import { param } from '../params.js';
import * as item from '../responses.js';
import { allTreeRows, categoryTree, treePage } from './category-tree.js';
import { define, named, ORDER, page, pageBounds, paging } from './endpoint.js';

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

export const expenses = define({
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
});

export const resources = define({
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
});
