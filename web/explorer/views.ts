/**
 * The five views of the explorer. Each asks the API for what it shows and returns its figures;
 * main.ts puts them on the page. Every request passes the reader's measure and stage only to the
 * endpoints whose OpenAPI parameters accept them.
 */
import { STAGE_LABELS } from '../../src/domain/stages.js';
import { ApiError, get, getAll, type Answer, type Capabilities, type Params } from './api.js';
import { h } from './dom.js';
import { COLOURS, figure, formatValue, type Context, type Dataset, type FigureSpec, type Provenance, type Unit } from './figure.js';
import { t, type LabelKey } from './i18n.js';
import type { State } from './state.js';

export interface ViewContext extends Context {
  state: State;
  caps: Capabilities;
  /** The drop's sources by id, when the API lists them (`sources/`). */
  sources: Map<number, Source>;
  /** Changes the view; `focus` names the element (data-focus) to focus once it is drawn. */
  navigate(change: Partial<State>, focus?: string): void;
}

/** The figures of the state's view. */
export async function renderView(ctx: ViewContext): Promise<HTMLElement[]> {
  const views: Record<State['view'], () => Promise<HTMLElement>[]> = {
    overview: () => [totals(ctx), ratios(ctx)],
    expenses: () => [tree(ctx, 'expenses')],
    resources: () => [tree(ctx, 'resources')],
    organizations: () => organizations(ctx),
    debt: () => [debt(ctx)],
  };
  return Promise.all(views[ctx.state.view]().map((promise, i) => promise.catch((error: unknown) => failed(ctx, `failed-${i}`, error))));
}

function failed(ctx: ViewContext, id: string, error: unknown): HTMLElement {
  if (!(error instanceof ApiError)) console.warn(error);
  const detail = error instanceof Error ? error.message : String(error);
  return h('section', { class: 'figure', id }, h('p', { class: 'empty', role: 'alert' }, t(ctx.lang, 'loadFailed', { detail })));
}

/** The measure and stage parameters that `path` accepts, from the reader's choice. */
function choice(ctx: ViewContext, path: string, { measure = true } = {}): Params {
  const { state, caps } = ctx;
  const params: Params = {};
  if (state.stage && caps.accepts(path, 'stage', state.stage)) params.stage = state.stage;
  if (measure && state.measure !== 'nominal' && caps.accepts(path, 'measure', state.measure)) params.measure = state.measure;
  return params;
}

/**
 * The unit of an answer's amounts, in the reader's language: the measure the API applied (its
 * Budget-Measure header, e.g. `real; base_year=2025`) over the drop's unit (MDT for the sample).
 */
function unitOf(ctx: ViewContext, answer: Answer<unknown>): Unit {
  const header = answer.measure ?? '';
  const measure = /^\s*(\w+)/.exec(header)?.[1] ?? new URL(answer.url, location.href).searchParams.get('measure') ?? 'nominal';
  const name = ctx.meta.units?.name ?? 'MDT';
  switch (measure) {
    case 'pct_gdp':
    case 'share':
      return { percent: true, label: '%' };
    case 'real':
      return { percent: false, label: t(ctx.lang, 'unit.real', { unit: name, year: /base_year=(\d+)/.exec(header)?.[1] ?? '' }) };
    case 'per_capita': {
      const currency = ctx.meta.units?.currency ?? /unit="(\S+) per inhabitant"/.exec(header)?.[1] ?? '';
      return { percent: false, label: t(ctx.lang, 'unit.perCapita', { currency }) };
    }
    default:
      return { percent: false, label: name };
  }
}

export interface Source {
  id: number;
  title: string;
  url?: string | null;
}

interface Provenanced {
  stage?: string | null;
  source_id?: number | null;
}

const stageName = (ctx: ViewContext, stage: string | null | undefined) =>
  stage ? (stage in STAGE_LABELS ? t(ctx.lang, `stage.${stage}` as LabelKey) : stage) : '';

