/**
 * The small roll-ups answered from rows read at load (src/data/rows-at-load.ts, filtered by
 * src/api/filtered-rows.ts) give exactly the rows their statement gives, in its order, for every
 * filter: each is run both ways on the same real drop and compared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf, type AtLoadName } from '../src/api/filtered-rows.js';
import type { ParamsOf } from '../src/data/queries.js';
import { STAGES } from '../src/domain/stages.js';
import { small } from './fixtures/small.js';
import { staged } from './fixtures/staged.js';
import { appFor, type TestApp } from './helpers/app.js';

/** small, with an organization without lines, and sources. */
const withIdleOrganization = {
  ...small,
  sources: staged.sources,
  organizations: [...(small.organizations as Record<string, unknown>[]), { id: 9, name: 'Office sans lignes', code: 'OSL' }],
};

const YEARS = [null, [2024], [2022, 2024], [2023], [1990], []] as const;
const SERIES_STAGES = [...STAGES, null] as const;

/** Every combination of the parameters' values. */
function combinations<P extends Record<string, unknown>>(values: { [K in keyof P]: readonly P[K][] }): P[] {
  return Object.entries(values).reduce<Record<string, unknown>[]>(
    (partial, [name, options]) => partial.flatMap((p) => (options as unknown[]).map((value) => ({ ...p, [name]: value }))),
    [{}],
  ) as P[];
}

const CASES: { [N in AtLoadName]: ParamsOf<N>[] } = {
  totals: combinations({ year: YEARS, stage: STAGES }),
  share_totals: combinations({ year: YEARS, stage: STAGES }),
  budget_categories: combinations({ year: YEARS, type: [null, 'expense', 'resource'], stage: STAGES, by_year: [true, false] }),
  organization_stats: combinations({ year: YEARS, organization_id: [null, 1, 2, 9], stage: STAGES, by_year: [true, false] }),
  organizations: combinations({ year: YEARS, search: [null, 'santé'], stage: STAGES, limit: [1, 100], offset: [0, 1, 5] }),
  debt: combinations({ year: YEARS, top_level: [false, true], parent: [null, 2, 3], stage: SERIES_STAGES }),
  outstanding_debt: combinations({ year: YEARS, last: [false, true], stage: SERIES_STAGES }),
  deficit: combinations({ year: YEARS, stage: SERIES_STAGES }),
  sources: [{}, {}, {}],
};

/** An organization's budget as the list reads it: JSON, where DuckDB writes 100.0 and JS 100. */
const readable = (rows: readonly object[]) =>
  rows.map((r) => ('budget' in r && typeof r.budget === 'string' ? { ...r, budget: JSON.parse(r.budget) as unknown } : r));

describe.each([
  ['a drop without stages', withIdleOrganization],
  ['a drop in three stages', staged],
])('Rows read at load, on %s', (_, data) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await appFor(data);
  });
  afterAll(() => t.close());

  it.each(Object.keys(CASES) as AtLoadName[])('answer every filter of %s as its statement does', async (name) => {
    const lease = t.store.lease()!;
    try {
      let nonEmpty = 0;
      for (const params of CASES[name]) {
        const statement = readable(await lease.query(name as never, params as never));
        expect(readable(await rowsOf(lease, name, params as never)), JSON.stringify(params)).toEqual(statement);
        if (statement.length && (statement[0] as { id?: unknown }).id !== null) nonEmpty++;
      }
      // The comparisons are of rows, not only of empty answers.
      expect(nonEmpty).toBeGreaterThanOrEqual(3);
    } finally {
      lease.release();
    }
  });
});
