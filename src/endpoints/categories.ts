import { flatTable } from '../formats/table.js';
import { param } from '../params.js';
import * as item from '../responses.js';
import { API_PREFIX } from '../routes.js';
import { DEFAULT_STAGE, define, named, ORDER } from './endpoint.js';

export const budgetCategories = define({
  path: `${API_PREFIX}/budget-categories/`,
  summary: 'Categories with their expenses or resources rolled up over their subtree',
  description: `One row per category whose subtree has lines for the filter, with the sums of those lines. ${ORDER('id')}`,
  paged: false,
  query: { year: param.year.optional(), type: param.categoryType.optional(), stage: param.stage.optional() },
  variants: [
    {
      name: 'list',
      item: item.BudgetCategory,
      table: flatTable(item.BudgetCategory),
      answer: async ({ year, type, stage }, lease) => {
        const rows = await lease.query('budget_categories', { year: year ?? null, type: type ?? null, stage: stage ?? DEFAULT_STAGE });
        const { categoryNames } = lease.drop.data;
        return rows.map(({ id, ...rest }) => ({ id, category: named(categoryNames, id), ...rest }));
      },
    },
  ],
});