/** Stage and source columns, for rows that carry them. */
function provenanceColumns(ctx: ViewContext, rows: Provenanced[]): { columns: string[]; cells(row: Provenanced): (string | Node)[]; line(row: Provenanced): string | undefined } {
  const sourceName = (id: number) => ctx.sources.get(id)?.title ?? `#${id}`;
  const sourceCell = (id: number | null | undefined): string | Node => {
    if (id == null) return '';
    const url = ctx.sources.get(id)?.url;
    return url && /^https?:\/\//.test(url) ? h('a', { href: url, rel: 'noopener' }, sourceName(id)) : sourceName(id);
  };
  const hasStage = rows.some((row) => row.stage != null);
  const hasSource = rows.some((row) => row.source_id != null);
  const columns = [...(hasStage ? [t(ctx.lang, 'col.stage')] : []), ...(hasSource ? [t(ctx.lang, 'col.source')] : [])];
  const cells = (row: Provenanced) => [...(hasStage ? [stageName(ctx, row.stage)] : []), ...(hasSource ? [sourceCell(row.source_id)] : [])];
  const line = (row: Provenanced) => {
    const parts = [
      hasStage && row.stage ? `${t(ctx.lang, 'col.stage')}: ${stageName(ctx, row.stage)}` : '',
      hasSource && row.source_id != null ? `${t(ctx.lang, 'col.source')}: ${sourceName(row.source_id)}` : '',
    ].filter(Boolean);
    return parts.length ? parts.join(' · ') : undefined;
  };
  return { columns, cells, line };
}

// ---------------------------------------------------------------- overview

interface TotalsRow extends Provenanced {
  year: number;
  total_expenses: number | null;
  total_resources: number | null;
  balance: number | null;
}

async function totals(ctx: ViewContext): Promise<HTMLElement> {
  const { lang, state } = ctx;
  const measure = choice(ctx, 'totals/');
  delete measure.stage; // initial and amended are both drawn; an outturn series is added below
  const outturnWanted = state.stage === 'outturn' && ctx.caps.accepts('totals/', 'stage', 'outturn');
  const [amended, initial, outturn] = await Promise.all([
    get<TotalsRow[]>('totals/', { include_complementary: true, ...measure }),
    get<TotalsRow[]>('totals/', { include_complementary: false, ...measure }),
    outturnWanted ? get<TotalsRow[]>('totals/', { stage: 'outturn', ...measure }) : undefined,
  ]);
  const unit = unitOf(ctx, amended);
  const years = [...new Set([...amended.data, ...initial.data, ...(outturn?.data ?? [])].map((r) => r.year))].sort((a, b) => a - b);
  const byYear = (rows: TotalsRow[] | undefined) => new Map((rows ?? []).map((r) => [r.year, r]));
  const a = byYear(amended.data), i = byYear(initial.data), o = byYear(outturn?.data);
  const series = (rows: Map<number, TotalsRow>, field: 'total_expenses' | 'total_resources' | 'balance') => years.map((y) => rows.get(y)?.[field] ?? null);
  const highlight = (size: number) => (c: { dataIndex: number }) => (years[c.dataIndex] === state.year ? size * 2.5 : size);
  const line = (label: LabelKey, data: (number | null)[], colour: string, dashed = false): Dataset => ({
    type: 'line',
    label: t(lang, label),
    data,
    borderColor: colour,
    backgroundColor: colour,
    borderDash: dashed ? [6, 4] : undefined,
    pointRadius: highlight(2) as unknown as number,
    spanGaps: false,
  });
  const datasets: Dataset[] = [
    line('totals.expensesAmended', series(a, 'total_expenses'), COLOURS.expenses),
    line('totals.expensesInitial', series(i, 'total_expenses'), COLOURS.expenses, true),
    line('totals.resourcesAmended', series(a, 'total_resources'), COLOURS.resources),
    line('totals.resourcesInitial', series(i, 'total_resources'), COLOURS.resources, true),
    // The balance is a small difference of two large totals: it gets its own axis, at the right.
    { type: 'bar', label: t(lang, 'totals.balanceAmended'), data: series(a, 'balance'), backgroundColor: COLOURS.balance, yAxisID: 'y2' },
    { type: 'bar', label: t(lang, 'totals.balanceInitial'), data: series(i, 'balance'), backgroundColor: '#7d9bc7', yAxisID: 'y2' },
  ];
  if (outturn) {
    datasets.push(line('totals.expensesOutturn', series(o, 'total_expenses'), COLOURS.other), line('totals.resourcesOutturn', series(o, 'total_resources'), COLOURS.debt));
  }
  const v = (value: number | null | undefined) => formatValue(ctx.fmt, unit, value);
  const current = state.year === undefined ? undefined : a.get(state.year);
  const columns = [
    t(lang, 'col.year'),
    t(lang, 'totals.expensesInitial'),
    t(lang, 'totals.expensesAmended'),
    t(lang, 'totals.resourcesInitial'),
    t(lang, 'totals.resourcesAmended'),
    t(lang, 'totals.balanceInitial'),
    t(lang, 'totals.balanceAmended'),
    ...(outturn ? [t(lang, 'totals.expensesOutturn'), t(lang, 'totals.resourcesOutturn')] : []),
  ];
  return figure(ctx, {
    id: 'totals',
    title: t(lang, 'totals.title'),
    summary: current
      ? t(lang, 'totals.summary', { year: current.year, expenses: v(current.total_expenses), resources: v(current.total_resources), balance: v(current.balance) })
      : t(lang, 'noDataYear', { year: state.year ?? '' }),
    chart: years.length ? { type: 'line', labels: years, datasets, unit, secondAxis: true } : undefined,
    table: {
      columns,
      numeric: columns.map((_, n) => n).slice(1),
      rows: years.map((y) => [
        String(y),
        v(i.get(y)?.total_expenses),
        v(a.get(y)?.total_expenses),
        v(i.get(y)?.total_resources),
        v(a.get(y)?.total_resources),
        v(i.get(y)?.balance),
        v(a.get(y)?.balance),
        ...(outturn ? [v(o.get(y)?.total_expenses), v(o.get(y)?.total_resources)] : []),
      ]),
    },
    answers: [amended, initial, ...(outturn ? [outturn] : [])],
  });
}

