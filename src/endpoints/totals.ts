import { z } from 'zod';
import { float64, int32, table } from '../formats/table.js';
import { param } from '../params.js';
import * as item from '../responses.js';
import { define, ORDER } from './endpoint.js';

export const totals = define({
  path: '/budget/api/totals/',
  summary: 'Total expenses, total resources and balance per year',
  description: `One row per year with expense or resource lines; balance = total_resources - total_expenses. ${ORDER('year')}`,
  paged: false,
  query: z.object({ year: param.year.optional(), include_complementary: param.boolean.optional() }),
  item: item.Total,
  table: table<z.infer<typeof item.Total>>(
    [int32('year'), float64('total_expenses'), float64('total_resources'), float64('balance')],
    (t) => [t],
  ),
  answer: ({ year, include_complementary }, lease) =>
    lease.query('totals', { year: year ?? null, include_complementary: include_complementary ?? true }),
});
