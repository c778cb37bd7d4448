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
import type { Answer, Meta, Source } from './api.js';
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
  /** The drop's sources by id, when the API lists them (`sources/`). */
  sources: Map<number, Source>;
  /** The page of one chart alone (for an iframe), with the reader's state in its URL. */
  embedUrl(figureId: string): string;
  /** True on the embed page: the chart alone, no controls, no table. */
  embed: boolean;
}

/** How the values of a figure read: amounts with a unit, or percentages. */
export interface Unit {
  percent: boolean;
  label: string;
  /** What a percentage is of, said after each one ("of GDP"): "6.26%" alone would read as a share of the whole. */
  of?: string;
}

export function formatValue(fmt: Formatter, unit: Unit, value: number | null | undefined): string {
  if (!unit.percent) return fmt.amount(value, unit.label);
  return unit.of && value != null ? `${fmt.percent(value)} ${unit.of}` : fmt.percent(value);
}

/** Per point of a dataset: its stage and source, when the API's rows carry them. */
export type Provenance = (string | undefined)[];
/** A value, or a point of a time series: x is the year, on a true time scale. */
export type Datum = number | null | { x: number; y: number | null };
export type Dataset = ChartDataset<'bar' | 'line', Datum[]> & { provenance?: Provenance };

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
  /** The figure's lead, in large type, above the summary (the overview's deficit). */
  headline?: Node;
  /** Controls above the chart (a drill-down path). */
  before?: Node;
  /** undefined: the figure has no data, and says so. */
  chart?: {
    type: 'bar' | 'line';
    labels: (string | number)[];
    datasets: Dataset[];
    unit: Unit;
    horizontal?: boolean;
    /** x is the year, on a linear (true time) scale: datasets hold {x, y} points, labels are unused. */
    time?: boolean;
    /** Bars stacked (datasets of the same `stack`). */
    stacked?: boolean;
    onPick?: (index: number) => void;
  };
  empty?: string;
  /** Shown under the chart or the empty message. */
  after?: Node;
  table?: Table;
  /** The table is shown open rather than folded (when it is also the way to drill down). */
  tableOpen?: boolean;
  note?: string;
  /** More notes under the chart: known gaps, forecasts, stage bases. */
  notes?: (string | Node)[];
  /** The ids of the sources behind the figures drawn, shown by title and publisher, linked. */
  sourceIds?: (number | null | undefined)[];
  answers: Answer<unknown>[];
}

export function figure(ctx: Context, spec: FigureSpec): HTMLElement {
  const titleId = `${spec.id}-title`;
  const section = h('section', { class: 'figure', id: spec.id, 'aria-labelledby': titleId }, h('h2', { id: titleId }, spec.title));
  if (spec.headline) section.append(spec.headline);
  if (spec.summary) section.append(h('p', { class: 'summary' }, spec.summary));
  if (spec.before && !ctx.embed) section.append(spec.before);
  const sourceLine = sourcesLine(ctx, spec.sourceIds ?? []);
  if (spec.chart && (spec.chart.time ? spec.chart.datasets.some((d) => d.data.length > 0) : spec.chart.labels.length > 0)) {
    const canvas = h('canvas', { role: 'img', 'aria-label': `${spec.title}. ${spec.summary ?? ''} ${ctx.embed ? '' : `${t(ctx.lang, 'table')} ↓`}` });
    const box = h('div', { class: spec.chart.horizontal ? 'chart chart-bars' : 'chart' }, canvas);
    if (spec.chart.horizontal) box.style.height = `${Math.max(160, 36 * spec.chart.labels.length + 60)}px`;
    const unitLine = t(ctx.lang, 'unit', { unit: spec.chart.unit.label || (spec.chart.unit.percent ? '%' : t(ctx.lang, 'unit.unstated')) });
    section.append(h('p', { class: 'unit' }, unitLine), box);
    ctx.pending.push(() => draw(ctx, canvas, spec.chart!));
    if (!ctx.embed) section.append(chartActions(ctx, spec, canvas, unitLine, sourceLine.textContent ?? ''));
  } else {
    section.append(h('p', { class: 'empty', role: 'status' }, spec.empty ?? t(ctx.lang, 'noData')));
  }
  if (spec.after && !ctx.embed) section.append(spec.after);
  if (spec.note) section.append(h('p', { class: 'note' }, spec.note));
  for (const note of spec.notes ?? []) section.append(note instanceof HTMLDetailsElement ? note : h('p', { class: 'note' }, note));
  if (spec.table && spec.table.rows.length > 0 && !ctx.embed) {
    const details = h('details', { class: 'table', open: spec.tableOpen }, h('summary', {}, t(ctx.lang, 'table')), table(spec.table));
    section.append(details);
  }
  section.append(provenance(ctx, spec.answers, sourceLine));
  return section;
}

