/**
 * Roll-up rows (totals, budget-categories, organization/stats) carry what they sum: `stage`,
 * `source_ids` and `derived` (docs/api.md#what-every-figure-means, tested in test/meanings.test.ts).
 * Tests of other behaviour compare the figures alone: this takes those three fields out of a
 * roll-up's JSON answer and leaves any other answer as it is.
 */
const ROLLUPS = /\/budget\/api\/(totals|budget-categories|organization\/stats)\/?(\?|$)/;

export function figuresOnly<T>(url: string, body: T): T {
  if (!ROLLUPS.test(url) || !Array.isArray(body)) return body;
  return body.map((row) => {
    if (row === null || typeof row !== 'object') return row;
    const { stage: _stage, source_ids: _sources, derived: _derived, ...figures } = row as Record<string, unknown>;
    return figures;
  }) as T;
}
