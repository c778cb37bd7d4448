/**
 * The five views of the explorer. Each asks the API for what it shows and returns its figures;
 * main.ts puts them on the page. Every request passes the reader's measure and stage only to the
 * endpoints whose OpenAPI parameters accept them.
 */
import { ApiError, get, getAll, type Answer } from './api.js';
import { choice, gapNotes, noDataAtStage, noMeasureFigure, provenanceColumns, unitOf, type Provenanced, type ViewContext } from './common.js';
import { h } from './dom.js';
import { COLOURS, figure, formatValue, type Dataset, type FigureSpec, type Unit } from './figure.js';
import { t } from './i18n.js';
import { deficit, financing, ratios, seriesNotes, stageCell } from './overview.js';
import { isForecast, latestOutturn, yearRange } from './series.js';
import type { State } from './state.js';

export type { ViewContext } from './common.js';

/** The figures of the state's view. */
export async function renderView(ctx: ViewContext): Promise<HTMLElement[]> {
  const views: Record<State['view'], () => Promise<HTMLElement>[]> = {
    overview: () => [deficit(ctx), financing(ctx), ratios(ctx)],
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
          : h(
              'li',
              {},
              h(
                'button',
                { type: 'button', 'data-focus': `trail-${step.id ?? 'top'}`, onclick: () => ctx.navigate({ node: step.id }, 'trail-current') },
                step.name,
              ),
            ),
      ),
    ),
  );
}

