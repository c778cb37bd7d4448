/**
 * Measures and year-on-year changes (docs/api.md, "Measures and changes"): the figures of a row
 * divided by the year's GDP, by its population, deflated by its CPI, or taken as a share of the
 * year's total, and each figure's change against the calendar year before.
 *
 * The endpoints' queries give their figures rounded to 3 decimals, exact for figures recorded to
 * the thousandth; the measure is computed from those, unrounded, and rounded once when a row is
 * shaped: percentages (pct_gdp, share, change_pct) and per-inhabitant amounts to 2 decimals, money
 * (nominal, real) to 3, half away from zero. A change is of the figures as shown, so that a
 * reader's own subtraction gives it (and a balance, totals.ts). pct_gdp is the same division as the
 * outstanding-debt ratio (figure × 100 ÷ GDP, as a double, then rounded), so the two agree.
 */
import type { MeasureSeries } from '../data/derived.js';
import type { Lease, Row } from '../data/lease.js';
import { problem } from '../domain/errors.js';
import { rowsOf } from './filtered-rows.js';
import type { Stage } from '../domain/stages.js';
import { roundHalfAway } from '../domain/numbers.js';
import { extended } from '../lib/extended.js';

/** A drop's GDP, population or CPI by year, read at load (data/derived.ts); empty when the drop has none. */
const seriesOf = (lease: Lease, name: MeasureSeries): ReadonlyMap<number, number> => lease.drop.data.measureSeries[name];

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

const money = (value: number | null) => (value === null ? null : roundHalfAway(value, 3));
const percent = (value: number | null) => (value === null ? null : roundHalfAway(value, 2));

/** What a measure is given to build its arithmetic for one request. */
interface MeasureContext {
  lease: Lease;
  base_year: number | undefined;
  /** The totals a share divides by, keyed `kind:year` (shareTotals); absent when only the header is wanted. */
  shares: ReadonlyMap<string, number> | undefined;
}

/** A figure × numerator ÷ denominator; null when either is missing or the denominator is 0. */
const ratio = (figure: number | null, numerator: number, denominator: number | undefined): number | null =>
  figure === null || denominator === undefined || denominator === 0 ? null : (figure * numerator) / denominator;

interface MeasureSpec {
  /** For the `measure` parameter's description. */
  description: string;
  /** How a measured figure and its change are rounded: money to 3 decimals, percent to 2. */
  round: (value: number | null) => number | null;
  /** Measures a part of a whole (a share): only where the rows split one (param.measureOfParts). */
  ofParts?: boolean;
  /** Divides by the totals of the year of the same kind (shareTotals). */
  needsTotals?: boolean;
  /**
   * Where one row sums several years: true when the measure of the sum is the measure taken once
   * of the sum (nominal; share, of those years' totals), false when each year is measured
   * before the years are added (sumMeasured).
   */
  ofSums: boolean;
  /** The header and the arithmetic, after checking the drop has what the measure needs (a 400 otherwise). */
  make(ctx: MeasureContext): Pick<Measurer, 'header' | 'apply'>;
}

/**
 * Every measure (docs/api.md, "Measures and changes"), in the order the parameter lists them:
 * adding one is an entry here and its test.
 */
export const MEASURES = {
  nominal: {
    description: 'nominal (default): amounts as recorded',
    round: money,
    ofSums: true,
    make: ({ lease }) => ({ header: `nominal; unit="${unitOf(lease)}"`, apply: (figure) => figure }),
  },
  pct_gdp: {
    description: "pct_gdp: percent of the year's GDP",
    round: percent,
    ofSums: false,
    make: ({ lease }) => {
      const gdp = need(seriesOf(lease, 'gdp'), 'gdp', 'pct_gdp');
      return { header: 'pct_gdp; unit="% of GDP"', apply: (figure, year) => ratio(figure, 100, gdp.get(year as number)) };
    },
  },
  per_capita: {
    description: 'per_capita: currency units per inhabitant',
    round: percent,
    ofSums: false,
    make: ({ lease }) => {
      const population = need(seriesOf(lease, 'population'), 'population', 'per_capita');
      const units = lease.drop.data.manifest.units;
      if (units === undefined) throw missing('units.scale in drop.json', 'per_capita');
      const { scale } = units;
      return {
        header: `per_capita; unit="${quotable(units.currency)} per inhabitant"`,
        apply: (figure, year) => ratio(figure, scale, population.get(year as number)),
      };
    },
  },
  real: {
    description: 'real: at the prices of base_year (CPI)',
    round: money,
    ofSums: false,
    make: ({ lease, base_year }) => {
      const cpi = need(seriesOf(lease, 'cpi'), 'cpi', 'real');
      const base = base_year ?? Math.max(...cpi.keys());
      const baseIndex = cpi.get(base);
      if (baseIndex === undefined) throw invalid('base_year', `must be a year with a CPI in this drop (${base} has none)`);
      return {
        header: `real; base_year=${base}; unit="${unitOf(lease)}, ${base} prices"`,
        apply: (figure, year) => ratio(figure, baseIndex, cpi.get(year as number)),
      };
    },
  },
  share: {
    description: "share: percent of the year's total of the same kind",
    round: percent,
    ofParts: true,
    needsTotals: true,
    ofSums: true,
    make: ({ shares }) => ({
      header: 'share; unit="% of total"',
      apply: (figure, year, kind) => {
        if (!shares) throw new Error('measure=share applied without the totals it divides by');
        return ratio(figure, 100, shares.get(`${kind}:${year}`));
      },
    }),
  },
} as const satisfies Record<string, MeasureSpec>;