interface DeficitRow extends Provenanced {
  year: number;
  value: number | null;
  percent: number | null;
}
interface OutstandingRow extends Provenanced {
  year: number;
  value: number | null;
}

async function ratios(ctx: ViewContext): Promise<HTMLElement> {
  const { lang, state } = ctx;
  // Both series are ratios to GDP already: the measure does not apply, the stage does.
  const [deficit, outstanding] = await Promise.all([
    get<DeficitRow[]>('deficit/', choice(ctx, 'deficit/', { measure: false })),
    get<OutstandingRow[]>('outstanding-debt/', choice(ctx, 'outstanding-debt/', { measure: false })),
  ]);
  const years = [...new Set([...deficit.data, ...outstanding.data].map((r) => r.year))].sort((a, b) => a - b);
  const d = new Map(deficit.data.map((r) => [r.year, r]));
  const o = new Map(outstanding.data.map((r) => [r.year, r]));
  const prov = provenanceColumns(ctx, [...deficit.data, ...outstanding.data]);
  const highlight = (c: { dataIndex: number }) => (years[c.dataIndex] === state.year ? 6 : 2.5);
  const datasets: Dataset[] = [
    {
      type: 'line',
      label: t(lang, 'ratios.deficit'),
      data: years.map((y) => d.get(y)?.percent ?? null),
      borderColor: COLOURS.expenses,
      backgroundColor: COLOURS.expenses,
      pointRadius: highlight as unknown as number,
      provenance: years.map((y) => (d.has(y) ? prov.line(d.get(y)!) : undefined)) as Provenance,
    },
    {
      type: 'line',
      label: t(lang, 'ratios.debt'),
      data: years.map((y) => o.get(y)?.value ?? null),
      borderColor: COLOURS.debt,
      backgroundColor: COLOURS.debt,
      borderDash: [6, 4],
      pointRadius: highlight as unknown as number,
      provenance: years.map((y) => (o.has(y) ? prov.line(o.get(y)!) : undefined)) as Provenance,
    },
  ];
  const pct = ctx.fmt.percent;
  const year = state.year;
  const summary =
    year !== undefined && (d.has(year) || o.has(year))
      ? t(lang, 'ratios.summary', { year, deficit: pct(d.get(year)?.percent), debt: pct(o.get(year)?.value) })
      : t(lang, 'noDataYear', { year: year ?? '' });
  return figure(ctx, {
    id: 'ratios',
    title: t(lang, 'ratios.title'),
    summary,
    chart: years.length ? { type: 'line', labels: years, datasets, unit: { percent: true, label: '%' } } : undefined,
    table: {
      columns: [t(lang, 'col.year'), t(lang, 'ratios.deficit'), t(lang, 'ratios.debt'), ...prov.columns],
      numeric: [1, 2],
      rows: years.map((y) => [String(y), pct(d.get(y)?.percent), pct(o.get(y)?.value), ...prov.cells({ ...o.get(y), ...d.get(y) })]),
    },
    answers: [deficit, outstanding],
  });
}

