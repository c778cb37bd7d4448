/** The documents the drop's figures come from (docs/api.md, "Sources"). */
import { rowsOf } from '../filtered-rows.js';
import { flatTable } from '../../formats/table.js';
import * as item from '../responses.js';
import { API_PREFIX } from '../routes.js';
import { define, ORDER } from './endpoint.js';

export const sources = define({
  path: `${API_PREFIX}/sources/`,
  summary: 'The documents the figures come from, by the id that rows give as source_id',
  description: `Every source of the drop; an empty list when the drop has none. ${ORDER('id')}`,
  paged: false,
  query: {},
  variants: [
    {
      name: 'list',
      item: item.Source,
      table: flatTable(item.Source),
      answer: (_params, lease) => rowsOf(lease, 'sources', {}),
    },
  ],
});
