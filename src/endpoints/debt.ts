/** Debt by origin, outstanding debt and the deficit: the per-year macro series. */
import { z } from 'zod';
import { float64, int32, int64, table, utf8 } from '../formats/table.js';
import { roundHalfAway } from '../numbers.js';
import { param } from '../params.js';
import * as item from '../responses.js';
import { define, ORDER } from './endpoint.js';

export const debt = define({
  path: '/budget/api/debt/',
  summary: 'Debt per year and origin, rolled up over the origin tree',
  description:
    'One row per (year, origin) whose subtree has a value that year, the value rolled up. parent=null keeps ' +
    `top-level origins; parent=<id> keeps the children of that origin. ${ORDER('year, then origin id')}`,
  paged: false,
  query: z.object({ year: param.year.optional(), parent: param.parent.optional() }),
  item: item.Debt,
  table: table<z.infer<typeof item.Debt>>(
    [
      int32('year'),
      int64('debt_origin_id'),
      int64('debt_origin_parent', { nullable: true }),
      utf8('debt_origin_name'),
      float64('value'),
    ],
    ({ year, debt_origin, value }) => [
      { year, debt_origin_id: debt_origin.id, debt_origin_parent: debt_origin.parent, debt_origin_name: debt_origin.name, value },
    ],
  ),
  answer: async ({ year, parent }, lease) => {
    const rows = await lease.query('debt', { year: year ?? null, top_level: parent === null, parent: parent ?? null });
    return rows.map((r) => ({ year: r.year, debt_origin: { id: r.id, parent: r.parent, name: r.name }, value: r.value }));
  },
});

export const outstandingDebt = define({
  path: '/budget/api/outstanding-debt/',
  summary: 'Outstanding public debt per year, with GDP and the debt as a percentage of GDP',
  description: `value = outstanding_debt / gdp * 100. year=last: the most recent year only. ${ORDER('year')}`,
  paged: false,
  query: z.object({ year: param.yearOrLast.optional() }),
  item: item.OutstandingDebt,
  table: table<z.infer<typeof item.OutstandingDebt>>(
    [int32('year'), float64('outstanding_debt'), float64('gdp'), float64('value')],
    (d) => [d],
  ),
  answer: async ({ year }, lease) => {
    const rows = await lease.query('outstanding_debt', {
      year: typeof year === 'number' ? year : null,
      last: year === 'last',
    });
    return rows.map((r) => ({ ...r, value: roundHalfAway(r.value as number, 2) }));
  },
});

export const deficit = define({
  path: '/budget/api/deficit/',
  summary: 'Budget deficit per year, with GDP and the deficit as a percentage of GDP',
  description: `percent = value / gdp * 100. ${ORDER('year')}`,
  paged: false,
  query: z.object({}),
  item: item.Deficit,
  table: table<z.infer<typeof item.Deficit>>([int32('year'), float64('value'), float64('percent'), float64('gdp')], (d) => [d]),
  answer: async (_params, lease) => {
    const rows = await lease.query('deficit');
    return rows.map((r) => ({ ...r, percent: roundHalfAway(r.percent as number, 2) }));
  },
});
