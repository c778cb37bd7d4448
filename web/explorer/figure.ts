/**
 * One figure of the page: a title, a one-sentence summary, the chart (a Chart.js canvas), its
 * data as a table (the chart's text alternative), and under it where the data comes from: the
 * drop's source and version, and the exact API URLs with their CSV.
 */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
  type ChartDataset,
} from 'chart.js';
import type { Answer, Meta } from './api.js';
import { h } from './dom.js';
import { t, type Formatter, type Lang } from './i18n.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Tooltip, Legend);

/** Colours with at least 4.5:1 contrast on white, told apart by more than hue (dashes, bars). */
export const COLOURS = { expenses: '#b3261e', resources: '#1b5e20', balance: '#1d4f91', debt: '#6a1b9a', other: '#8a4b08' };

export interface Context {
  lang: Lang;
  fmt: Formatter;
  meta: Meta;
  /** Charts drawn by the current render, destroyed before the next one. */
  charts: Chart[];
  /** Charts to draw once the render is in the document (Chart.js measures its box). */
  pending: (() => void)[];
  /** Called once a chart is on screen (the page marks its first one). */
  drawn(): void;
}

/** How the values of a figure read: amounts with a unit, or percentages. */
export interface Unit {
  percent: boolean;
  label: string;
}

export function formatValue(fmt: Formatter, unit: Unit, value: number | null | undefined): string {
  return unit.percent ? fmt.percent(value) : fmt.amount(value, unit.label);
}

/** Per point of a dataset: its stage and source, when the API's rows carry them. */
export type Provenance = (string | undefined)[];
export type Dataset = ChartDataset<'bar' | 'line', (number | null)[]> & { provenance?: Provenance };

export interface Table {
  columns: string[];
  rows: (string | number | Node)[][];
  /** Columns that hold numbers (right-aligned). */
  numeric?: number[];
}

export interface FigureSpec {
  id: string;
  title: string;
  summary?: string;
  /** Controls above the chart (a drill-down path). */
  before?: Node;
  /** undefined: the figure has no data, and says so. */
  chart?: {
    type: 'bar' | 'line';
    labels: (string | number)[];
    datasets: Dataset[];
    unit: Unit;
    horizontal?: boolean;
    /** Datasets on a second value axis at the right (yAxisID 'y2'), for figures of another size. */
    secondAxis?: boolean;
    onPick?: (index: number) => void;
  };
  empty?: string;
  /** Shown under the chart or the empty message. */
  after?: Node;
  table?: Table;
  /** The table is shown open rather than folded (when it is also the way to drill down). */
  tableOpen?: boolean;
  note?: string;
  answers: Answer<unknown>[];
}

export function figure(ctx: Context, spec: FigureSpec): HTMLElement {
  const titleId = `${spec.id}-title`;
  const section = h('section', { class: 'figure', id: spec.id, 'aria-labelledby': titleId }, h('h2', { id: titleId }, spec.title));
  if (spec.summary) section.append(h('p', { class: 'summary' }, spec.summary));
  if (spec.before) section.append(spec.before);
  if (spec.chart && spec.chart.labels.length > 0) {
    const canvas = h('canvas', { role: 'img', 'aria-label': `${spec.title}. ${spec.summary ?? ''} ${t(ctx.lang, 'table')} ↓` });
    const box = h('div', { class: spec.chart.horizontal ? 'chart chart-bars' : 'chart' }, canvas);
    if (spec.chart.horizontal) box.style.height = `${Math.max(160, 36 * spec.chart.labels.length + 60)}px`;
    section.append(h('p', { class: 'unit' }, t(ctx.lang, 'unit', { unit: spec.chart.unit.percent ? '%' : spec.chart.unit.label })), box);
    ctx.pending.push(() => draw(ctx, canvas, spec.chart!));
  } else {
    section.append(h('p', { class: 'empty', role: 'status' }, spec.empty ?? t(ctx.lang, 'noData')));
  }
  if (spec.after) section.append(spec.after);
  if (spec.note) section.append(h('p', { class: 'note' }, spec.note));
  if (spec.table && spec.table.rows.length > 0) {
    const details = h('details', { class: 'table', open: spec.tableOpen }, h('summary', {}, t(ctx.lang, 'table')), table(spec.table));
    section.append(details);
  }
  section.append(provenance(ctx, spec.answers));
  return section;
}