// ---------------------------------------------------------------- drill-down (trees, debt)

interface Item extends Provenanced {
  id: number;
  name: string;
  amount: number | null;
  drillable: boolean;
}

/** A path of buttons back up the tree: the whole, then each level down to the current one. */
function trail(ctx: ViewContext, whole: string, ancestors: { id: number; name: string }[]): HTMLElement {
  const steps = [{ id: undefined as number | undefined, name: whole }, ...ancestors];
  return h(
    'nav',
    { class: 'trail', 'aria-label': whole },
    h(
      'ol',
      {},
      steps.map((step, i) =>
        i === steps.length - 1
          ? h('li', {}, h('span', { 'aria-current': 'location', tabindex: -1, 'data-focus': 'trail-current' }, step.name))
          : h('li', {}, h('button', { type: 'button', 'data-focus': `trail-${step.id ?? 'top'}`, onclick: () => ctx.navigate({ node: step.id }, 'trail-current') }, step.name)),
      ),
    ),
  );
}

function drillFigure(ctx: ViewContext, spec: { parentAmount?: number | null; otherYears?: number[]; id: string; title: string; whole: string; nameColumn: string; colour: string; items: Item[]; ancestors: { id: number; name: string }[]; unit: Unit; answers: Answer<unknown>[]; summaryKey: 'tree.summary' | 'debt.summary' }): HTMLElement {
  const { lang, state } = ctx;
  const { unit } = spec;
  const v = (value: number | null | undefined) => formatValue(ctx.fmt, unit, value);
  const parts = spec.items.reduce((sum, item) => sum + (item.amount ?? 0), 0);
  // A node's figure rolls up what is recorded at the node itself and under its children: the
  // part recorded at the node shows as one more, non-drillable, row.
  const total = spec.parentAmount ?? parts;
  const direct = Math.round((total - parts) * 1000) / 1000;
  const items: Item[] = direct > 0 ? [...spec.items, { id: -1, name: t(lang, 'tree.direct'), amount: direct, drillable: false }] : spec.items;
  const share = (amount: number | null) => (amount == null || total === 0 ? '—' : ctx.fmt.percent(Math.round((amount / total) * 10000) / 100));
  const drill = (item: Item) => ctx.navigate({ node: item.id }, 'trail-current');
  const prov = provenanceColumns(ctx, items);
  const here = spec.ancestors.at(-1)?.name ?? spec.whole;
  const nameCell = (item: Item) =>
    item.drillable
      ? h('button', { type: 'button', class: 'drill', 'data-focus': `item-${item.id}`, 'aria-label': t(lang, 'tree.open', { name: item.name }), onclick: () => drill(item) }, `▸ ${item.name}`)
      : item.name;
  const hasData = items.length > 0;
  return figure(ctx, {
    id: spec.id,
    title: spec.title,
    summary: hasData ? t(lang, spec.summaryKey, { name: here, amount: v(total), count: items.length }) : undefined,
    before: hasData || spec.ancestors.length ? trail(ctx, spec.whole, spec.ancestors) : undefined,
    chart: hasData
      ? {
          type: 'bar',
          horizontal: true,
          labels: items.map((item) => (item.drillable ? `▸ ${item.name}` : item.name)),
          datasets: [{ label: here, data: items.map((item) => item.amount), backgroundColor: spec.colour, provenance: items.map(prov.line) }],
          unit,
          onPick: (index) => items[index]?.drillable && drill(items[index]!),
        }
      : undefined,
    empty: t(lang, 'noDataYear', { year: state.year ?? '' }),
    after: !hasData && spec.otherYears?.length ? yearsWithData(ctx, spec.otherYears) : undefined,
    note: items.some((item) => item.drillable) ? t(lang, 'tree.hint') : undefined,
    table: {
      columns: [spec.nameColumn, t(lang, 'col.amount'), t(lang, 'col.share'), ...prov.columns],
      numeric: [1, 2],
      rows: items.map((item) => [nameCell(item), v(item.amount), share(item.amount), ...prov.cells(item)]),
    },
    tableOpen: true,
    answers: spec.answers,
  });
}

/** Buttons to the years that do have data, for a view empty in the chosen year. */
function yearsWithData(ctx: ViewContext, years: number[]): HTMLElement {
  return h(
    'p',
    { class: 'other-years' },
    `${t(ctx.lang, 'yearsWithData')} `,
    years.flatMap((year) => [h('button', { type: 'button', 'data-focus': `year-${year}`, onclick: () => ctx.navigate({ year }) }, year), ' ']),
  );
}

