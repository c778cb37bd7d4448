/**
 * What every view shares: the context a view draws in, the parameters it passes to an endpoint,
 * the unit of an answer, and the stage and source columns of rows that carry them.
 */
import { SERIES_STAGES, STAGE_LABELS } from '../../src/domain/stages.js';
import type { Answer, Capabilities, Params } from './api.js';
import { h } from './dom.js';
import type { Context, Unit } from './figure.js';
import { t, type LabelKey } from './i18n.js';
import { coveredYears, isForecast, knownGaps, stageLabel } from './series.js';
import type { State } from './state.js';

export interface ViewContext extends Context {
  state: State;
  caps: Capabilities;
  /** Changes the view; `focus` names the element (data-focus) to focus once it is drawn. */
  navigate(change: Partial<State>, focus?: string): void;
}

/** The measure and stage parameters that `path` accepts, from the reader's choice. */
export function choice(ctx: ViewContext, path: string, { measure = true } = {}): Params {
  const { state, caps } = ctx;
  const params: Params = {};
  if (state.stage && caps.accepts(path, 'stage', state.stage)) params.stage = state.stage;
  if (measure && state.measure !== 'nominal' && caps.accepts(path, 'measure', state.measure)) params.measure = state.measure;
  return params;
}

/** Percentages of GDP, said as the API's Budget-Measure header says them (`unit="% of GDP"`), in the reader's language. */
export function ofGdp(ctx: ViewContext): Unit {
  return { percent: true, label: t(ctx.lang, 'measure.pct_gdp'), of: t(ctx.lang, 'unit.ofGdp') };
}

/**
 * The unit of an answer's amounts, in the reader's language: the measure the API applied (its
 * Budget-Measure header, e.g. `real; base_year=2025`) over the drop's unit (MDT for the sample;
 * none for a drop that states none: its amounts are shown bare, never in another drop's unit).
 */
export function unitOf(ctx: ViewContext, answer: Answer<unknown>): Unit {
  const header = answer.measure ?? '';
  const measure = /^\s*(\w+)/.exec(header)?.[1] ?? new URL(answer.url, location.href).searchParams.get('measure') ?? 'nominal';
  const name = ctx.meta.units?.name ?? '';
  switch (measure) {
    case 'pct_gdp':
      return ofGdp(ctx);
    case 'share':
      return { percent: true, label: '%' };
    case 'real': {
      const year = /base_year=(\d+)/.exec(header)?.[1] ?? '';
      return { percent: false, label: name ? t(ctx.lang, 'unit.real', { unit: name, year }) : t(ctx.lang, 'unit.realUnstated', { year }) };
    }
    case 'per_capita': {
      const currency = ctx.meta.units?.currency ?? /unit="(\S+) per inhabitant"/.exec(header)?.[1] ?? '';
      return { percent: false, label: t(ctx.lang, 'unit.perCapita', { currency }) };
    }
    default:
      return { percent: false, label: name };
  }
}

/**
 * Why a figure of the reader's measure is missing in `year`: the API answers null where the drop
 * lacks the series the measure needs that year (GDP, population, prices), never 0.
 */
export function noMeasureFigure(ctx: ViewContext, year: number | undefined): string {
  const measure = ctx.state.measure === 'nominal' ? undefined : ctx.state.measure;
  if (!measure) return t(ctx.lang, 'noDataYear', { year: year ?? '' });
  return t(ctx.lang, 'noMeasureFigure', { year: year ?? '', measure: t(ctx.lang, `measureIn.${measure}`), series: t(ctx.lang, `series.${measure}`) });
}

/**
 * What a view with nothing for the reader's year says: when `/meta/` coverage shows that the year
 * has figures of `tables` at other stages than the one shown, it says so and names them, since
 * the drop does have data for that year; otherwise `fallback` (by default: no data for the year).
 */
