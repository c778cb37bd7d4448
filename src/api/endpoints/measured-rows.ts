/**
 * What the endpoints that take `measure` and `change` share (docs/api.md, "Measures and
 * changes"): their parameters, the Budget-Measure header, and the measuring of rows that sum
 * a filter's years (budget-categories, organization/stats) or form a series by year (totals,
 * debt, outstanding-debt, deficit). src/api/measures.ts does the arithmetic.
 */
import type { Lease } from '../../data/lease.js';
import {
  invalid,
  measurer,
  rounded,
  shareTotals,
  sumMeasured,
  withChanges,
  withPreviousYears,
  measureSpec,
  type MeasureRequest,
  type Measurer,
  type ShareKind,
  type ShareOf,
} from '../measures.js';
import { param } from '../params.js';
import { STAGES } from '../../domain/stages.js';

export const measuring = {
  measure: param.measure.optional(),
  base_year: param.baseYear.optional(),
};
export const measuringWithoutShare = { ...measuring, measure: param.measureWithoutShare.optional() };
export const changing = { change: param.change.optional() };

/** The Budget-Measure header of a request; building the measurer checks the drop has its series. */
export function measureHeader(params: MeasureRequest, lease: Lease): Record<string, string> {
  return { 'Budget-Measure': measurer(params, lease).header };
}

/** The measurer of a request, with the totals a share divides by when it is one: those of `of`'s stage. */
export async function measurerFor(params: MeasureRequest, lease: Lease, years: readonly number[] | undefined, of?: ShareOf): Promise<Measurer> {
  const shares = measureSpec(params.measure ?? 'nominal').needsTotals && of ? await shareTotals(lease, years, of) : undefined;
  return measurer(params, lease, shares);
}

/** change on rows that sum a filter's years compares one year with the one before: it needs that year alone. */
export function singleYear(params: { year?: number[]; change?: string }): number | undefined {
  if (params.change === undefined) return undefined;
  if (params.year?.length !== 1) throw invalid('change', 'needs a single year (year=2024)');
  return params.year[0];
}

/** The headers of rows that sum a filter's years (measuredSums): the change's year checked first, then Budget-Measure. */
export function sumsHeader(params: MeasureRequest & { year?: number[]; change?: string }, lease: Lease): Record<string, string> {
  singleYear(params);
  return measureHeader(params, lease);
}

/** A figure of a query's row: a number, or null where the row has none. */
const figureOf = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/**
 * A field of rows that sum a filter's years, and the whole a share of it is taken of; no kind
 * where the row cannot have that figure (an expense category's resources), whose 0 is then no
 * figure to measure and stays 0 whatever the measure and the year.
 */
export interface SummedField<Q> {
  name: keyof Q & string;
  kind: (row: Q) => ShareKind | undefined;
}

/** One year's (or all years') figure of a field, measured. */
function measuredField<Q>(m: Measurer, field: SummedField<Q>, row: Q, year: number | 'all'): number | null {
  const figure = figureOf(row[field.name]);
  const kind = field.kind(row);
  return kind === undefined ? figure : m.apply(figure, year, kind);
}

/** Keeps the rows of the years asked for, once the years before them have served for the changes. */
const ofYears = <R extends { year: number }>(rows: R[], years: readonly number[] | undefined) =>
  years ? rows.filter((r) => years.includes(r.year)) : rows;

/**
 * Orders rows by a field, ascending or descending, nulls last; ties by id, ascending. Stages go in
 * the law's order (initial, amended, outturn), not the alphabet's; false before true.
 */
export function ordered<R extends Record<string, unknown>>(rows: R[], ordering: string | undefined, id: string): R[] {
  if (!ordering) return rows;
  const descending = ordering.startsWith('-');
  const field = descending ? ordering.slice(1) : ordering;
  const valueOf = field === 'stage' ? (row: R) => stageRank(row.stage) : (row: R) => row[field];
  const compare = (a: unknown, b: unknown): number => {
    if (typeof a === 'string' && typeof b === 'string') return COLLATOR.compare(a, b);
    // < and > compare numbers and bigints (ids past 2^53) exactly, which a subtraction would not.
    return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  };
  return [...rows].sort((x, y) => {
    const a = valueOf(x);
    const b = valueOf(y);
    if (a !== b) {
      if (a === null || a === undefined) return 1;
      if (b === null || b === undefined) return -1;
      const order = compare(a, b);
      if (order !== 0) return descending ? -order : order;
    }
    return compare(x[id], y[id]);
  });
}

const COLLATOR = new Intl.Collator('en', { sensitivity: 'variant', numeric: false });

/** A stage's place in the law's order; null (a drop without stages) last, as every null. */
const stageRank = (stage: unknown): number | null => (typeof stage === 'string' ? (STAGES as readonly string[]).indexOf(stage) : null);

/**
 * Rows of budget-categories or organization/stats, measured. Rows that sum several years are
 * measured year by year and added up, unless the measure is taken of the sums (`ofSums`: nominal,
 * and share, which is of those years' totals). A change compares the single year asked for with
 * the year before.
 */