interface TreeNode extends Provenanced {
  id: number;
  name: string;
  amount: number | null;
  children: TreeNode[];
}

async function tree(ctx: ViewContext, kind: 'expenses' | 'resources'): Promise<HTMLElement> {
  const { lang, state } = ctx;
  const path = `${kind}/`;
  const answer = await get<{ results: TreeNode[] }>(path, { year: state.year, hierarchy: true, ...choice(ctx, path), limit: 1000 });
  const roots = answer.data.results;
  // The path from a root down to the node in the URL; the top level when it is not in this year's tree.
  const find = (nodes: TreeNode[], id: number): TreeNode[] | undefined => {
    for (const node of nodes) {
      if (node.id === id) return [node];
      const below = find(node.children, id);
      if (below) return [node, ...below];
    }
    return undefined;
  };
  let ancestors = state.node === undefined ? [] : (find(roots, state.node) ?? []);
  while (ancestors.length && ancestors.at(-1)!.children.length === 0) ancestors = ancestors.slice(0, -1);
  const level = ancestors.at(-1)?.children ?? roots;
  return drillFigure(ctx, {
    id: `tree-${kind}`,
    title: t(lang, kind === 'expenses' ? 'tree.expenses' : 'tree.resources', { year: state.year ?? '' }),
    whole: t(lang, 'tree.all'),
    nameColumn: t(lang, 'col.category'),
    colour: kind === 'expenses' ? COLOURS.expenses : COLOURS.resources,
    items: level.map((node) => ({ ...node, drillable: node.children.length > 0 })),
    parentAmount: ancestors.at(-1)?.amount,
    ancestors,
    unit: unitOf(ctx, answer),
    answers: [answer],
    summaryKey: 'tree.summary',
  });
}

interface DebtRow extends Provenanced {
  year: number;
  debt_origin: { id: number; parent: number | null; name: string };
  value: number | null;
}

async function debt(ctx: ViewContext): Promise<HTMLElement> {
  const { lang, state } = ctx;
  const params = choice(ctx, 'debt/');
  // The level shown (parent=…), and the whole year once to know which origins have children
  // and the names on the way up.
  const [level, year] = await Promise.all([
    get<DebtRow[]>('debt/', { year: state.year, parent: state.node ?? 'null', ...params }),
    get<DebtRow[]>('debt/', { year: state.year, ...params }),
  ]);
  // Debt is often published for other years than the budget: say which, when this one has none.
  const otherYears =
    level.data.length === 0 && state.node === undefined
      ? [...new Set((await get<DebtRow[]>('debt/', { parent: 'null', ...params })).data.map((row) => row.year))].sort((a, b) => b - a)
      : undefined;
  const origins = new Map(year.data.map((row) => [row.debt_origin.id, row.debt_origin]));
  const values = new Map(year.data.map((row) => [row.debt_origin.id, row.value]));
  const parents = new Set(year.data.map((row) => row.debt_origin.parent));
  const ancestors: { id: number; name: string }[] = [];
  for (let id = state.node ?? null; id !== null && origins.has(id); id = origins.get(id)!.parent) ancestors.unshift(origins.get(id)!);
  return drillFigure(ctx, {
    id: 'debt',
    otherYears,
    title: t(lang, 'debt.title', { year: state.year ?? '' }),
    whole: t(lang, 'debt.all'),
    nameColumn: t(lang, 'col.origin'),
    colour: COLOURS.debt,
    items: level.data.map((row) => ({ ...row, id: row.debt_origin.id, name: row.debt_origin.name, amount: row.value, drillable: parents.has(row.debt_origin.id) })),
    ancestors,
    parentAmount: state.node === undefined ? undefined : values.get(state.node),
    unit: unitOf(ctx, level),
    answers: [level],
    summaryKey: 'debt.summary',
  });
}

// ---------------------------------------------------------------- organizations

interface StatsRow extends Provenanced {
  organization_id: number;
  total_expenses: number | null;
  total_resources: number | null;
}
interface Organization {
  id: number;
  name: string;
  code: string;
  budget: { year: number; expenses: number | null; resources: number | null }[];
}