export type Measure = keyof typeof MEASURES;
export const MEASURE_NAMES = Object.keys(MEASURES) as [Measure, ...Measure[]];
/** The spec of a measure, as the rest of the code reads it. */
export const measureSpec = (measure: Measure): MeasureSpec => MEASURES[measure];

/** The drop's unit for money, quoted for a header. */
const unitOf = (lease: Lease) => quotable(lease.drop.data.manifest.units?.name ?? 'drop units');

/**
 * The measurer of a request, after checking that the drop has what it needs: a 400 names the
 * missing series, or a base_year without a CPI. `shares` are the totals a share divides by
 * (shareTotals), needed to apply measure=share but not for its header.
 */
export function measurer({ measure = 'nominal', base_year }: MeasureRequest, lease: Lease, shares?: ReadonlyMap<string, number>): Measurer {
  const spec = measureSpec(measure);
  return { measure, ...spec.make({ lease, base_year, shares }), round: spec.round };
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

function need(series: ReadonlyMap<number, number>, name: MeasureSeries, measure: Measure): ReadonlyMap<number, number> {
  if (series.size === 0) throw missing(`the ${name} series`, measure);
  return series;
}

/** A 400 on one parameter whose value the drop or the other parameters cannot serve. */
export const invalid = problem.invalidParameter;

const missing = (what: string, measure: Measure) => invalid('measure', `${measure} needs ${what}, which this data drop does not have`);

/** The stage of the rows a share is taken of: lines count at a stage, a series takes one per year (null: the most final). */
export type ShareOf = { lines: Stage } | { debt: Stage | null };

/**
 * The totals of each kind a share divides by, at the stage of the rows shared, keyed `kind:year`,
 * and `kind:all` over every year of the request: the year's expenses and resources
 * (sql/share_totals.sql), or its debt over the top-level origins (sql/debt.sql).
 */
export async function shareTotals(lease: Lease, years: readonly number[] | undefined, of: ShareOf): Promise<Map<string, number>> {
  const year = years ?? null;
  const rows =
    'lines' in of
      ? await rowsOf(lease, 'share_totals', { year, stage: of.lines })
      : (await rowsOf(lease, 'debt', { year, top_level: true, parent: null, stage: of.debt })).map((r): Row => ({
          ...r,
          kind: 'debt',
          total: r.value,
        }));
  const totals = new Map<string, number>();
  const add = (key: string, value: number) => totals.set(key, (totals.get(key) ?? 0) + value);
  for (const r of rows) {
    add(`${String(r.kind)}:${Number(r.year)}`, Number(r.total));
    add(`${String(r.kind)}:all`, Number(r.total));
  }
  return totals;
}

/** A row with the named figures rounded as the measure shows them. */
export function rounded<R extends object>(row: R, fields: readonly (keyof R & string)[], measurer: Measurer): R {
  // A copy that withChanges gives more fields to.
  const copy = extended(row) as Record<string, unknown>;
  for (const field of fields) copy[field] = measurer.round(row[field] as number | null);
  return copy as R;
}

/**
 * A row's figures measured year by year and added up, for rows that sum several years
 * (budget-categories and organization/stats over a range): null as soon as one year lacks its value.
 * `undefined`: a year adding nothing to the figure (0) that lacks the value, which the sum does
 * not need; when every year is one, no year had the value, and the figure is null as a single
 * year's would be. No year at all (an organization without lines) sums to 0.
 */
export function sumMeasured(parts: readonly (number | null | undefined)[]): number | null {
  let sum = 0;
  let measured = parts.length === 0;
  for (const part of parts) {
    if (part === null) return null;
    if (part === undefined) continue;
    sum += part;
    measured = true;
  }
  return measured ? sum : null;
}

/**
 * A figure's change against the year before, both unrounded. Both are null when the year before
 * has no figure (a gap is never bridged) or a zero one (no growth rate from nothing).
 */
export function changeOf(current: number | null, previous: number | null | undefined): { change: number | null; change_pct: number | null } {
  if (current === null || previous === null || previous === undefined || previous === 0) return { change: null, change_pct: null };
  const change = withoutNoise(current - previous, Math.max(Math.abs(current), Math.abs(previous)));
  return { change, change_pct: (change * 100) / previous };
}

/**
 * A difference of two doubles near `magnitude`, at the 15 significant digits of that magnitude
 * that both carry. Below them the subtraction leaves only noise, which the rounding to 2 decimals
 * would then read: a measured 1.00125 % of GDP against 1 % is a change of 0.00124999999999997,
 * 0.12 % rather than 0.125 %, which rounds half away from zero to 0.13 %. Only where those digits
 * reach well past the 3 decimals a figure is rounded to (magnitudes up to 10^9): for larger
 * figures they would cut a thousandth the answer keeps (1234567890123.456 − …123.451 is 0.005).
 */
function withoutNoise(difference: number, magnitude: number): number {
  const decimals = 15 - Math.ceil(Math.log10(magnitude));
  return decimals >= NOISE_DECIMALS_AT_LEAST && decimals <= 100 ? Number(difference.toFixed(decimals)) : difference;
}

/** The 3 decimals of money, and 3 more so that the rounding after reads a half as a half. */
const NOISE_DECIMALS_AT_LEAST = 6;

/**
 * Adds `change` and `change_pct` to rows keyed by year (and `key` within a year, e.g. a debt
 * origin), from the rows of the calendar year before, then rounds every figure once. One figure:
 * numbers; several: objects keyed by the figures' names. Rows hold unrounded measured figures;
 * the change is of the figures as they are shown.
 * `shown`: the rows to give (all by default); the others are only compared with.
 */
export function withChanges<R extends { year: number }>(
  rows: readonly R[],
  fields: readonly (keyof R & string)[],
  measurer: Measurer,
  key: (row: R) => unknown = () => '',
  shown: (row: R) => boolean = () => true,
): (R & { change: unknown; change_pct: unknown })[] {
  // A figure is compared only with the previous year's figure of the same stage
  // (docs/api.md#what-every-figure-means): a series' default picks each year's most final stage,
  // and a forecast minus an outturn is no change of anything.
  const stageOf = (row: R) => ('stage' in row ? String(row.stage) : '');
  // Rows by year, stage and key, in maps rather than under joined keys: no string made per row.
  const byYear = new Map<number, Map<string, Map<unknown, R>>>();
  for (const row of rows) {
    let stages = byYear.get(row.year);
    if (!stages) byYear.set(row.year, (stages = new Map()));
    const stage = stageOf(row);
    let keys = stages.get(stage);
    if (!keys) stages.set(stage, (keys = new Map()));
    keys.set(key(row), row);
  }
  return rows.filter(shown).map((row) => {
    const previous = byYear
      .get(row.year - 1)
      ?.get(stageOf(row))
      ?.get(key(row));
    const out = rounded(row, fields, measurer) as Record<string, unknown>;
    const change: Record<string, number | null> = {};
    const change_pct: Record<string, number | null> = {};
    for (const field of fields) {
      // Of the figures as shown, so that a reader's own subtraction gives the change, and a figure
      // shown as 0 has no growth rate.
      const before = previous?.[field] as number | null | undefined;
      const changed = changeOf(measurer.round(row[field] as number | null), before === undefined ? undefined : measurer.round(before));
      change[field] = measurer.round(changed.change);
      change_pct[field] = percent(changed.change_pct);
    }
    out.change = fields.length === 1 ? change[fields[0]!] : change;
    out.change_pct = fields.length === 1 ? change_pct[fields[0]!] : change_pct;
    return out as R & { change: unknown; change_pct: unknown };
  });
}

/** The years whose rows a change needs: each year asked for and the one before it. */
export function withPreviousYears(years: readonly number[]): number[] {
  return [...new Set(years.flatMap((y) => [y - 1, y]))].sort((a, b) => a - b);
}