function drillFigure(
  ctx: ViewContext,
  spec: {
    table: string;
    parentAmount?: number | null;
    /** The top level's figure as the API sums it (totals/), rather than the sum of its rounded parts. */
    wholeAmount?: number | null;
    /** The stage of the node's own figure, for the part recorded at the node: a forecast stays marked one there. */
    parentStage?: string | null;
    otherYears?: number[];
    id: string;
    title: string;
    whole: string;
    nameColumn: string;
    colour: string;
    items: Item[];
    ancestors: { id: number; name: string }[];
    unit: Unit;
    answers: Answer<unknown>[];
    summaryKey: 'tree.summary' | 'debt.summary';
  },
): HTMLElement {
  const { lang, state } = ctx;
  const { unit } = spec;
  // A missing figure (a measure whose series the drop lacks that year) is "no data", never 0.
  const v = (value: number | null | undefined) => (value == null ? t(lang, 'noFigure') : formatValue(ctx.fmt, unit, value));
  // Under a measure, a year without its series has lines but no figures: nothing is drawn or summed from them.
  // (A level without items may still have its own figure: a debt origin whose parts have no row.)
  const hasFigures = spec.items.length ? spec.items.some((item) => item.amount != null) : spec.parentAmount != null;
  const parts = spec.items.reduce((sum, item) => sum + (item.amount ?? 0), 0);
  // A node's figure rolls up what is recorded at the node itself and under its children: the
  // part recorded at the node shows as one more, non-drillable, row.
  const total = hasFigures ? (spec.parentAmount === undefined ? (spec.wholeAmount ?? parts) : spec.parentAmount) : null;
  // Only a node records lines of its own: above the top level, what the total has beyond the parts is rounding.
  const direct = total == null || spec.parentAmount === undefined ? 0 : Math.round((total - parts) * 1000) / 1000;
  const items: Item[] =
    direct > 0
      ? [...spec.items, { id: -1, name: t(lang, 'tree.direct'), amount: direct, drillable: false, stage: spec.parentStage ?? spec.items[0]?.stage }]
      : spec.items;
  const share = (amount: number | null) =>
    amount == null || total == null ? t(lang, 'noFigure') : total === 0 ? '—' : ctx.fmt.percent(Math.round((amount / total) * 10000) / 100);
  const drill = (item: Item) => ctx.navigate({ node: item.id }, 'trail-current');
  const prov = provenanceColumns(ctx, items, state.year);
  // A law's figures for a year after the latest outturn are a forecast, said as the overview says it.
  const forecast = items.some((item) => item.stage && state.year !== undefined && isForecast(ctx.meta, state.year, item.stage));
  const latest = latestOutturn(ctx.meta);
  const here = spec.ancestors.at(-1)?.name ?? spec.whole;
  const nameCell = (item: Item) =>
    item.drillable
      ? h(
          'button',
          {
            type: 'button',
            class: 'drill',
            'data-focus': `item-${item.id}`,
            'aria-label': t(lang, 'tree.open', { name: item.name }),
            onclick: () => drill(item),
          },
          `▸ ${item.name}`,
        )
      : item.name;
  const hasData = items.length > 0 && hasFigures;
  return figure(ctx, {
    id: spec.id,
    title: spec.title,
    summary: hasData
      ? t(lang, items.length === 1 ? `${spec.summaryKey}One` : spec.summaryKey, { name: here, amount: v(total), count: items.length }) +
        (forecast ? ` ${t(lang, 'deficit.forecast')}` : '')
      : undefined,
    before: items.length || spec.ancestors.length ? trail(ctx, spec.whole, spec.ancestors) : undefined,
    chart: hasData
      ? {
          type: 'bar',
          horizontal: true,
          labels: items.map((item) => (item.drillable ? `▸ ${item.name}` : item.name)),
          datasets: [
            {
              label: here,
              data: items.map((item) => item.amount),
              backgroundColor: forecast ? `${spec.colour}66` : spec.colour,
              provenance: items.map(prov.line),
            },
          ],
          unit,
          onPick: (index) => items[index]?.drillable && drill(items[index]!),
        }
      : undefined,
    empty: items.length ? noMeasureFigure(ctx, state.year) : noDataAtStage(ctx, [spec.table]),
    after: !items.length && spec.otherYears?.length ? yearsWithData(ctx, spec.otherYears) : undefined,
    note: items.some((item) => item.drillable) ? t(lang, 'tree.hint') : undefined,
    notes: [...(forecast && latest !== undefined ? [t(lang, 'forecastNote', { year: latest })] : []), ...gapNotes(ctx, [spec.table])],
    table: {
      columns: [spec.nameColumn, t(lang, 'col.amount'), t(lang, 'col.share'), ...prov.columns],
      numeric: [1, 2],
      rows: items.map((item) => [nameCell(item), v(item.amount), share(item.amount), ...prov.cells(item)]),
    },
    tableOpen: true,
    sourceIds: items.map((item) => item.source_id),
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
  // The top level's figure is totals/'s, so that the year's total reads as the overview and the API
  // give it: under a measure each part is rounded, and their sum may be a cent off.
  const [answer, totals] = await Promise.all([
    get<{ results: TreeNode[] }>(path, { year: state.year, hierarchy: true, ...choice(ctx, path), limit: 1000 }),
    get<{ total_expenses: number | null; total_resources: number | null }[]>('totals/', { year: state.year, ...choice(ctx, 'totals/') }),
  ]);
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
  // Nodes carry no stage: theirs is the one asked for (the amended law by default), given to the
  // table only where it is a forecast, which nothing else in the rows would say.
  const stage = state.stage ?? 'amended';
  const forecast = state.year !== undefined && isForecast(ctx.meta, state.year, stage);
  return drillFigure(ctx, {
    id: `tree-${kind}`,
    table: kind,
    title: t(lang, kind === 'expenses' ? 'tree.expenses' : 'tree.resources', { year: state.year ?? '' }),
    whole: t(lang, 'tree.all'),
    nameColumn: t(lang, 'col.category'),
    colour: kind === 'expenses' ? COLOURS.expenses : COLOURS.resources,
    items: level.map((node) => ({ ...node, drillable: node.children.length > 0, ...(forecast ? { stage } : {}) })),
    parentAmount: ancestors.at(-1)?.amount,
    wholeAmount: totals.data[0]?.[kind === 'expenses' ? 'total_expenses' : 'total_resources'],
    ancestors,
    unit: unitOf(ctx, answer),
    answers: ancestors.length ? [answer] : [answer, totals],
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
    table: 'debt',
    otherYears,
    title: t(lang, 'debt.title', { year: state.year ?? '' }),
    whole: t(lang, 'debt.all'),
    nameColumn: t(lang, 'col.origin'),
    colour: COLOURS.debt,
    items: level.data.map((row) => ({
      ...row,
      id: row.debt_origin.id,
      name: row.debt_origin.name,
      amount: row.value,
      drillable: parents.has(row.debt_origin.id),
    })),
    ancestors,
    parentAmount: state.node === undefined ? undefined : values.get(state.node),
    parentStage: year.data.find((row) => row.debt_origin.id === state.node)?.stage,
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
  source_ids?: number[];
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
    // No bar and no claim from an empty figure: a row without expenses (a measure without its
    // series that year) is in the table as "no data", not in the chart or the sentence.
    const shown = ranked.filter((row) => row.total_expenses != null).slice(0, 15);
    const prov = provenanceColumns(ctx, ranked, state.year);
    const top = shown[0];
    const forecast = ranked.some((row) => row.stage && state.year !== undefined && isForecast(ctx.meta, state.year, row.stage));
    return figure(ctx, {
      id: 'organizations',
      title: t(lang, 'orgs.title', { year: state.year ?? '' }),
      summary: top
        ? t(lang, 'orgs.summary', { count: ranked.length, year: state.year ?? '', name: name(top), amount: v(top.total_expenses) }) +
          (forecast ? ` ${t(lang, 'deficit.forecast')}` : '')
        : undefined,
      chart: shown.length
        ? {
            type: 'bar',
            horizontal: true,
            labels: shown.map(name),
            datasets: [
              {
                label: t(lang, 'col.expenses'),
                data: shown.map((row) => row.total_expenses),
                backgroundColor: forecast ? `${COLOURS.expenses}66` : COLOURS.expenses,
                provenance: shown.map(prov.line),
              },
            ],
            unit,
            onPick: (index) => ctx.navigate({ org: shown[index]!.organization_id }, 'org-title'),
          }
        : undefined,
      empty: ranked.length ? noMeasureFigure(ctx, state.year) : noDataAtStage(ctx, ['expenses', 'resources']),
      notes: [
        ...(forecast && latestOutturn(ctx.meta) !== undefined ? [t(lang, 'forecastNote', { year: latestOutturn(ctx.meta)! })] : []),
        ...gapNotes(ctx, ['expenses', 'resources', 'organizations']),
      ],
      table: {
        columns: [t(lang, 'col.rank'), t(lang, 'col.organization'), t(lang, 'col.expenses'), t(lang, 'col.resources'), ...prov.columns],
        numeric: [2, 3],
        rows: ranked.map((row, i) => [
          String(i + 1),
          h(
            'button',
            {
              type: 'button',
              class: 'drill',
              'data-focus': `org-${row.organization_id}`,
              'aria-pressed': String(row.organization_id === chosenId(ranked)),
              title: t(lang, 'orgs.choose'),
              onclick: () => ctx.navigate({ org: row.organization_id }, 'org-title'),
            },
            name(row),
          ),
          row.total_expenses == null ? t(lang, 'noFigure') : v(row.total_expenses),
          row.total_resources == null ? t(lang, 'noFigure') : v(row.total_resources),
          ...prov.cells(row),
        ]),
      },
      tableOpen: true,
      sourceIds: ranked.flatMap((row) => row.source_ids ?? []),
      answers: [stats, list],
    });
  });
  const chosenId = (ranked: StatsRow[]) => state.org ?? ranked[0]?.organization_id;
  const history = loaded.then(([stats, list]) => {
    const ranked = [...stats.data].sort((a, b) => (b.total_expenses ?? 0) - (a.total_expenses ?? 0) || a.organization_id - b.organization_id);
    const org = list.data.find((o) => o.id === chosenId(ranked));
    const unit: Unit = { percent: false, label: ctx.meta.units?.name ?? '' };
    const v = (value: number | null | undefined) => formatValue(ctx.fmt, unit, value);
    const budget = org?.budget ?? [];
    // Every year from the first to the last on the axis, a year without the organization's lines
    // as a gap: an evenly spaced list of the years it has would hide the years between.
    const years = yearRange(budget.map((b) => b.year));
    const byYear = new Map(budget.map((b) => [b.year, b]));
    // The rows carry no stage: theirs is the one asked for, the amended law by default.
    const stage = state.stage ?? 'amended';
    const rows = budget.map((b) => ({ year: b.year, stage }));
    const fade = (colour: string) => (c: { dataIndex: number }) =>
      byYear.has(years[c.dataIndex]!) && isForecast(ctx.meta, years[c.dataIndex]!, stage) ? `${colour}66` : colour;
    const bars = (label: string, value: (b: Organization['budget'][number]) => number | null, colour: string): Dataset => ({
      label,
      data: years.map((x) => ({ x, y: byYear.has(x) ? value(byYear.get(x)!) : null })),
      backgroundColor: fade(colour) as unknown as string,
    });
    const cell = (value: number | null | undefined) => (value == null ? t(lang, 'noFigure') : v(value));
    const spec: FigureSpec = {
      id: 'organization',
      title: org ? t(lang, 'org.title', { name: org.name }) : t(lang, 'org.hint'),
      chart: budget.length
        ? {
            type: 'bar',
            labels: [],
            datasets: [
              bars(t(lang, 'col.expenses'), (b) => b.expenses, COLOURS.expenses),
              bars(t(lang, 'col.resources'), (b) => b.resources, COLOURS.resources),
            ],
            unit,
            time: true,
          }
        : undefined,
      note: state.measure !== 'nominal' ? t(lang, 'measureNotApplied') : undefined,
      notes: seriesNotes(ctx, ['expenses', 'resources'], rows, years, stage),
      table: {
        columns: [t(lang, 'col.year'), t(lang, 'col.expenses'), t(lang, 'col.resources'), t(lang, 'col.stage')],
        numeric: [1, 2],
        rows: years.map((y) => {
          const b = byYear.get(y);
          return [String(y), cell(b?.expenses), cell(b?.resources), b ? stageCell(ctx, { year: y, stage }) : ''];
        }),
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
