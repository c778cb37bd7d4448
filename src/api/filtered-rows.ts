/**
 * The rows of a roll-up's statement for a request, filtered from those read at load
 * (src/data/rows-at-load.ts) instead of running it. Each filter is the statement's own WHERE
 * clause on its output columns, so it gives the statement's rows in its order
 * (test/rows-at-load.test.ts holds each against its statement). Where a filter would have to sum
 * rows again (several years summed) or mirror DuckDB's text functions (a search), it gives
 * undefined and the statement runs.
 */
import type { Lease } from '../data/lease.js';
import type { ParamsOf, RowOf } from '../data/queries.js';
import type { RowsAtLoad, Sums } from '../data/rows-at-load.js';

/** The rows a year filter keeps (`$year IS NULL OR list_contains($year, year)`), in their order. */
function inYears<R extends { year: number | null }>(rows: readonly R[], years: readonly number[] | null): R[] {
  return years ? rows.filter((r) => r.year !== null && years.includes(r.year)) : [...rows];
}

/** Ids compare as rows and parameters carry them: numbers, or bigints past 2^53. */
const sameId = (a: unknown, b: unknown) => a == b;

/**
 * Sums over the years: every year's, or one year's (its per-year rows, which sum one row each);
 * several years are summed by the statement.
 */
function sums<R extends { year: number | null }>(rows: Sums<R>, years: readonly number[] | null, byYear: boolean): R[] | undefined {
  if (byYear) {
    if (!years) return [...rows.perYear];
    // The years' rows, back in the statement's order.
    const positions = [...new Set(years)].flatMap((year) => rows.atYear.get(year) ?? []).sort((a, b) => a - b);
    return positions.map((at) => rows.perYear[at]!);
  }
  if (!years) return [...rows.allYears];
  if (years.length === 1) return [...(rows.oneYear.get(years[0]!) ?? [])];
  return undefined;
}

const FILTERS: { [N in keyof RowsAtLoad]: (rows: RowsAtLoad, params: ParamsOf<N>) => RowOf<N>[] | undefined } = {
  totals: (rows, { year, stage }) => inYears(rows.totals.get(stage)!, year),
  share_totals: (rows, { year, stage }) => inYears(rows.share_totals.get(stage)!, year),
  budget_categories: (rows, { year, type, stage, by_year }) =>
    sums(rows.budget_categories.get(stage)!, year, by_year)?.filter((r) => type === null || r.type === type),
  organization_stats: (rows, { year, organization_id, stage, by_year }) =>
    sums(rows.organization_stats.get(stage)!, year, by_year)?.filter((r) => organization_id === null || sameId(r.organization_id, organization_id)),
  organizations: (rows, { year, search, stage, limit, offset }) => {
    if (search !== null) return undefined;
    const matching = rows.organizations.get(stage)!.flatMap(({ entries, ...organization }) => {
      if (!year) return [organization];
      const kept = entries.filter((entry) => year.includes(entry.year));
      return kept.length ? [{ ...organization, budget: JSON.stringify(kept) }] : [];
    });
    const page = matching.slice(offset, offset + limit);
    // A page past the end is one row of nulls that carries the count, as the statement gives it.
    if (!page.length) return [{ count: matching.length, id: null, name: null, code: null, budget: null }];
    return page.map((organization) => ({ count: matching.length, ...organization }));
  },
  debt: (rows, { year, top_level, parent, stage }) =>
    inYears(rows.debt.get(stage)!, year).filter((r) => (!top_level || r.parent === null) && (parent === null || sameId(r.parent, parent))),
  outstanding_debt: (rows, { year, last, stage }) => {
    const { all, last: latest } = rows.outstanding_debt.get(stage)!;
    return inYears(last ? latest : all, year);
  },
  deficit: (rows, { year, stage }) => inYears(rows.deficit.get(stage)!, year),
  sources: (rows) => [...rows.sources],
};

export type AtLoadName = keyof RowsAtLoad;

/** The rows of sql/<name>.sql for `params`: filtered from those read at load, or, where they cannot answer, the statement's. */
export async function rowsOf<N extends AtLoadName>(lease: Lease, name: N, params: ParamsOf<N>): Promise<RowOf<N>[]> {
  const filter = FILTERS[name] as (rows: RowsAtLoad, params: ParamsOf<N>) => RowOf<N>[] | undefined;
  const query = lease.query as (name: N, params: ParamsOf<N>) => Promise<RowOf<N>[]>;
  return filter(lease.drop.data.rowsAtLoad, params) ?? (await query.call(lease, name, params));
}
