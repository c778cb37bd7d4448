import { flatTable } from '../../formats/table.js';
import { problem } from '../../domain/errors.js';
import { param } from '../params.js';
import * as item from '../responses.js';
import { API_PREFIX } from '../routes.js';
import type { z } from 'zod';
import type { Row } from '../../data/store.js';
import { stageOrDefault, type Stage } from '../../domain/stages.js';
import { define, ORDER } from './endpoint.js';
import { changing, measureHeader, measuredSeries, measuringWithoutShare } from './measured-rows.js';

export const totals = define({
  path: `${API_PREFIX}/totals/`,
  summary: 'Total expenses, total resources and balance per year',
  description:
    'One row per year with expense or resource lines of the stage; balance = total_resources - total_expenses. ' +
    `include_complementary=false is stage=initial, true is stage=amended. ${ORDER('year')}`,
  paged: false,
  query: {
    year: param.year.optional(),
    include_complementary: param.boolean.optional(),
    stage: param.stage.optional(),
    ...measuringWithoutShare,
    ...changing,
  },
  figures: ['total_expenses', 'total_resources', 'balance'],
  headers: measureHeader,
  variants: [
    {
      name: 'list',
      item: item.Total,
      table: flatTable(item.rowOf(item.Total)),
      answer: (params, lease) => {
        const stage = totalsStage(params.include_complementary, params.stage);
        return measuredSeries(
          params,
          lease,
          (year) => lease.query('totals', { year: year ?? null, stage }),
          ['total_expenses', 'total_resources', 'balance'],
          (r: Row) =>
            ({ year: Number(r.year), total_expenses: r.total_expenses, total_resources: r.total_resources, balance: r.balance }) as z.infer<
              typeof item.Total
            >,
        );
      },
    },
  ],
});

/**
 * include_complementary predates stages: false counts the initial lines only (stage=initial),
 * true adds the complementary laws' amendments (stage=amended). Given with a stage that says
 * otherwise, the request is ambiguous.
 */
function totalsStage(includeComplementary: boolean | undefined, stage: Stage | undefined): Stage {
  if (includeComplementary === undefined) return stageOrDefault(stage);
  const synonym = includeComplementary ? 'amended' : 'initial';
  if (stage !== undefined && stage !== synonym) {
    const message = `include_complementary=${includeComplementary} means stage=${synonym}, which contradicts stage=${stage}`;
    throw problem.invalidParameters([
      { parameter: 'include_complementary', message: `must agree with stage (${message})` },
      { parameter: 'stage', message: `must agree with include_complementary (${message})` },
    ]);
  }
  return synonym;
}