/**
 * "Embed" (the chart alone, for an iframe), "PNG" (the chart as drawn, as an image file) and
 * "Cite" (the permanent address of the data behind it, under the release that answered it).
 */
function chartActions(ctx: Context, spec: FigureSpec, canvas: HTMLCanvasElement, unitText: string, sourceText: string): HTMLElement {
  const png = h(
    'button',
    { type: 'button', class: 'png', 'aria-label': t(ctx.lang, 'pngLabel'), title: t(ctx.lang, 'pngLabel') },
    t(ctx.lang, 'png'),
  );
  png.addEventListener('click', () => downloadPng(canvas, spec.title, unitText, sourceText, `${spec.id}.png`));
  // A chart drawn from several answers has a Cite link for each under it (provenance), not one here.
  const permalink = spec.answers.length === 1 ? spec.answers[0]!.permalink : undefined;
  const cite = permalink ? [' ', h('a', { class: 'cite-link', href: permalink, title: t(ctx.lang, 'citeLabel') }, t(ctx.lang, 'cite'))] : [];
  return h('p', { class: 'actions' }, h('a', { class: 'embed-link', href: ctx.embedUrl(spec.id) }, t(ctx.lang, 'embed')), ' ', png, ...cite);
}

/**
 * The chart as drawn, on white, with its title and unit above and its source line under it, so
 * that the image read alone still says what it shows, in what, and where it comes from.
 */
export function pngOf(canvas: HTMLCanvasElement, title: string, unitText: string, sourceText: string): HTMLCanvasElement {
  const scale = canvas.width / Math.max(1, canvas.clientWidth || canvas.width);
  const pad = Math.round(12 * scale);
  const titleSize = Math.round(18 * scale);
  const noteSize = Math.round(12 * scale);
  const titleFont = `600 ${titleSize}px system-ui, sans-serif`;
  const noteFont = `${noteSize}px system-ui, sans-serif`;
  const out = document.createElement('canvas');
  out.width = canvas.width + 2 * pad;
  const width = out.width - 2 * pad;
  // Long titles and source lines are wrapped, never squeezed into the width (unreadable).
  const titleLines = wrapped(out.getContext('2d')!, titleFont, title, width);
  const noteLines = wrapped(out.getContext('2d')!, noteFont, sourceText, width);
  const unitLines = wrapped(out.getContext('2d')!, noteFont, unitText, width);
  const titleHeight = titleLines.length * titleSize * 1.3 + unitLines.length * noteSize * 1.4 + titleSize * 0.3;
  out.height = Math.ceil(canvas.height + 2 * pad + titleHeight + noteSize * 0.5 + noteLines.length * noteSize * 1.4);
  const g = out.getContext('2d')!;
  g.fillStyle = '#fff';
  g.fillRect(0, 0, out.width, out.height);
  g.fillStyle = '#1a1a1a';
  g.textBaseline = 'top';
  g.font = titleFont;
  titleLines.forEach((line, i) => g.fillText(line, pad, pad + i * titleSize * 1.3));
  g.fillStyle = '#4a4a4a';
  g.font = noteFont;
  unitLines.forEach((line, i) => g.fillText(line, pad, pad + titleLines.length * titleSize * 1.3 + i * noteSize * 1.4));
  g.drawImage(canvas, pad, pad + titleHeight);
  const notesAt = pad + titleHeight + canvas.height + noteSize * 0.5;
  noteLines.forEach((line, i) => g.fillText(line, pad, notesAt + i * noteSize * 1.4));
  return out;
}

/** `text` in lines that fit `width` in `font`, broken between words. */
function wrapped(g: CanvasRenderingContext2D, font: string, text: string, width: number): string[] {
  g.font = font;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const longer = line ? `${line} ${word}` : word;
    if (line && g.measureText(longer).width > width) {
      lines.push(line);
      line = word;
    } else line = longer;
  }
  if (line) lines.push(line);
  return lines;
}

