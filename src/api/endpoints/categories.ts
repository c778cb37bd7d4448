import { flatTable } from '../../formats/table.js';
import { param } from '../params.js';
import * as item from '../responses.js';
import { API_PREFIX } from '../routes.js';
import { rowsOf } from '../filtered-rows.js';
import type { RowOf } from '../../data/queries.js';
import type { ShareKind } from '../measures.js';
import { stageOrDefault, type Stage } from '../../domain/stages.js';
import { perStage } from './stage-lists.js';
import { named } from '../../domain/names.js';
import { define, ORDER } from './endpoint.js';
import { changing, measuredSums, measuring, ordered, sumsHeader } from './measured-rows.js';

export const budgetCategories = define({
  path: `${API_PREFIX}/budget-categories/`,
  summary: 'Categories with their expenses or resources rolled up over their subtree',
  description: `One row per category whose subtree has lines for the filter, with the sums of those lines. ${ORDER('id')}`,
  paged: false,
  query: {
    year: param.year.optional(),
    type: param.categoryType.optional(),
    stage: param.stages.optional(),
    ...measuring,
    ...changing,
    ordering: param.ordering(['id', 'category', 'type', 'parent_id', 'stage', 'derived', 'expenses', 'resources']).optional(),
  },
  figures: ['expenses', 'resources'],
  headers: sumsHeader,
  variants: [
    {
      name: 'list',
      item: item.BudgetCategory,
      table: flatTable(item.rowOf(item.BudgetCategory)),
      answer: async (params, lease) => {
        const stages = params.stage ?? [stageOrDefault(undefined)];
        const answer = async (stage: Stage) => {
          const { categoryNames } = lease.drop.data;
          // A category has the figures of its own kind only: the other is 0, never measured.
          const ofKind = (kind: ShareKind) => (r: RowOf<'budget_categories'>) => (r.type === kind ? kind : undefined);
          return measuredSums(
            params,
            lease,
            (year: number[] | undefined, by_year: boolean) =>
              rowsOf(lease, 'budget_categories', { year: year ?? null, type: params.type ?? null, stage, by_year }),
            [
              { name: 'expenses', kind: ofKind('expense') },
              { name: 'resources', kind: ofKind('resource') },
            ],
            'id',
            (r) => ({
              id: r.id,
              category: named(categoryNames, r.id),
              type: r.type,
              parent_id: r.parent_id,
              expenses: r.expenses,
              resources: r.resources,
              stage,
              source_ids: r.source_ids,
              derived: r.derived,
            }),
            { lines: stage },
          );
        };
        // Several stages: every category's rows together, in stage order (ordered() is stable).
        const rows = await perStage(stages, answer, () => 0);
        return ordered(rows, params.ordering ?? (stages.length > 1 ? 'id' : undefined), 'id');
      },
    },
  ],
});