export async function measuredSums<Q extends { year: number | null; source_ids: number[]; derived: boolean }, R extends Record<string, unknown>>(
  params: MeasureRequest & { year?: number[]; change?: 'previous_year' },
  lease: Lease,
  query: (years: number[] | undefined, byYear: boolean) => Promise<Q[]>,
  fields: readonly (SummedField<Q> & { name: keyof R })[],
  id: keyof Q & keyof R & string,
  shape: (row: Q) => R,
  of: ShareOf,
): Promise<R[]> {
  const year = singleYear(params);
  const measure = params.measure ?? 'nominal';
  const years = year === undefined ? params.year : withPreviousYears([year]);
  const m = await measurerFor(params, lease, years, of);
  const names = fields.map((f) => f.name);
  if (year !== undefined) {
    const rows = (await query(years, true)).map((r) => {
      const out = shape(r) as Record<string, unknown>;
      for (const f of fields) out[f.name] = measuredField(m, f, r, Number(r.year));
      // shape made this object: the year is set on it, not spread into a copy of it.
      out.year = Number(r.year);
      return out as R & { year: number };
    });
    const changed = withChanges(
      rows,
      names as (keyof (typeof rows)[number] & string)[],
      m,
      (r) => r[id],
      (r) => r.year === year,
    );
    return changed.map(({ year: _year, ...r }) => r as unknown as R);
  }
  if (measureSpec(measure).ofSums) {
    return (await query(params.year, false)).map((r) => {
      const out = shape(r) as Record<string, unknown>;
      for (const f of fields) out[f.name] = measuredField(m, f, r, 'all');
      return rounded(out as R, names as (keyof R & string)[], m);
    });
  }
  const sums = new Map<unknown, { row: Q; parts: Map<string, (number | null | undefined)[]>; sources: Set<number>; derived: boolean }>();
  for (const r of await query(params.year, true)) {
    let entry = sums.get(r[id]);
    if (!entry) sums.set(r[id], (entry = { row: r, parts: new Map(names.map((n) => [n, []])), sources: new Set(), derived: false }));
    // An organization without lines has one row without a year: nothing to add.
    if (r.year === null) continue;
    // A year adding nothing to a figure (an organization's resources in a year of expense lines
    // only) needs no GDP, population or CPI: without it, it is left out of the sum (sumMeasured).
    for (const f of fields) {
      const measured = measuredField(m, f, r, Number(r.year));
      entry.parts.get(f.name)!.push(measured === null && r[f.name] === 0 ? undefined : measured);
    }
    // What the sum over the years sums: every year's sources and derived lines.
    for (const source of r.source_ids ?? []) entry.sources.add(source);
    entry.derived ||= r.derived === true;
  }
  return [...sums.values()].map(({ row, parts, sources, derived }) => {
    const out = shape({ ...row, source_ids: [...sources].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), derived }) as Record<string, unknown>;
    for (const n of names) out[n] = sumMeasured(parts.get(n)!);
    return rounded(out as R, names as (keyof R & string)[], m);
  });
}

/** How a series' rows are told apart within a year, what a share is of, and a figure that is the difference of two others. */
export interface SeriesOptions<R> {
  key?: (row: R) => unknown;
  share?: { kind: ShareKind; of: ShareOf };
  /**
   * [field, minuend, subtrahend]: the field is the difference of the two as shown (totals'
   * balance), under any measure, so that a reader's own subtraction gives it; measured on its
   * own it could differ in its last decimal.
   */
  difference?: readonly [keyof R & string, keyof R & string, keyof R & string];
}

/**
 * Rows of a series (totals, debt, outstanding-debt, deficit) with their figures measured, and
 * with each figure's change against the calendar year before when asked: the query then also
 * reads the years before those asked for.
 */
export async function measuredSeries<Q extends { year: number }, R extends { year: number }>(
  params: MeasureRequest & { year?: number[]; change?: 'previous_year' },
  lease: Lease,
  query: (years: number[] | undefined) => Promise<Q[]>,
  fields: readonly NoInfer<keyof R & string>[],
  shape: (row: Q) => R,
  options: SeriesOptions<NoInfer<R>> = {},
): Promise<R[]> {
  const { key, share, difference } = options;
  const years = params.change && params.year ? withPreviousYears(params.year) : params.year;
  const m = await measurerFor(params, lease, years, share?.of);
  const kind = share?.kind;
  const rows = (await query(years)).map((r) => {
    const row = shape(r) as Record<string, unknown>;
    for (const field of fields) row[field] = m.apply(row[field] as number, Number(r.year), kind);
    if (difference) {
      const [field, minuend, subtrahend] = difference;
      const [a, b] = [m.round(row[minuend] as number | null), m.round(row[subtrahend] as number | null)];
      row[field] = a === null || b === null ? null : a - b;
    }
    return row as R;
  });
  if (!params.change) return rows.map((r) => rounded(r, fields, m));
  return ofYears(withChanges(rows, fields, m, key), params.year);
}
