/**
 * The stages of a budget (docs/api.md, "Stages"), defined once: what a request may ask for, what
 * a line of a drop may be, which lines each stage counts, their order, and their labels. Params,
 * responses, the OpenAPI document, the drop's schema, the explorer and the SQL table stage_lines
 * (sql/derive/stage_lines.sql, made at load from STAGE_LINES) read them from here.
 */

/** What a request asks for, and what a series row is at, from the least final to the most final. */
export const STAGES = ['initial', 'amended', 'outturn'] as const;
export type Stage = (typeof STAGES)[number];

/** Lines and roll-ups count the initial lines and their amendments unless asked otherwise. */
export const DEFAULT_STAGE: Stage = 'amended';

/** The stage of one line of a drop (docs/data-drops.md): the law as adopted, a complementary law's change, the outturn. */
export const LINE_STAGES = ['initial', 'amendment', 'outturn'] as const;
export type LineStage = (typeof LINE_STAGES)[number];

/** The stages a series row (debt, outstanding debt, deficit) may be at: the stages a request names. */
export const SERIES_STAGES = STAGES;

/** Which lines each stage counts. */
export const LINES_OF: Readonly<Record<Stage, readonly LineStage[]>> = {
  initial: ['initial'],
  amended: ['initial', 'amendment'],
  outturn: ['outturn'],
};

/**
 * The rows of the SQL table stage_lines: each stage with a line stage it counts, and its finality
 * (1 for the least final; a series answers each year's most final row by default).
 */
export const STAGE_LINES = STAGES.flatMap((stage, i) => LINES_OF[stage].map((line_stage) => ({ stage, line_stage, finality: i + 1 })));

/**
 * The stage that totals/'s include_complementary (older than stages) stands for: false counts the
 * initial lines only, true adds the complementary laws' amendments.
 */
export const stageOfComplementary = (includeComplementary: boolean): Stage => (includeComplementary ? 'amended' : 'initial');

/** The stage of a line-based request: the one asked for, or the default. */
export const stageOrDefault = (stage: Stage | undefined): Stage => stage ?? DEFAULT_STAGE;

/** The stage a series request asks for; null: each year's most final. */
export const seriesStage = (stage: Stage | undefined): Stage | null => stage ?? null;

/** What each line stage means, for the docs. */
export const LINE_STAGE_MEANINGS: Readonly<Record<LineStage, string>> = {
  initial: 'the finance law as adopted',
  amendment: "a complementary law's change",
  outturn: 'executed',
};

/** `a, b or c`: a list in words. */
export const inWords = (items: readonly string[]): string =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;

/** What each stage means, for the parameter's description. */
export const STAGE_MEANINGS: Readonly<Record<Stage, { lines: string; series: string }>> = {
  initial: { lines: 'the finance law as adopted', series: "the finance law's" },
  amended: { lines: 'initial lines and the amendments of complementary laws', series: 'as amended' },
  outturn: { lines: 'executed', series: 'executed' },
};

/** The labels of stages and line stages, in the explorer's languages. */
export const STAGE_LABELS: Readonly<Record<Stage | LineStage, { en: string; fr: string }>> = {
  initial: { en: 'Initial law', fr: 'Loi initiale' },
  amended: { en: 'Amended law', fr: 'Loi rectifiée' },
  amendment: { en: 'Amendment', fr: 'Modification' },
  outturn: { en: 'Outturn', fr: 'Exécution' },
};