/** The ranking for the year, and the chosen organization's budget over the years. */
function organizations(ctx: ViewContext): Promise<HTMLElement>[] {
  const { lang, state } = ctx;
  const loaded = Promise.all([
    get<StatsRow[]>('organization/stats/', { year: state.year, ...choice(ctx, 'organization/stats/') }),
    getAll<Organization>('organization/', choice(ctx, 'organization/', { measure: false })),
  ]);
  const ranking = loaded.then(([stats, list]) => {
    const names = new Map(list.data.map((org) => [org.id, org.name]));
    const unit = unitOf(ctx, stats);
    const v = (value: number | null | undefined) => formatValue(ctx.fmt, unit, value);
    const ranked = [...stats.data].sort((a, b) => (b.total_expenses ?? 0) - (a.total_expenses ?? 0) || a.organization_id - b.organization_id);
    const name = (row: StatsRow) => names.get(row.organization_id) ?? `#${row.organization_id}`;
    const shown = ranked.slice(0, 15);
    const prov = provenanceColumns(ctx, ranked);
    const top = ranked[0];
    return figure(ctx, {
      id: 'organizations',
      title: t(lang, 'orgs.title', { year: state.year ?? '' }),
      summary: top ? t(lang, 'orgs.summary', { count: ranked.length, year: state.year ?? '', name: name(top), amount: v(top.total_expenses) }) : undefined,
      chart: shown.length
        ? {
            type: 'bar',
            horizontal: true,
            labels: shown.map(name),
            datasets: [{ label: t(lang, 'col.expenses'), data: shown.map((row) => row.total_expenses), backgroundColor: COLOURS.expenses, provenance: shown.map(prov.line) }],
            unit,
            onPick: (index) => ctx.navigate({ org: shown[index]!.organization_id }, 'org-title'),
          }
        : undefined,
      empty: t(lang, 'noDataYear', { year: state.year ?? '' }),
      table: {
        columns: [t(lang, 'col.rank'), t(lang, 'col.organization'), t(lang, 'col.expenses'), t(lang, 'col.resources'), ...prov.columns],
        numeric: [2, 3],
        rows: ranked.map((row, i) => [
          String(i + 1),
          h(
            'button',
            { type: 'button', class: 'drill', 'data-focus': `org-${row.organization_id}`, 'aria-pressed': String(row.organization_id === chosenId(ranked)), title: t(lang, 'orgs.choose'), onclick: () => ctx.navigate({ org: row.organization_id }, 'org-title') },
            name(row),
          ),
          v(row.total_expenses),
          v(row.total_resources),
          ...prov.cells(row),
        ]),
      },
      tableOpen: true,
      answers: [stats, list],
    });
  });
  const chosenId = (ranked: StatsRow[]) => state.org ?? ranked[0]?.organization_id;
  const history = loaded.then(([stats, list]) => {
    const ranked = [...stats.data].sort((a, b) => (b.total_expenses ?? 0) - (a.total_expenses ?? 0) || a.organization_id - b.organization_id);
    const org = list.data.find((o) => o.id === chosenId(ranked));
    const unit: Unit = { percent: false, label: ctx.meta.units?.name ?? 'MDT' };
    const v = (value: number | null | undefined) => formatValue(ctx.fmt, unit, value);
    const budget = org?.budget ?? [];
    const spec: FigureSpec = {
      id: 'organization',
      title: org ? t(lang, 'org.title', { name: org.name }) : t(lang, 'org.hint'),
      chart: budget.length
        ? {
            type: 'bar',
            labels: budget.map((b) => b.year),
            datasets: [
              { label: t(lang, 'col.expenses'), data: budget.map((b) => b.expenses), backgroundColor: COLOURS.expenses },
              { label: t(lang, 'col.resources'), data: budget.map((b) => b.resources), backgroundColor: COLOURS.resources },
            ],
            unit,
          }
        : undefined,
      note: state.measure !== 'nominal' ? t(lang, 'measureNotApplied') : undefined,
      table: {
        columns: [t(lang, 'col.year'), t(lang, 'col.expenses'), t(lang, 'col.resources')],
        numeric: [1, 2],
        rows: budget.map((b) => [String(b.year), v(b.expenses), v(b.resources)]),
      },
      answers: [list],
    };
    const section = figure(ctx, spec);
    const heading = section.querySelector('h2')!;
    heading.tabIndex = -1;
    heading.dataset.focus = 'org-title';
    return section;
  });
  return [ranking, history];
}
