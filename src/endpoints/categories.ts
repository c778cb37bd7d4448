import { z } from 'zod';
import { float64, int64, table, utf8 } from '../formats/table.js';
import { param } from '../params.js';
import * as item from '../responses.js';
import { define, named, ORDER } from './endpoint.js';

export const budgetCategories = define({
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
});
