/**
 * Debt by origin, outstanding debt and the deficit: the per-year macro series, at one stage per
 * year (the one asked for, or each year's most final one; docs/api.md, "Stages").
 */
import type { Row } from '../data/store.js';
import { flatTable } from '../formats/table.js';
import { roundHalfAway } from '../numbers.js';
import { param } from '../params.js';
import * as item from '../responses.js';
import { API_PREFIX } from '../routes.js';
import { define, ORDER } from './endpoint.js';

/** A series row's stage and where it comes from: null and false when the drop does not say. */
const provenance = (r: Row) => ({ stage: r.stage, source_id: r.source_id, derived: r.derived });

/** Without a stage asked for, SQL picks each year's most final stage (null binds "none asked"). */
const stageOf = (stage: string | undefined) => stage ?? null;

export const debt = define({
  path: `${API_PREFIX}/debt/`,
  summary: 'Debt per year and origin, rolled up over the origin tree',
  description:
    'One row per (year, origin) whose subtree has a value that year, the value rolled up. parent=null keeps ' +
    `top-level origins; parent=<id> keeps the children of that origin. ${ORDER('year, then origin id')}`,
  paged: false,
  query: { year: param.year.optional(), parent: param.parent.optional(), stage: param.seriesStage.optional() },
  variants: [
    {
      name: 'list',
      item: item.Debt,
      table: flatTable(item.Debt),
      answer: async ({ year, parent, stage }, lease) => {
        const rows = await lease.query('debt', { year: year ?? null, top_level: parent === null, parent: parent ?? null, stage: stageOf(stage) });
        return rows.map((r) => ({ year: r.year, debt_origin: { id: r.id, parent: r.parent, name: r.name }, value: r.value, ...provenance(r) }));
      },
    },
  ],
});

export const outstandingDebt = define({
  path: `${API_PREFIX}/outstanding-debt/`,
  summary: 'Outstanding public debt per year, with GDP and the debt as a percentage of GDP',
  description: `value = outstanding_debt / gdp * 100. year=last: the most recent year (with a row at the stage) only. ${ORDER('year')}`,
  paged: false,
  query: { year: param.yearOrLast.optional(), stage: param.seriesStage.optional() },
  variants: [
    {
      name: 'list',
      item: item.OutstandingDebt,
      table: flatTable(item.OutstandingDebt),
      answer: async ({ year, stage }, lease) => {
        const rows = await lease.query('outstanding_debt', {
          year: typeof year === 'number' ? year : null,
          last: year === 'last',
          stage: stageOf(stage),
        });
        return rows.map((r) => ({ ...r, value: roundHalfAway(r.value as number, 2) }));
      },
    },
  ],
});

export const deficit = define({
  path: `${API_PREFIX}/deficit/`,
  summary: 'Budget deficit per year, with GDP and the deficit as a percentage of GDP',
  description: `percent = value / gdp * 100. ${ORDER('year')}`,
  paged: false,
  query: { stage: param.seriesStage.optional() },
  variants: [
    {
      name: 'list',
      item: item.Deficit,
      table: flatTable(item.Deficit),
      answer: async ({ stage }, lease) => {
        const rows = await lease.query('deficit', { stage: stageOf(stage) });
        return rows.map((r) => ({ ...r, percent: roundHalfAway(r.percent as number, 2) }));
      },
    },
  ],
});
