/**
 * The roll-ups small enough to keep whole in JS (totals, categories, organizations and their
 * stats, debt, outstanding debt, deficit, and the sources), read once at load with every year,
 * organization and origin in them; a request filters those rows instead of running its statement.
 *
 * Why: DuckDB 1.5 plans a prepared statement with parameters again at every run, and planning
 * and setting up these statements' operators took 2-9 ms at 1M lines, most of an answer
 * (scripts/bench/query-time.ts); filtering a few thousand rows takes a fraction of a millisecond.
 * Each filter below is the statement's own WHERE clause on its output columns, so it gives the
 * statement's rows in its order (test/rows-at-load.test.ts holds each against its statement).
 * Where a filter would have to sum rows again (several years summed) or mirror DuckDB's text
 * functions (a search), its filter gives undefined and `rowsOf` runs the statement.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { STAGES, type Stage } from '../domain/stages.js';
import type { Lease } from './lease.js';
import { plainRow } from './problems.js';
import type { Id, ParamsOf, QueryName, RowOf } from './queries.js';
import { readSql } from './sql.js';

type Rows<N extends QueryName> = readonly RowOf<N>[];
/** A series' stages: each asked for, and null for each year's most final one. */
type SeriesStage = Stage | null;
const SERIES_KEYS: readonly SeriesStage[] = [...STAGES, null];

/** Rows per stage, every year; for sums over years (`by_year` false) over every year too. */
export interface RowsAtLoad {
  totals: ReadonlyMap<Stage, Rows<'totals'>>;
  share_totals: ReadonlyMap<Stage, Rows<'share_totals'>>;
  budget_categories: ReadonlyMap<Stage, Sums<RowOf<'budget_categories'>>>;
  organization_stats: ReadonlyMap<Stage, Sums<RowOf<'organization_stats'>>>;
  /** Every organization with its whole budget, parsed: a year filter keeps that year's entries. */
  organizations: ReadonlyMap<Stage, readonly OrganizationBudget[]>;
  debt: ReadonlyMap<SeriesStage, Rows<'debt'>>;
  /** `last`: the statement's own answer to year=last (the latest year of the series, GDP or not). */
  outstanding_debt: ReadonlyMap<SeriesStage, { all: Rows<'outstanding_debt'>; last: Rows<'outstanding_debt'> }>;
  deficit: ReadonlyMap<SeriesStage, Rows<'deficit'>>;
  sources: Rows<'sources'>;
}

/**
 * Rows summed per year (`by_year`), over every year, and over each single year: the last are the
 * per-year rows of that year without it, kept apart since a single year is what most requests ask.
 */
interface Sums<R extends { year: number | null }> {
  perYear: readonly R[];
  allYears: readonly R[];
  oneYear: ReadonlyMap<number, readonly R[]>;
}

interface OrganizationBudget {
  id: Id;
  name: string;
  code: string;
  budget: string;
  entries: readonly { year: number }[];
}

/** Reads every statement's rows once, on the drop's connection, after the derived tables are built. */
export async function readRowsAtLoad(connection: DuckDBConnection): Promise<RowsAtLoad> {
  const read = async <N extends QueryName>(name: N, params: ParamsOf<N>): Promise<Rows<N>> => {
    const reader = await connection.runAndReadAll(await readSql(name), params as Record<string, never>);
    return deepFrozen(reader.getRowObjects().map(plainRow)) as unknown as Rows<N>;
  };
  const perStage = async <K extends SeriesStage, T>(keys: readonly K[], rows: (stage: K) => Promise<T>) => {
    const map = new Map<K, T>();
    for (const key of keys) map.set(key, await rows(key));
    return map;
  };
  const everyOrganization = 2 ** 31 - 1;
  return {
    totals: await perStage(STAGES, (stage) => read('totals', { year: null, stage })),
    share_totals: await perStage(STAGES, (stage) => read('share_totals', { year: null, stage })),
    budget_categories: await perStage(STAGES, async (stage) =>
      sumsOf(
        await read('budget_categories', { year: null, type: null, stage, by_year: true }),
        await read('budget_categories', { year: null, type: null, stage, by_year: false }),
      ),
    ),
    organization_stats: await perStage(STAGES, async (stage) =>
      sumsOf(
        await read('organization_stats', { year: null, organization_id: null, stage, by_year: true }),
        await read('organization_stats', { year: null, organization_id: null, stage, by_year: false }),
      ),
    ),
    organizations: await perStage(STAGES, async (stage) =>
      Object.freeze(
        (await read('organizations', { year: null, search: null, stage, limit: everyOrganization, offset: 0 }))
          .filter((r) => r.id !== null)
          .map((r) => Object.freeze({ id: r.id!, name: r.name!, code: r.code!, budget: r.budget!, entries: deepFrozen(JSON.parse(r.budget!)) })),
      ),
    ),
    debt: await perStage(SERIES_KEYS, (stage) => read('debt', { year: null, top_level: false, parent: null, stage })),
    outstanding_debt: await perStage(SERIES_KEYS, async (stage) => ({
      all: await read('outstanding_debt', { year: null, last: false, stage }),
      last: await read('outstanding_debt', { year: null, last: true, stage }),
    })),
    deficit: await perStage(SERIES_KEYS, (stage) => read('deficit', { year: null, stage })),
    sources: await read('sources', {}),
  };
}

/** The rows a year filter keeps (`$year IS NULL OR list_contains($year, year)`), in their order. */
function inYears<R extends { year: number | null }>(rows: readonly R[], years: readonly number[] | null): R[] {
  return years ? rows.filter((r) => r.year !== null && years.includes(r.year)) : [...rows];
}

/** Ids compare as rows and parameters carry them: numbers, or bigints past 2^53. */
const sameId = (a: unknown, b: unknown) => a == b;

function sumsOf<R extends { year: number | null }>(perYear: readonly R[], allYears: readonly R[]): Sums<R> {
  const oneYear = new Map<number, R[]>();
  for (const row of perYear) {
    if (row.year === null) continue;
    let rows = oneYear.get(row.year);
    if (!rows) oneYear.set(row.year, (rows = []));
    rows.push(deepFrozen({ ...row, year: null }));
  }
  return { perYear, allYears, oneYear };
}

/**
 * Sums over the years: every year's, or one year's (its per-year rows, which sum one row each);
 * several years are summed by the statement.
 */
function sums<R extends { year: number | null }>(rows: Sums<R>, years: readonly number[] | null, byYear: boolean): R[] | undefined {
  if (byYear) return inYears(rows.perYear, years);
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

/** Frozen all the way down: answers share these rows, and a request that changed one would change the next one's. */
function deepFrozen<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFrozen(inner);
    Object.freeze(value);
  }
  return value;
}
