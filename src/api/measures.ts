/**
 * Measures and year-on-year changes (docs/api.md, "Measures and changes"): the figures of a row
 * divided by the year's GDP, by its population, deflated by its CPI, or taken as a share of the
 * year's total, and each figure's change against the calendar year before.
 *
 * The endpoints' queries give their figures rounded to 3 decimals, exact for figures recorded to
 * the thousandth; the measure and the change are computed from those, unrounded, and rounded once
 * when a row is shaped: percentages (pct_gdp, share, change_pct) and per-inhabitant amounts to 2
 * decimals, money (nominal, real) to 3, half away from zero. pct_gdp is the same division as the
 * outstanding-debt ratio (figure × 100 ÷ GDP, as a double, then rounded), so the two agree.
 */
import type { LoadedDrop } from '../data/drop.js';
import type { Lease, Row } from '../data/store.js';
import { problem } from '../domain/errors.js';
import { roundHalfAway } from '../domain/numbers.js';
import type { Measure } from './params.js';

type SeriesName = 'gdp' | 'population' | 'cpi';
const SERIES_FILES: Record<SeriesName, string> = { gdp: 'gdp.parquet', population: 'population.parquet', cpi: 'cpi.parquet' };

/** Each drop's series by year, each read once, when a measure first needs it. */
const seriesByDrop = new WeakMap<LoadedDrop, Map<SeriesName, Promise<ReadonlyMap<number, number> | null>>>();

/** A drop's GDP, population or CPI by year; null when the drop has no such file. */
function seriesOf(lease: Lease, name: SeriesName): Promise<ReadonlyMap<number, number> | null> {
  const drop = lease.drop.data;
  let loaded = seriesByDrop.get(drop);
  if (!loaded) seriesByDrop.set(drop, (loaded = new Map()));
  let series = loaded.get(name);
  if (!series) {
    series = loadSeries(lease, name);
    series.catch(() => loaded.delete(name));
    loaded.set(name, series);
  }
  return series;
}

async function loadSeries(lease: Lease, name: SeriesName): Promise<ReadonlyMap<number, number> | null> {
  if (!(SERIES_FILES[name] in lease.drop.data.manifest.files)) return null;
  const rows = await lease.query(`measure_${name}`);
  return new Map(rows.map((r) => [Number(r.year), Number(r.value)]));
}

/** Turns one year's figure into the measure asked for, unrounded; null when the year lacks the value. */
export interface Measurer {
  measure: Measure;
  /** `real; base_year=2025; unit="MDT, 2025 prices"`, for the Budget-Measure header. */
  header: string;
  /**
   * `kind` names the whole a share is taken of (expense, resource, debt); `year` is 'all' for a
   * figure summed over the years of the request, whose share is of those years' totals.
   */
  apply(figure: number | null, year: number | 'all', kind?: ShareKind): number | null;
  /** Rounds a measured figure (or a change of one) as its measure is shown. */
  round(value: number | null): number | null;
}

export type ShareKind = 'expense' | 'resource' | 'debt';

export interface MeasureRequest {
  measure?: Measure;
  base_year?: number;
}

/**
 * The measurer of a request, after checking that the drop has what it needs: a 400 names the
 * missing series, or a base_year without a CPI. `shares` are the totals a share divides by
 * (shareTotals), needed to apply measure=share but not for its header.
 */
const money = (value: number | null) => (value === null ? null : roundHalfAway(value, 3));
const percent = (value: number | null) => (value === null ? null : roundHalfAway(value, 2));

export async function measurer(
  { measure = 'nominal', base_year }: MeasureRequest,
  lease: Lease,
  shares?: ReadonlyMap<string, number>,
): Promise<Measurer> {
  const units = lease.drop.data.manifest.units;
  const unit = quotable(units?.name ?? 'drop units');
  const ratio = (figure: number | null, numerator: number, denominator: number | undefined): number | null =>
    figure === null || denominator === undefined || denominator === 0 ? null : (figure * numerator) / denominator;

  switch (measure) {
    case 'nominal':
      return { measure, header: `nominal; unit="${unit}"`, apply: (figure) => figure, round: money };
    case 'pct_gdp': {
      const gdp = need(await seriesOf(lease, 'gdp'), 'gdp', measure);
      return {
        measure,
        header: 'pct_gdp; unit="% of GDP"',
        apply: (figure, year) => ratio(figure, 100, gdp.get(year as number)),
        round: percent,
      };
    }
    case 'per_capita': {
      const population = need(await seriesOf(lease, 'population'), 'population', measure);
      if (units === undefined) throw missing('units.scale in drop.json', measure);
      const { scale } = units;
      const currency = quotable(units.currency);
      return {
        measure,
        header: `per_capita; unit="${currency} per inhabitant"`,
        apply: (figure, year) => ratio(figure, scale, population.get(year as number)),
        round: percent,
      };
    }
    case 'real': {
      const cpi = need(await seriesOf(lease, 'cpi'), 'cpi', measure);
      const base = base_year ?? Math.max(...cpi.keys());
      const baseIndex = cpi.get(base);
      if (baseIndex === undefined) throw invalid('base_year', `must be a year with a CPI in this drop (${base} has none)`);
      return {
        measure,
        header: `real; base_year=${base}; unit="${unit}, ${base} prices"`,
        apply: (figure, year) => ratio(figure, baseIndex, cpi.get(year as number)),
        round: money,
      };
    }
    case 'share': {
      return {
        measure,
        header: 'share; unit="% of total"',
        apply: (figure, year, kind) => {
          if (!shares) throw new Error('measure=share applied without the totals it divides by');
          return ratio(figure, 100, shares.get(`${kind}:${year}`));
        },
        round: percent,
      };
    }
  }
}