export function noDataAtStage(ctx: ViewContext, tables: string[], fallback = t(ctx.lang, 'noDataYear', { year: ctx.state.year ?? '' })): string {
  const { lang, state, meta } = ctx;
  const year = state.year;
  // Lines are of the amended law by default; a series by default takes the most final stage a year
  // has, so that nothing of it at the default stage means nothing at any.
  const shown = state.stage ?? (tables.some((table) => table === 'expenses' || table === 'resources') ? 'amended' : undefined);
  if (year === undefined || !shown) return fallback;
  const staged = tables.filter((table) => meta.coverage?.[table] && !Array.isArray(meta.coverage[table]));
  const others = SERIES_STAGES.filter((stage) => stage !== shown && staged.some((table) => coveredYears(meta, table, stage)?.has(year)));
  if (others.length === 0) return fallback;
  const name = (stage: string) => stageName(ctx, stage).toLocaleLowerCase(lang);
  return t(lang, 'noDataStage', { year, stage: name(shown), stages: others.map(name).join(', ') });
}

export type { Source } from './api.js';

export interface Provenanced {
  stage?: string | null;
  source_id?: number | null;
}

export const stageName = (ctx: ViewContext, stage: string | null | undefined): string =>
  stage ? (stageLabel(ctx.meta, stage, ctx.lang) ?? (stage in STAGE_LABELS ? t(ctx.lang, `stage.${stage}` as LabelKey) : stage)) : '';

/** Stage and source columns, for rows that carry them; a law's stage in `year` after the latest outturn says it is a forecast. */
export function provenanceColumns(
  ctx: ViewContext,
  rows: Provenanced[],
  year?: number,
): { columns: string[]; cells(row: Provenanced): (string | Node)[]; line(row: Provenanced): string | undefined } {
  const sourceName = (id: number) => ctx.sources.get(id)?.title ?? `#${id}`;
  // A source's title is long: in a cell of its own width (style.css .source) a narrow table
  // scrolls sideways, rather than squeezing the title into a tall column that stretches every row.
  const sourceCell = (id: number | null | undefined): string | Node => {
    if (id == null) return '';
    const url = ctx.sources.get(id)?.url;
    const title = url && /^https?:\/\//.test(url) ? h('a', { href: url, rel: 'noopener' }, sourceName(id)) : sourceName(id);
    return h('span', { class: 'source' }, title);
  };
  const stageText = (stage: string | null | undefined) =>
    year !== undefined && stage && isForecast(ctx.meta, year, stage)
      ? `${stageName(ctx, stage)} (${t(ctx.lang, 'col.forecast')})`
      : stageName(ctx, stage);
  const hasStage = rows.some((row) => row.stage != null);
  const hasSource = rows.some((row) => row.source_id != null);
  const columns = [...(hasStage ? [t(ctx.lang, 'col.stage')] : []), ...(hasSource ? [t(ctx.lang, 'col.source')] : [])];
  const cells = (row: Provenanced) => [...(hasStage ? [stageText(row.stage)] : []), ...(hasSource ? [sourceCell(row.source_id)] : [])];
  const line = (row: Provenanced) => {
    const parts = [
      hasStage && row.stage ? `${t(ctx.lang, 'col.stage')}: ${stageText(row.stage)}` : '',
      hasSource && row.source_id != null ? `${t(ctx.lang, 'col.source')}: ${sourceName(row.source_id)}` : '',
    ].filter(Boolean);
    return parts.length ? parts.join(' · ') : undefined;
  };
  return { columns, cells, line };
}

/** The gaps the drop declares for these tables in the reader's year and stage, as notes. */
export function gapNotes(ctx: ViewContext, tables: string[]): Node[] {
  const year = ctx.state.year;
  if (year === undefined) return [];
  return knownGaps(ctx.meta, tables, ctx.state.stage, [year]).map((gap) =>
    h(
      'span',
      { class: 'known-gap' },
      t(ctx.lang, 'knownGap', {
        years: gap.years.join(', '),
        stage: gap.stage ? ` (${stageName(ctx, gap.stage)})` : '',
        reason: gap.reason[ctx.lang],
      }),
    ),
  );
}
