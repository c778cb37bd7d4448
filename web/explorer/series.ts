/**
 * What the explorer must know before it draws a series over the years, read from `/meta/`:
 * which years a table has (so a year without lines is a gap, never a zero), which stages may be
 * joined into one line (`stages[x].comparable_with`), which figures are forecasts, and which gaps
 * the drop declares (`known_gaps`).
 */
import { LINES_OF, SERIES_STAGES, type Stage } from '../../src/domain/stages.js';
import type { KnownGap, Meta } from './api.js';
import type { Lang } from './i18n.js';

export type SeriesStage = Stage;

/** The line stages (`initial`, `amendment`, `outturn`) whose lines make up a roll-up of `stage`. */
function lineStages(stage: SeriesStage): readonly string[] {
  return LINES_OF[stage];
}

/**
 * The years in which `table` has figures of `stage` (for expenses and resources, lines of that
 * stage), or undefined when `/meta/` does not say (then the rows answered are all we know).
 */
export function coveredYears(meta: Meta, table: string, stage: SeriesStage | undefined): Set<number> | undefined {
  const coverage = meta.coverage?.[table];
  if (!coverage) return undefined;
  if (Array.isArray(coverage)) return new Set(coverage);
  const stages = table === 'expenses' || table === 'resources' ? lineStages(stage ?? 'amended') : stage ? [stage] : Object.keys(coverage);
  return new Set(stages.flatMap((s) => coverage[s] ?? []));
}

/**
 * The latest year with an outturn figure in any table of the drop. A law's figure (initial or
 * amended) for a later year is a forecast: the year has not been executed, or its execution is
 * not published yet. Undefined when the drop has no outturn at all: then nothing is called a
 * forecast, since nothing tells a plan from a forecast.
 */
export function latestOutturn(meta: Meta): number | undefined {
  let latest: number | undefined;
  for (const coverage of Object.values(meta.coverage ?? {})) {
    if (Array.isArray(coverage)) continue;
    for (const year of coverage.outturn ?? []) if (latest === undefined || year > latest) latest = year;
  }
  return latest;
}

export function isForecast(meta: Meta, year: number, stage: string | null | undefined): boolean {
  const latest = latestOutturn(meta);
  return latest !== undefined && stage !== 'outturn' && year > latest;
}

/**
 * Stages grouped into lines: two stages share a line only when `/meta/` `stages` says one is
 * comparable with the other (either way). Without `stages`, every stage is a line of its own.
 */
export function stageGroups(meta: Meta, stages: readonly string[]): string[][] {
  const parent = new Map(stages.map((s) => [s, s]));
  const root = (s: string): string => {
    let r = s;
    while (parent.get(r) !== r) r = parent.get(r)!;
    return r;
  };
  for (const stage of stages) {
    for (const other of meta.stages?.[stage as SeriesStage]?.comparable_with ?? []) {
      if (parent.has(other)) parent.set(root(other), root(stage));
    }
  }
  const groups = new Map<string, string[]>();
  // In the order of the budget's life (initial, amended, outturn), whatever the rows' order.
  const rank = (s: string) => (SERIES_STAGES.indexOf(s as SeriesStage) + 4) % 4;
  for (const stage of [...stages].sort((a, b) => rank(a) - rank(b))) groups.set(root(stage), [...(groups.get(root(stage)) ?? []), stage]);
  return [...groups.values()];
}

/** Every year from the first to the last of `years`: a series over them shows a gap as a gap. */
export function yearRange(years: Iterable<number>): number[] {
  const list = [...years];
  if (list.length === 0) return [];
  const first = Math.min(...list),
    last = Math.max(...list);
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/**
 * The gaps the drop declares for these tables, stage and years. A gap of lines of one stage is a
 * gap of every stage made of those lines: the amended law is the initial lines and the amendments.
 */
export function knownGaps(meta: Meta, tables: string[], stage: string | undefined, years?: number[]): KnownGap[] {
  const lines: readonly string[] = stage === undefined ? [] : (LINES_OF[stage as SeriesStage] ?? []);
  return (meta.known_gaps ?? []).filter(
    (gap) =>
      tables.includes(gap.table) &&
      (gap.stage == null || stage === undefined || gap.stage === stage || lines.includes(gap.stage)) &&
      (!years || gap.years.some((y) => years.includes(y))),
  );
}

/** A stage's label as the drop gives it, else undefined (the page's own label is used). */
export function stageLabel(meta: Meta, stage: string, lang: Lang): string | undefined {
  return meta.stages?.[stage as SeriesStage]?.label?.[lang];
}

export function stageBasis(meta: Meta, stage: string, lang: Lang): string | undefined {
  return meta.stages?.[stage as SeriesStage]?.basis?.[lang];
}
