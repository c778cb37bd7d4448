/**
 * The budget explorer: builds the controls once, then draws the view the URL names, and draws it
 * again whenever the reader changes the year, measure, stage, view or language (each change is a
 * new history entry, so Back works and a copied link shows the same view).
 */
import type { Chart } from 'chart.js';
import { Capabilities, get, type Meta, type Source } from './api.js';
import { h } from './dom.js';
import { formatter, t, type LabelKey } from './i18n.js';
import { MEASURES, STAGES, VIEWS, readState, writeState, type State } from './state.js';
import { renderView } from './views.js';
import './style.css';

/** The endpoints a measure or stage switch acts on: the switch shows when one of them accepts the value. */
const MEASURED = ['totals/', 'expenses/', 'resources/', 'organization/stats/', 'debt/'];
const STAGED = [...MEASURED, 'deficit/', 'outstanding-debt/', 'organization/'];
/** Measures that need an optional series of the drop: offered only when the drop has it. */
const NEEDS: Partial<Record<State['measure'], string>> = { real: 'cpi.parquet', per_capita: 'population.parquet' };
/** Where one chart is served alone, for an iframe (src/explorer.ts serves embed.html there). */
const EMBED_PATH = '/budget/embed/';

async function start(): Promise<void> {
  let state = readState(location.search, navigator.language);
  // The embed page: one chart, no controls, no table; its state only from its URL.
  const embed = document.body.dataset.page === 'embed';
  const main = document.getElementById('view')!;
  const controls = embed ? h('div') : document.getElementById('controls')!;
  applyLanguage(state);
  main.dataset.state = 'loading';

  // The OpenAPI document only tells which switches to offer: the default view does not wait for it.
  // Without it (an error), the page still draws every view, with no switch.
  const capabilities = Capabilities.load().catch(() => Capabilities.NONE);
  const meta = (await get<Meta>('meta/')).data;
  const years = [...meta.years].sort((a, b) => b - a);
  // A year the drop has nothing for (a link to a known gap, a typo) shows the latest year, and the
  // page says so: a reader who asked for 2014 must not take 2025's figures for 2014's.
  let replacedYear: number | undefined;
  const knownYear = (asked: State): State => {
    replacedYear = asked.year !== undefined && !years.includes(asked.year) ? asked.year : undefined;
    return asked.year === undefined || replacedYear !== undefined ? { ...asked, year: years[0] } : asked;
  };
  state = knownYear(state);
  let caps = Capabilities.NONE;
  let measures: State['measure'][] = ['nominal'];
  let stages: State['stage'][] = [];
  // Rows name their source by id; the titles come from sources/ where the API has it.
  let sources = Promise.resolve(new Map<number, Source>());
  const learn = (loaded: Capabilities) => {
    caps = loaded;
    measures = MEASURES.filter(
      (m) =>
        m === 'nominal' ||
        (MEASURED.some((path) => caps.accepts(path, 'measure', m)) &&
          (!NEEDS[m] || NEEDS[m] in meta.files) &&
          (m !== 'per_capita' || Boolean(meta.units?.scale))),
    );
    stages = STAGES.filter((s) => STAGED.some((path) => caps.accepts(path, 'stage', s)));
    if (caps.has('sources/')) {
      sources = get<Source[]>('sources/')
        .then((answer) => new Map(answer.data.map((source) => [source.id, source])))
        .catch(() => new Map<number, Source>());
    }
  };
  // A link with a measure or stage is checked against what the API takes before it is drawn.
  if (state.measure !== 'nominal' || state.stage) learn(await capabilities);
  if (!measures.includes(state.measure)) state = { ...state, measure: 'nominal' };
  if (state.stage && !stages.includes(state.stage)) state = { ...state, stage: undefined };
  history.replaceState(null, '', writeState(state));

  // ---- the controls, built once so that focus stays where the reader is
  const yearSelect = h(
    'select',
    { id: 'year', name: 'year' },
    years.map((y) => h('option', { value: y }, y)),
  );
  const measureSelect = h('select', { id: 'measure', name: 'measure' });
  const stageSelect = h('select', { id: 'stage', name: 'stage' });
  const languageButton = h('button', { type: 'button', id: 'lang' });
  const field = (id: string, select: HTMLSelectElement, shown: boolean) =>
    h('div', { class: 'field', hidden: !shown }, h('label', { for: id, id: `${id}-label` }), select);
  const viewButtons = VIEWS.map((view) =>
    h('button', { type: 'button', 'data-view': view, 'data-focus': `view-${view}`, onclick: () => navigate({ view, node: undefined }) }),
  );
  controls.append(
    h(
      'div',
      { class: 'fields' },
      field('year', yearSelect, true),
      field('measure', measureSelect, false),
      field('stage', stageSelect, false),
      languageButton,
    ),
    h(
      'nav',
      { class: 'views', id: 'views' },
      h(
        'ul',
        {},
        viewButtons.map((b) => h('li', {}, b)),
      ),
    ),
  );
  yearSelect.addEventListener('change', () => navigate({ year: Number(yearSelect.value) }));
  measureSelect.addEventListener('change', () => navigate({ measure: measureSelect.value as State['measure'] }));
  stageSelect.addEventListener('change', () => navigate({ stage: (stageSelect.value || undefined) as State['stage'] }));
  languageButton.addEventListener('click', () => navigate({ lang: state.lang === 'fr' ? 'en' : 'fr' }));

  /** Offers the measures and stages the API takes (none until its OpenAPI document is read). */
  function offerSwitches(): void {
    measureSelect.replaceChildren(...measures.map((m) => h('option', { value: m })));
    stageSelect.replaceChildren(h('option', { value: '' }), ...stages.map((s) => h('option', { value: s })));
    measureSelect.parentElement!.hidden = measures.length < 2;
    stageSelect.parentElement!.hidden = stages.length === 0;
    if (caps !== Capabilities.NONE) controls.dataset.state = 'ready';
  }
  offerSwitches();

  function label(): void {
    const { lang } = state;
    applyLanguage(state);
    if (embed) return;
    document.getElementById('skip')!.textContent = t(lang, 'skip');
    document.getElementById('title')!.textContent = t(lang, 'title');
    document.getElementById('subtitle')!.textContent = t(lang, 'subtitle');
    document.getElementById('year-label')!.textContent = t(lang, 'year');
    document.getElementById('measure-label')!.textContent = t(lang, 'measure');
    document.getElementById('stage-label')!.textContent = t(lang, 'stage');
    for (const option of measureSelect.options) option.textContent = t(lang, `measure.${option.value}` as LabelKey);
    for (const option of stageSelect.options) option.textContent = t(lang, `stage.${option.value || 'default'}` as LabelKey);
    languageButton.textContent = t(lang, 'language');
    languageButton.setAttribute('aria-label', t(lang, 'languageName'));
    languageButton.lang = lang === 'fr' ? 'en' : 'fr';
    document.getElementById('views')!.setAttribute('aria-label', t(lang, 'views'));
    for (const button of viewButtons) {
      button.textContent = t(lang, `view.${button.dataset.view}` as LabelKey);
      if (button.dataset.view === state.view) button.setAttribute('aria-current', 'page');
      else button.removeAttribute('aria-current');
    }
    yearSelect.value = String(state.year);
    measureSelect.value = state.measure;
    stageSelect.value = state.stage ?? '';
    document.getElementById('footer-text')!.textContent = t(lang, 'footer');
    document.getElementById('docs-link')!.textContent = t(lang, 'docs');
  }

  let charts: Chart[] = [];
  let generation = 0;
  let firstChart = false;

  async function render(focus?: string): Promise<void> {
    const mine = ++generation;
    label();
    main.dataset.state = 'loading';
    main.setAttribute('aria-busy', 'true');
    const ctx = {
      state,
      sources: await sources,
      caps,
      meta,
      lang: state.lang,
      fmt: formatter(state.lang),
      charts: [] as Chart[],
      pending: [] as (() => void)[],
      navigate,
      embed,
      embedUrl: (id: string) => `${EMBED_PATH}${writeState({ ...state, chart: id })}`,
      drawn: () => {
        if (!firstChart) {
          firstChart = true;
          performance.mark('explorer:first-chart');
        }
      },
    };
    let figures = await renderView(ctx);
    if (mine !== generation) return;
    if (embed) figures = embedded(figures, state);
    if (replacedYear !== undefined) {
      const reasons = (meta.known_gaps ?? []).filter((gap) => gap.years.includes(replacedYear!)).map((gap) => ` ${gap.reason[state.lang]}`);
      figures.unshift(
        h('p', { class: 'notice', role: 'status' }, t(state.lang, 'yearReplaced', { asked: replacedYear, year: state.year ?? '' }), ...reasons),
      );
    }
    // Keep focus where it was when it was inside the view (a redraw replaces those elements).
    const focused = focus ?? (main.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset.focus : undefined);
    for (const chart of charts) chart.destroy();
    main.replaceChildren(...figures);
    charts = ctx.charts;
    for (const draw of ctx.pending) draw();
    if (focused) (main.querySelector(`[data-focus="${focused}"]`) as HTMLElement | null)?.focus();
    main.removeAttribute('aria-busy');
    main.dataset.state = 'ready';
    main.dataset.view = state.view;
  }

  function navigate(change: Partial<State>, focus?: string): void {
    state = { ...state, ...change };
    replacedYear = undefined;
    // The embed page has no controls: a click on a chart (a drill-down) opens the explorer there.
    if (embed) {
      window.open(`/${writeState({ ...state, chart: undefined })}`, '_blank', 'noopener');
      return;
    }
    // A drill-down or a chosen organization belongs to its view.
    if ('view' in change) state = { ...state, node: undefined, org: undefined };
    history.pushState(null, '', writeState(state));
    void render(focus);
  }

  window.addEventListener('popstate', () => {
    state = knownYear(readState(location.search, navigator.language));
    void render();
  });

  await render();
  if (controls.dataset.state !== 'ready') {
    learn(await capabilities);
    offerSwitches();
    label();
    // Source titles replace the ids the first drawing showed.
    if (caps.has('sources/')) await render();
  }
}

