/**
 * The roll-ups small enough to keep whole in JS (totals, categories, organizations and their
 * stats, debt, outstanding debt, deficit, and the sources), read once at load with every year,
 * organization and origin in them; a request filters those rows instead of running its statement
 * (src/api/filtered-rows.ts).
 *
 * Why: DuckDB 1.5 plans a prepared statement with parameters again at every run, and planning
 * and setting up these statements' operators took 2-9 ms at 1M lines, most of an answer
 * (scripts/bench/query-time.ts); filtering a few thousand rows takes a fraction of a millisecond.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { STAGES, type Stage } from '../domain/stages.js';
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
 * `atYear`: where each year's rows lie in `perYear`, so that a filter of a few years reads only
 * theirs (a change reads two years of 300 organizations' 3,900 rows at 1M lines).
 */
export interface Sums<R extends { year: number | null }> {
  perYear: readonly R[];
  allYears: readonly R[];
  oneYear: ReadonlyMap<number, readonly R[]>;
  atYear: ReadonlyMap<number, readonly number[]>;
}

export interface OrganizationBudget {
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
/** The sums of `Sums`, each single year's made from the per-year rows. */
function sumsOf<R extends { year: number | null }>(perYear: readonly R[], allYears: readonly R[]): Sums<R> {
  const oneYear = new Map<number, R[]>();
  const atYear = new Map<number, number[]>();
  perYear.forEach((row, at) => {
    if (row.year === null) return;
    let rows = oneYear.get(row.year);
    if (!rows) oneYear.set(row.year, (rows = []));
    rows.push(deepFrozen({ ...row, year: null }));
    let positions = atYear.get(row.year);
    if (!positions) atYear.set(row.year, (positions = []));
    positions.push(at);
  });
  return { perYear, allYears, oneYear, atYear };
}

/** Frozen all the way down: answers share these rows, and a request that changed one would change the next one's. */
function deepFrozen<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFrozen(inner);
    Object.freeze(value);
  }
  return value;
}
