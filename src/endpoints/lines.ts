/** Expense and resource lines: paged flat lists, or category trees with hierarchy=true. */
import type { LoadedDrop } from '../data/drop.js';
import type { Row } from '../data/store.js';
import { flatTable, type FlatRow, type Table } from '../formats/table.js';
import { pageBounds, pagingParams } from '../paging.js';
import { param } from '../params.js';
import * as item from '../responses.js';
import { API_PREFIX } from '../routes.js';
import { categoryTree, treeHeaders, treeVariant } from './category-tree.js';
import { DEFAULT_STAGE, define, named, ORDER, page, provenance } from './endpoint.js';
import { measuring } from './measured.js';

/** An expense line as served, from a row of ids (sql/expenses.sql, all_expenses.sql). */
const expenseItem =
  ({ categoryNames, organizations }: LoadedDrop) =>
  (r: Row) => ({
    id: r.id,
    year: r.year,
    amount: r.amount,
    category: named(categoryNames, r.category_id),
    organization: named(organizations, r.organization_id),
    ...provenance(r),
  });

/** A resource line as served: its source is its category's name. */
const resourceItem =
  ({ categoryNames }: LoadedDrop) =>
  (r: Row) => ({ id: r.id, year: r.year, amount: r.amount, source: named(categoryNames, r.category_id), ...provenance(r) });

/** A line's stage and where it comes from (docs/api.md, "Stages"). */

/** A streamed export of lines: each chunk of rows as the download's rows. */
async function* downloadChunks<Item>(chunks: AsyncIterable<Row[]>, item: (r: Row) => Item, table: Table<Item>): AsyncGenerator<FlatRow[]> {
  for await (const rows of chunks) yield rows.flatMap((r) => table.rows(item(r)));
}

const EXPENSE_TABLE = flatTable(item.Expense);
const RESOURCE_TABLE = flatTable(item.Resource);

export const expenses = define({
  path: `${API_PREFIX}/expenses/`,
  summary: 'Expense lines, or the expense category tree per year with hierarchy=true',
  description:
    `Flat: one item per expense line, ${ORDER('id').toLowerCase()} With hierarchy=true: the expense category ` +
    'tree of each year with rolled-up amounts, roots ordered by year then id, children by id; only nodes ' +
    'with lines under them for the filter; paging counts root nodes.',
  paged: true,
  query: {
    year: param.year.optional(),
    hierarchy: param.boolean.optional(),
    organization: param.id.optional(),
    category: param.category.optional(),
    stage: param.stage.optional(),
    ...measuring,
    ...pagingParams,
  },
  figures: ['amount'],
  headers: treeHeaders,
  variants: [
    {
      name: 'list',
      item: item.Expense,
      table: EXPENSE_TABLE,
      answer: async ({ year, organization, category, stage = DEFAULT_STAGE, limit, offset }, lease) => {
        const filter = { year: year ?? null, category: category ?? null, stage, ...pageBounds({ limit, offset }) };
        const rows =
          organization === undefined
            ? await lease.query('expenses', filter)
            : await lease.query('expenses_of_organization', { organization, ...filter });
        return page(rows, expenseItem(lease.drop.data));
      },
      exportAll: ({ year, organization, category, stage = DEFAULT_STAGE }, lease) => {
        const lines = lease.stream('all_expenses', { year: year ?? null, organization: organization ?? null, category: category ?? null, stage });
        return downloadChunks(lines, expenseItem(lease.drop.data), EXPENSE_TABLE);
      },
    },
    treeVariant((params, lease) => categoryTree(lease, 'expense', params.stage ?? DEFAULT_STAGE, params)),
  ],
});

export const resources = define({
  path: `${API_PREFIX}/resources/`,
  summary: 'Resource lines, or the resource category tree per year with hierarchy=true',
  description:
    `Flat: one item per resource line, ${ORDER('id').toLowerCase()} With hierarchy=true: the resource category ` +
    'tree of each year, as for expenses.',
  paged: true,
  query: {
    year: param.year.optional(),
    hierarchy: param.boolean.optional(),
    category: param.category.optional(),
    stage: param.stage.optional(),
    ...measuring,
    ...pagingParams,
  },
  figures: ['amount'],
  headers: treeHeaders,
  variants: [
    {
      name: 'list',
      item: item.Resource,
      table: RESOURCE_TABLE,
      answer: async ({ year, category, stage = DEFAULT_STAGE, limit, offset }, lease) => {
        const rows = await lease.query('resources', { year: year ?? null, category: category ?? null, stage, ...pageBounds({ limit, offset }) });
        return page(rows, resourceItem(lease.drop.data));
      },
      exportAll: ({ year, category, stage = DEFAULT_STAGE }, lease) =>
        downloadChunks(
          lease.stream('all_resources', { year: year ?? null, category: category ?? null, stage }),
          resourceItem(lease.drop.data),
          RESOURCE_TABLE,
        ),
    },
    treeVariant((params, lease) => categoryTree(lease, 'resource', params.stage ?? DEFAULT_STAGE, params)),
  ],
});
