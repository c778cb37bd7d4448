import { flatTable } from '../formats/table.js';
import { param } from '../params.js';
import * as item from '../responses.js';
import { API_PREFIX } from '../routes.js';
import { define, ORDER } from './endpoint.js';

export const totals = define({
  path: `${API_PREFIX}/totals/`,
  summary: 'Total expenses, total resources and balance per year',
  description: `One row per year with expense or resource lines; balance = total_resources - total_expenses. ${ORDER('year')}`,
  paged: false,
  query: { year: param.year.optional(), include_complementary: param.boolean.optional() },
  variants: [
    {
      name: 'list',
      item: item.Total,
      table: flatTable(item.Total),
      answer: ({ year, include_complementary }, lease) =>
        lease.query('totals', { year: year ?? null, include_complementary: include_complementary ?? true }),
    },
  ],
});
