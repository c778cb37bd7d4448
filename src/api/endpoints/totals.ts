import { problem } from '../../domain/errors.js';
import { param } from '../params.js';
import * as item from '../responses.js';
import { API_PREFIX } from '../routes.js';
import type { RowOf } from '../../data/queries.js';
import { rowsOf } from '../filtered-rows.js';
import { stageOfComplementary, stageOrDefault, type Stage } from '../../domain/stages.js';
import { define, ORDER } from './endpoint.js';
import { seriesList } from './stage-lists.js';
import { changing, measureHeader, measuringWithoutShare } from './measured-rows.js';

export const totals = define({
  path: `${API_PREFIX}/totals/`,
  summary: 'Total expenses, total resources and balance per year',
  description:
    'One row per year with expense or resource lines of the stage; balance = total_resources - total_expenses. ' +
    `include_complementary=false is stage=${stageOfComplementary(false)}, true is stage=${stageOfComplementary(true)}. ${ORDER('year')}`,
  paged: false,
  query: {
    year: param.year.optional(),
    include_complementary: param.boolean.optional(),
    stage: param.stages.optional(),
    ...measuringWithoutShare,
    ...changing,
  },
  figures: ['total_expenses', 'total_resources', 'balance'],
  headers: measureHeader,
  variants: [
    seriesList({
      item: item.Total,
      stages: (params) => totalsStages(params.include_complementary, params.stage),
      query: (lease, year, stage: Stage) => rowsOf(lease, 'totals', { year: year ?? null, stage }),
      figures: ['total_expenses', 'total_resources', 'balance'],
      shape: (r: RowOf<'totals'>, stage: Stage) => ({
        year: r.year,
        total_expenses: r.total_expenses,
        total_resources: r.total_resources,
        balance: r.balance,
        stage,
        source_ids: r.source_ids,
        derived: r.derived,
      }),
      options: () => ({ difference: ['balance', 'total_resources', 'total_expenses'] }),
    }),
  ],
});

/**
 * include_complementary predates stages: false counts the initial lines only (stage=initial),
 * true adds the complementary laws' amendments (stage=amended). Given with a stage that says
 * otherwise, the request is ambiguous.
 */
function totalsStages(includeComplementary: boolean | undefined, stages: Stage[] | undefined): Stage[] {
  if (includeComplementary === undefined) return stages ?? [stageOrDefault(undefined)];
  const synonym = stageOfComplementary(includeComplementary);
  if (stages !== undefined && (stages.length !== 1 || stages[0] !== synonym)) {
    const message = `include_complementary=${includeComplementary} means stage=${synonym}, which contradicts stage=${stages.join(',')}`;
    throw problem.invalidParameters([
      { parameter: 'include_complementary', message: `must agree with stage (${message})` },
      { parameter: 'stage', message: `must agree with include_complementary (${message})` },
    ]);
  }
  return [synonym];
}
