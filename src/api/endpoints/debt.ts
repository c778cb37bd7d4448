/**
 * Debt by origin, outstanding debt and the deficit: the per-year macro series, at one stage per
 * year (the one asked for, or each year's most final one; docs/api.md, "Stages").
 */
import type { RowOf } from '../../data/queries.js';
import { rowsOf } from '../filtered-rows.js';
import { flatTable } from '../../formats/table.js';
import { roundHalfAway } from '../../domain/numbers.js';
import { param } from '../params.js';
import * as item from '../responses.js';
import { API_PREFIX } from '../routes.js';
import type { Stage } from '../../domain/stages.js';
import { byYear, perStage, seriesList, seriesStagesOf } from './stage-lists.js';
import { define, ORDER, provenance } from './endpoint.js';
import { changing, measuredSeries, measureHeader, measuring, measuringWithoutShare } from './measured-rows.js';

/** A percentage as shown: 2 decimals, half away from zero. */
const percent = (value: number | null) => (value === null ? null : roundHalfAway(value, 2));

export const debt = define({
  path: `${API_PREFIX}/debt/`,
  summary: 'Debt per year and origin, rolled up over the origin tree',
  description:
    'One row per (year, origin) whose subtree has a value that year, the value rolled up. parent=null keeps ' +
    `top-level origins; parent=<id> keeps the children of that origin. ${ORDER('year, then origin id')}`,
  paged: false,
  query: { year: param.year.optional(), parent: param.parent.optional(), stage: param.seriesStages.optional(), ...measuring, ...changing },
  figures: ['value'],
  headers: measureHeader,
  variants: [
    seriesList({
      item: item.Debt,
      stages: (params) => seriesStagesOf(params.stage),
      query: (lease, year, stage, params) =>
        rowsOf(lease, 'debt', { year: year ?? null, top_level: params.parent === null, parent: params.parent ?? null, stage }),
      figures: ['value'],
      shape: (r: RowOf<'debt'>) => ({ year: r.year, debt_origin: { id: r.id, parent: r.parent, name: r.name }, value: r.value, ...provenance(r) }),
      options: (stage) => ({ key: (r) => r.debt_origin.id, share: { kind: 'debt', of: { debt: stage } } }),
    }),
  ],
});

export const outstandingDebt = define({
  path: `${API_PREFIX}/outstanding-debt/`,
  summary: 'Outstanding public debt per year, with GDP and the debt as a percentage of GDP',
  description: `value = outstanding_debt / gdp * 100. year=last: the most recent year (with a row at the stage) only. ${ORDER('year')}`,
  paged: false,
  query: { year: param.yearOrLast.optional(), stage: param.seriesStages.optional(), ...changing },
  figures: ['outstanding_debt'],
  variants: [
    {
      name: 'list',
      item: item.OutstandingDebt,
      table: flatTable(item.rowOf(item.OutstandingDebt)),
      answer: async ({ year, stage: stages, change }, lease) => {
        const last = year === 'last';
        const years = Array.isArray(year) ? year : undefined;
        const shape = (r: RowOf<'outstanding_debt'>) => ({ ...r, value: percent(r.value) });
        const answer = async (stage: Stage | null) => {
          if (!change) return (await rowsOf(lease, 'outstanding_debt', { year: years ?? null, last, stage })).map(shape);
          // The year before each year asked for (the last one's too) is read for its change.
          const rows = await measuredSeries(
            { year: years, change },
            lease,
            (withPrevious: number[] | undefined) => rowsOf(lease, 'outstanding_debt', { year: withPrevious ?? null, last: false, stage }),
            ['outstanding_debt'],
            shape,
          );
          return last ? rows.slice(-1) : rows;
        };
        return perStage(seriesStagesOf(stages), answer, byYear);
      },
    },
  ],
});

export const deficit = define({
  path: `${API_PREFIX}/deficit/`,
  summary: 'Budget deficit per year, with GDP and the deficit as a percentage of GDP',
  description: `percent = value / gdp * 100. ${ORDER('year')}`,
  paged: false,
  query: { year: param.year.optional(), stage: param.seriesStages.optional(), ...measuringWithoutShare, ...changing },
  figures: ['value'],
  headers: measureHeader,
  variants: [
    seriesList({
      item: item.Deficit,
      stages: (params) => seriesStagesOf(params.stage),
      query: (lease, year, stage) => rowsOf(lease, 'deficit', { year: year ?? null, stage }),
      figures: ['value'],
      shape: (r: RowOf<'deficit'>) => ({ ...r, percent: percent(r.percent) }),
    }),
  ],
});