/**
 * A unit named by the drop, made safe inside the header's quoted string: HTTP header values are
 * Latin-1 at most (Node refuses others), so accents are dropped and other characters become ?,
 * and quotes and backslashes are escaped.
 */
function quotable(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '?')
    .replace(/["\\]/g, '\\$&');
}

function need(series: ReadonlyMap<number, number> | null, name: SeriesName, measure: Measure): ReadonlyMap<number, number> {
  if (series === null || series.size === 0) throw missing(`the ${name} series`, measure);
  return series;
}

/** A 400 on one parameter whose value the drop or the other parameters cannot serve. */
export const invalid = problem.invalidParameter;

const missing = (what: string, measure: Measure) =>
  invalid('measure', `${measure} needs ${what}, which this data drop does not have`);

/** The stage of the rows a share is taken of: lines count at a stage, a series takes one per year (null: the most final). */
export type ShareOf = { lines: string } | { debt: string | null };

/**
 * The totals of each kind a share divides by, at the stage of the rows shared, keyed `kind:year`,
 * and `kind:all` over every year of the request: the year's expenses and resources
 * (sql/share_totals.sql), or its debt over the top-level origins (sql/debt.sql).
 */
export async function shareTotals(lease: Lease, years: readonly number[] | undefined, of: ShareOf): Promise<Map<string, number>> {
  const year = years ?? null;
  const rows =
    'lines' in of
      ? await lease.query('share_totals', { year, stage: of.lines })
      : (await lease.query('debt', { year, top_level: true, parent: null, stage: of.debt })).map((r): Row => ({ ...r, kind: 'debt', total: r.value }));
  const totals = new Map<string, number>();
  const add = (key: string, value: number) => totals.set(key, (totals.get(key) ?? 0) + value);
  for (const r of rows) {
    add(`${String(r.kind)}:${Number(r.year)}`, Number(r.total));
    add(`${String(r.kind)}:all`, Number(r.total));
  }
  return totals;
}

/** A row with the named figures rounded as the measure shows them. */
export function rounded<R>(row: R, fields: readonly (keyof R & string)[], measurer: Measurer): R {
  const copy = { ...row } as Record<string, unknown>;
  for (const field of fields) copy[field] = measurer.round(row[field] as number | null);
  return copy as R;
}

/**
 * A row's figures measured year by year and added up, for rows that sum several years
 * (budget-categories and organization/stats over a range): null as soon as one year lacks its value.
 */
export function sumMeasured(parts: readonly (number | null)[]): number | null {
  let sum = 0;
  for (const part of parts) {
    if (part === null) return null;
    sum += part;
  }
  return sum;
}

/**
 * A figure's change against the year before, both unrounded. Both are null when the year before
 * has no figure (a gap is never bridged) or a zero one (no growth rate from nothing).
 */
function changeOf(current: number | null, previous: number | null | undefined): { change: number | null; change_pct: number | null } {
  if (current === null || previous === null || previous === undefined || previous === 0) return { change: null, change_pct: null };
  const change = current - previous;
  return { change, change_pct: (change * 100) / previous };
}

/**
 * Adds `change` and `change_pct` to rows keyed by year (and `key` within a year, e.g. a debt
 * origin), from the rows of the calendar year before, then rounds every figure once. One figure:
 * numbers; several: objects keyed by the figures' names. Rows hold unrounded measured figures.
 */
export function withChanges<R extends { year: number }>(
  rows: readonly R[],
  fields: readonly (keyof R & string)[],
  measurer: Measurer,
  key: (row: R) => unknown = () => '',
): (R & { change: unknown; change_pct: unknown })[] {
  const byYear = new Map(rows.map((row) => [`${row.year}:${String(key(row))}`, row]));
  return rows.map((row) => {
    const previous = byYear.get(`${row.year - 1}:${String(key(row))}`);
    const changes = fields.map((field) => changeOf(row[field] as number | null, previous?.[field] as number | null | undefined));
    const shown = rounded(row, fields, measurer) as Record<string, unknown>;
    if (fields.length === 1) {
      shown.change = measurer.round(changes[0]!.change);
      shown.change_pct = percent(changes[0]!.change_pct);
    } else {
      shown.change = Object.fromEntries(fields.map((f, i) => [f, measurer.round(changes[i]!.change)]));
      shown.change_pct = Object.fromEntries(fields.map((f, i) => [f, percent(changes[i]!.change_pct)]));
    }
    return shown as R & { change: unknown; change_pct: unknown };
  });
}

/** The years whose rows a change needs: each year asked for and the one before it. */
export function withPreviousYears(years: readonly number[]): number[] {
  return [...new Set(years.flatMap((y) => [y - 1, y]))].sort((a, b) => a - b);
}