function draw(ctx: Context, canvas: HTMLCanvasElement, chart: NonNullable<FigureSpec['chart']>): void {
  const { fmt } = ctx;
  const value = (v: number) => formatValue(fmt, chart.unit, v);
  // Value axes start at zero, so that bar lengths and line heights compare honestly.
  const valueAxis = { beginAtZero: true, ticks: { callback: (v: string | number) => (chart.unit.percent ? fmt.percent(Number(v)) : fmt.tick(Number(v))) } };
  const config: ChartConfiguration<'bar' | 'line', (number | null)[], string | number> = {
    type: chart.type,
    data: { labels: chart.labels, datasets: chart.datasets },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      indexAxis: chart.horizontal ? 'y' : 'x',
      interaction: { mode: chart.horizontal ? 'nearest' : 'index', intersect: Boolean(chart.horizontal) },
      scales: chart.horizontal
        ? {
            x: valueAxis,
            y: {
              ticks: {
                autoSkip: false,
                // Long names would squeeze the bars to nothing on a phone.
                callback(_v, i) {
                  return shorten(String(chart.labels[i]), this.chart.width < 500 ? 18 : 34);
                },
              },
            },
          }
        : chart.secondAxis
          ? { y: valueAxis, y2: { ...valueAxis, position: 'right', grid: { drawOnChartArea: false } } }
          : { y: valueAxis },
      plugins: {
        legend: { display: chart.datasets.length > 1, position: 'bottom' },
        tooltip: {
          callbacks: {
            label: (item) => `${item.dataset.label ?? ''}: ${value(item.parsed[chart.horizontal ? 'x' : 'y'] as number)}`,
            footer: (items) =>
              items
                .map((item) => (item.dataset as Dataset).provenance?.[item.dataIndex])
                .filter((line): line is string => Boolean(line)),
          },
        },
      },
      onClick: chart.onPick
        ? (_event, elements) => {
            const picked = elements[0];
            if (picked) chart.onPick!(picked.index);
          }
        : undefined,
    },
  };
  ctx.charts.push(new Chart(canvas, config));
  ctx.drawn();
}

function shorten(label: string, length: number): string {
  return label.length > length ? `${label.slice(0, length - 1)}…` : label;
}

function table({ columns, rows, numeric = [] }: Table): HTMLTableElement {
  const align = (i: number) => (numeric.includes(i) ? 'num' : undefined);
  return h(
    'table',
    {},
    h('thead', {}, h('tr', {}, columns.map((c, i) => h('th', { scope: 'col', class: align(i) }, c)))),
    h('tbody', {}, rows.map((row) => h('tr', {}, row.map((cell, i) => (i === 0 ? h('th', { scope: 'row' }, cell) : h('td', { class: align(i) }, cell)))))),
  );
}

function provenance(ctx: Context, answers: Answer<unknown>[]): HTMLElement {
  const { meta, lang } = ctx;
  return h(
    'div',
    { class: 'provenance' },
    h('p', {}, t(lang, 'dataSource', { source: meta.source ?? meta.description, version: meta.version })),
    h(
      'ul',
      {},
      answers.map((answer) =>
        h(
          'li',
          {},
          `${t(lang, 'apiLink')}: `,
          h('a', { href: answer.url, class: 'api-url' }, answer.url),
          ' · ',
          h('a', { href: answer.csvUrl, class: 'csv-url' }, t(lang, 'csvLink')),
        ),
      ),
    ),
  );
}
