/** Debt by origin, outstanding debt and the deficit: the per-year macro series. */
import { flatTable } from '../formats/table.js';
import { roundHalfAway } from '../numbers.js';
import { param } from '../params.js';
import * as item from '../responses.js';
import { API_PREFIX } from '../routes.js';
import { define, ORDER } from './endpoint.js';

export const debt = define({
  path: `${API_PREFIX}/debt/`,
  summary: 'Debt per year and origin, rolled up over the origin tree',
  description:
    'One row per (year, origin) whose subtree has a value that year, the value rolled up. parent=null keeps ' +
    `top-level origins; parent=<id> keeps the children of that origin. ${ORDER('year, then origin id')}`,
  paged: false,
  query: { year: param.year.optional(), parent: param.parent.optional() },
  variants: [
    {
      name: 'list',
      item: item.Debt,
      table: flatTable(item.Debt),
      answer: async ({ year, parent }, lease) => {
        const rows = await lease.query('debt', { year: year ?? null, top_level: parent === null, parent: parent ?? null });
        return rows.map((r) => ({ year: r.year, debt_origin: { id: r.id, parent: r.parent, name: r.name }, value: r.value }));
      },
    },
  ],
});

export const outstandingDebt = define({
  path: `${API_PREFIX}/outstanding-debt/`,
  summary: 'Outstanding public debt per year, with GDP and the debt as a percentage of GDP',
  description: `value = outstanding_debt / gdp * 100. year=last: the most recent year only. ${ORDER('year')}`,
  paged: false,
  query: { year: param.yearOrLast.optional() },
  variants: [
    {
      name: 'list',
      item: item.OutstandingDebt,
      table: flatTable(item.OutstandingDebt),
      answer: async ({ year }, lease) => {
        const rows = await lease.query('outstanding_debt', {
          year: typeof year === 'number' ? year : null,
          last: year === 'last',
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
  query: {},
  variants: [
    {
      name: 'list',
      item: item.Deficit,
      table: flatTable(item.Deficit),
      answer: async (_params, lease) => {
        const rows = await lease.query('deficit');
        return rows.map((r) => ({ ...r, percent: roundHalfAway(r.percent as number, 2) }));
      },
    },
  ],
});