/**
 * The embed page keeps the one figure its URL names, and under it (when it is not itself in a
 * frame) the <iframe> code to copy and a link to the same view in the explorer.
 */
function embedded(figures: HTMLElement[], state: State): HTMLElement[] {
  const chosen = figures.find((f) => f.id === state.chart);
  if (!chosen) return [h('p', { class: 'empty', role: 'alert' }, t(state.lang, 'embedMissing', { chart: state.chart ?? '' }))];
  const explorer = `/${writeState({ ...state, chart: undefined })}`;
  chosen
    .querySelector('.provenance')
    ?.append(h('p', { class: 'embed-open' }, h('a', { href: explorer, target: '_top' }, t(state.lang, 'embedOpen'))));
  if (window.self !== window.top) return [chosen];
  const title = chosen.querySelector('h2')?.textContent ?? '';
  const code = `<iframe src="${location.origin}${EMBED_PATH}${writeState(state)}" title="${title.replace(/"/g, '&quot;')}" width="100%" height="560" style="border:0" loading="lazy"></iframe>`;
  const box = h('textarea', { id: 'embed-code', readonly: true, rows: 3, spellcheck: 'false' });
  box.value = code;
  box.addEventListener('focus', () => box.select());
  return [chosen, h('div', { class: 'embed-snippet' }, h('label', { for: 'embed-code' }, t(state.lang, 'embedSnippet')), box)];
}

function applyLanguage(state: State): void {
  document.documentElement.lang = state.lang;
  document.title = t(state.lang, 'title');
}

start().catch((error: unknown) => {
  const main = document.getElementById('view');
  if (main) {
    main.replaceChildren(h('p', { class: 'empty', role: 'alert' }, String(error instanceof Error ? error.message : error)));
    main.dataset.state = 'failed';
  }
});
