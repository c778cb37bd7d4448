import { flatTable } from '../../formats/table.js';
import { param } from '../params.js';
import * as item from '../responses.js';
import { API_PREFIX } from '../routes.js';
import type { Row } from '../../data/store.js';
import type { ShareKind } from '../measures.js';
import { stageOrDefault } from '../../domain/stages.js';
import { define, named, ORDER } from './endpoint.js';
import { changing, measuredSums, measuring, ordered, sumsHeader } from './measured-rows.js';

export const budgetCategories = define({
  path: `${API_PREFIX}/budget-categories/`,
  summary: 'Categories with their expenses or resources rolled up over their subtree',
  description: `One row per category whose subtree has lines for the filter, with the sums of those lines. ${ORDER('id')}`,
  paged: false,
  query: {
    year: param.year.optional(),
    type: param.categoryType.optional(),
    stage: param.stage.optional(),
    ...measuring,
    ...changing,
    ordering: param.ordering(['id', 'category', 'type', 'parent_id', 'expenses', 'resources']).optional(),
  },
  figures: ['expenses', 'resources'],
  headers: sumsHeader,
  variants: [
    {
      name: 'list',
      item: item.BudgetCategory,
      table: flatTable(item.rowOf(item.BudgetCategory)),
      answer: async (params, lease) => {
        const stage = stageOrDefault(params.stage);
        const { categoryNames } = lease.drop.data;
        const kind = (r: Row) => r.type as ShareKind;
        const rows = await measuredSums(
          params,
          lease,
          (year, by_year) => lease.query('budget_categories', { year: year ?? null, type: params.type ?? null, stage, by_year }),
          [
            { name: 'expenses', kind },
            { name: 'resources', kind },
          ],
          'id',
          (r) => ({ id: r.id, category: named(categoryNames, r.id), type: r.type, parent_id: r.parent_id, expenses: r.expenses, resources: r.resources }),
          { lines: stage },
        );
        return ordered(rows, params.ordering, 'id');
      },
    },
  ],
});