function downloadPng(canvas: HTMLCanvasElement, title: string, unitText: string, sourceText: string, name: string): void {
  pngOf(canvas, title, unitText, sourceText).toBlob((blob) => {
    if (!blob) return;
    const url = URL.createObjectURL(blob);
    const link = h('a', { href: url, download: name, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }, 'image/png');
}

function draw(ctx: Context, canvas: HTMLCanvasElement, chart: NonNullable<FigureSpec['chart']>): void {
  const { fmt } = ctx;
  const value = (v: number) => formatValue(fmt, chart.unit, v);
  // Value axes start at zero, so that bar lengths and line heights compare honestly.
  const valueAxis = {
    beginAtZero: true,
    ticks: { callback: (v: string | number) => (chart.unit.percent ? fmt.percent(Number(v)) : fmt.tick(Number(v))) },
  };
  const config: ChartConfiguration<'bar' | 'line', Datum[], string | number> = {
    type: chart.type,
    data: chart.time ? { datasets: chart.datasets } : { labels: chart.labels, datasets: chart.datasets },
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
        : chart.time
          ? {
              // Years on a true time scale: 2010, 2013 and 2016 are not evenly spaced.
              x: {
                type: 'linear',
                offset: chart.type === 'bar',
                ticks: { stepSize: 1, precision: 0, callback: (v: string | number) => (Number.isInteger(Number(v)) ? String(v) : '') },
                stacked: chart.stacked,
              },
              y: { ...valueAxis, stacked: chart.stacked },
            }
          : { y: valueAxis },
      plugins: {
        legend: {
          display: chart.datasets.length > 1,
          position: 'bottom',
          labels: {
            // A line's key is a short line with its dashes, a bar's a box: a dashed box reads as neither.
            usePointStyle: true,
            pointStyleWidth: 28,
            generateLabels: (c) =>
              Chart.defaults.plugins.legend.labels.generateLabels(c).map((item) => {
                const dataset = c.data.datasets[item.datasetIndex ?? 0] as { type?: string; borderDash?: number[]; borderColor?: string };
                const line = (dataset.type ?? chart.type) === 'line';
                // With point styles, Chart.js takes the key's style from the first point, which has no dashes.
                return line
                  ? {
                      ...item,
                      pointStyle: 'line',
                      lineWidth: 3,
                      lineDash: dataset.borderDash ?? [],
                      strokeStyle: dataset.borderColor ?? item.strokeStyle,
                    }
                  : { ...item, pointStyle: 'rect' };
              }),
          },
        },
        tooltip: {
          callbacks: {
            title: chart.time ? (items) => String(items[0]?.parsed.x ?? '') : undefined,
            label: (item) => `${item.dataset.label ?? ''}: ${value(item.parsed[chart.horizontal ? 'x' : 'y'] as number)}`,
            footer: (items) =>
              items.map((item) => (item.dataset as Dataset).provenance?.[item.dataIndex]).filter((line): line is string => Boolean(line)),
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
  const drawn = new Chart(canvas, config);
  // The browser tests read the chart's scales and points from here (test/explorer-page.test.ts).
  (canvas as HTMLCanvasElement & { chart?: Chart }).chart = drawn;
  ctx.charts.push(drawn);
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
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map((c, i) => h('th', { scope: 'col', class: align(i) }, c)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((row) =>
        h(
          'tr',
          {},
          row.map((cell, i) => (i === 0 ? h('th', { scope: 'row' }, cell) : h('td', { class: align(i) }, cell))),
        ),
      ),
    ),
  );
}

/**
 * The sources behind a figure, by title and publisher, each linked to its document where the drop
 * gives an address; without sources, the drop's version.
 */
function sourcesLine(ctx: Context, ids: (number | null | undefined)[]): HTMLElement {
  const { lang, meta } = ctx;
  const known = [...new Set(ids.filter((id): id is number => id != null))];
  if (known.length === 0) return h('p', { class: 'sources' }, t(lang, 'dataVersion', { version: meta.version }));
  const shown = known.slice(0, 4);
  const items = shown.flatMap((id, i) => {
    const source = ctx.sources.get(id);
    const name = source ? source.title + (source.publisher ? ` (${source.publisher})` : '') : `#${id}`;
    const url = source?.url;
    const item = url && /^https?:\/\//.test(url) ? h('a', { href: url, rel: 'noopener', class: 'source-link' }, name) : h('span', {}, name);
    return i === 0 ? [item] : ['; ', item];
  });
  const more = known.length - shown.length;
  return h(
    'p',
    { class: 'sources' },
    `${t(lang, 'sources')} `,
    items,
    more > 0 ? ['; ', h('a', { href: '/budget/api/sources/' }, t(lang, 'sourcesMore', { count: more }))] : null,
    `. ${t(lang, 'dataVersion', { version: meta.version })}`,
  );
}

function provenance(ctx: Context, answers: Answer<unknown>[], sourceLine: HTMLElement): HTMLElement {
  const { lang } = ctx;
  if (ctx.embed) return h('div', { class: 'provenance' }, sourceLine);
  return h(
    'div',
    { class: 'provenance' },
    sourceLine,
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
          ...(answers.length > 1 && answer.permalink
            ? [' · ', h('a', { href: answer.permalink, class: 'cite-url', title: t(lang, 'citeLabel') }, t(lang, 'cite'))]
            : []),
        ),
      ),
    ),
  );
}
