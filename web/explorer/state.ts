/**
 * What the reader is looking at, kept in the page's query string so that a link (or a reload)
 * shows the same thing: view, year, measure, stage, language, and where they drilled down to.
 */
import { STAGES, type Stage } from '../../src/domain/stages.js';
import { LANGS, type Lang } from './i18n.js';

export const VIEWS = ['overview', 'expenses', 'resources', 'organizations', 'debt'] as const;
export type View = (typeof VIEWS)[number];
export const MEASURES = ['nominal', 'real', 'pct_gdp', 'per_capita'] as const;
export type Measure = (typeof MEASURES)[number];
export { STAGES, type Stage };

export interface State {
  view: View;
  year?: number;
  measure: Measure;
  /** undefined: each endpoint's default stage. */
  stage?: Stage;
  lang: Lang;
  /** The category (expenses, resources) or debt origin drilled down to; the organization shown. */
  node?: number;
  org?: number;
  /** On the embed page: the figure shown alone (its id, e.g. `deficit`). */
  chart?: string;
}

const oneOf = <T extends string>(list: readonly T[], value: string | null): T | undefined => list.find((item) => item === value);

const id = (value: string | null): number | undefined => (value && /^\d{1,15}$/.test(value) ? Number(value) : undefined);

export function readState(search: string, browserLanguage: string): State {
  const query = new URLSearchParams(search);
  return {
    view: oneOf(VIEWS, query.get('view')) ?? 'overview',
    year: id(query.get('year')),
    measure: oneOf(MEASURES, query.get('measure')) ?? 'nominal',
    stage: oneOf(STAGES, query.get('stage')),
    lang: oneOf(LANGS, query.get('lang')) ?? (browserLanguage.toLowerCase().startsWith('fr') ? 'fr' : 'en'),
    node: id(query.get('node')),
    org: id(query.get('org')),
    chart: /^[a-z][a-z-]{0,40}$/.test(query.get('chart') ?? '') ? query.get('chart')! : undefined,
  };
}

export function writeState(state: State): string {
  const query = new URLSearchParams();
  query.set('view', state.view);
  if (state.year !== undefined) query.set('year', String(state.year));
  if (state.measure !== 'nominal') query.set('measure', state.measure);
  if (state.stage) query.set('stage', state.stage);
  query.set('lang', state.lang);
  if (state.node !== undefined) query.set('node', String(state.node));
  if (state.org !== undefined) query.set('org', String(state.org));
  if (state.chart !== undefined) query.set('chart', state.chart);
  return `?${query}`;
}
