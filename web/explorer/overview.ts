/**
 * The overview, as a newspaper would lead: the selected year's deficit as `deficit/` gives it
 * (its stage said), then how the spending is financed (own resources against borrowing, from
 * the resource category tree), then the deficit and the debt as % of GDP over the years.
 *
 * Every series is drawn over a true time scale, a year without figures as a gap (never a zero),
 * a law's figure for a year after the latest outturn as a forecast (hollow point, lighter bar),
 * and stages that `/meta/` does not declare comparable as separate lines.
 */
import { get, getAll } from './api.js';
import { choice, noDataAtStage, noMeasureFigure, ofGdp, stageName, unitOf, type Provenanced, type ViewContext } from './common.js';
import { h } from './dom.js';
import { COLOURS, figure, formatValue, type Dataset, type Datum, type Unit } from './figure.js';
import { t } from './i18n.js';
import { coveredYears, isForecast, knownGaps, latestOutturn, stageBasis, stageGroups, yearRange, type SeriesStage } from './series.js';

interface SeriesRow extends Provenanced {
  year: number;
}
interface DeficitRow extends SeriesRow {
  value: number | null;
  percent: number | null;
}
interface OutstandingRow extends SeriesRow {
  value: number | null;
}
interface TotalsRow extends SeriesRow {
  total_expenses: number | null;
  total_resources: number | null;
  balance: number | null;
  source_ids?: number[];
}
interface TreeNode extends Provenanced {
  id: number;
  name: string;
  year: number;
  amount: number | null;
  children: TreeNode[];
}

/** Dashes tell stages apart whatever the colour: outturn solid, the laws dashed. */
const DASH: Record<string, number[] | undefined> = { outturn: undefined, initial: [6, 4], amended: [2, 3] };

/**
 * One line per group of comparable stages (series.ts), over every year of `years`: a year
 * without a figure of that group is null, so the line breaks there. Forecast points are hollow.
 */
function stagedLines<R extends SeriesRow>(
  ctx: ViewContext,
  rows: R[],
  value: (row: R) => number | null,
  years: number[],
  label: string,
  colour: string,
): Dataset[] {
  const byYear = new Map(rows.map((r) => [r.year, r]));
  const stages = [...new Set(rows.map((r) => r.stage ?? ''))];
  const groups = stageGroups(ctx.meta, stages);
  const selected = ctx.state.year;
  return groups.map((group) => {
    const data: Datum[] = years.map((year) => {
      const row = byYear.get(year);
      return { x: year, y: row && group.includes(row.stage ?? '') ? value(row) : null };
    });
    const forecastAt = (i: number) => {
      const row = byYear.get(years[i]!);
      return row !== undefined && Boolean(row.stage) && isForecast(ctx.meta, row.year, row.stage);
    };
    const names = group.filter(Boolean).map((s) => stageName(ctx, s));
    return {
      type: 'line',
      label: names.length && groups.length > 1 ? `${label} — ${names.join(' / ')}` : label,
      data,
      borderColor: colour,
      backgroundColor: colour,
      borderDash: DASH[group[0] ?? ''],
      spanGaps: false,
      pointRadius: ((c: { dataIndex: number }) => (years[c.dataIndex] === selected ? 6 : 3)) as unknown as number,
      pointBackgroundColor: ((c: { dataIndex: number }) => (forecastAt(c.dataIndex) ? '#fff' : colour)) as unknown as string,
      pointBorderWidth: 2,
    } satisfies Dataset;
  });
}

/** "no data" for a missing figure: a gap is never written as a zero or a dash a reader may take for one. */
function cell(ctx: ViewContext, unit: Unit, value: number | null | undefined): string {
  return value == null ? t(ctx.lang, 'noFigure') : formatValue(ctx.fmt, unit, value);
}

export function stageCell(ctx: ViewContext, row: SeriesRow | undefined): string {
  if (!row?.stage) return '';
  return isForecast(ctx.meta, row.year, row.stage) ? `${stageName(ctx, row.stage)} (${t(ctx.lang, 'col.forecast')})` : stageName(ctx, row.stage);
}

function sourceCell(ctx: ViewContext, id: number | null | undefined): string | Node {
  if (id == null) return '';
  const source = ctx.sources.get(id);
  const name = source ? source.title + (source.publisher ? ` (${source.publisher})` : '') : `#${id}`;
  return source?.url && /^https?:\/\//.test(source.url) ? h('a', { href: source.url, rel: 'noopener' }, name) : name;
}

/** The notes every series figure may need: forecasts, stages drawn apart and what each covers, known gaps. */
export function seriesNotes(ctx: ViewContext, tables: string[], rows: SeriesRow[], years: number[], stage: string | undefined): (string | Node)[] {
  const { lang, meta } = ctx;
  const notes: (string | Node)[] = [];
  const latest = latestOutturn(meta);
  if (latest !== undefined && rows.some((r) => r.stage && isForecast(meta, r.year, r.stage))) notes.push(t(lang, 'forecastNote', { year: latest }));
  const groups = stageGroups(meta, [...new Set(rows.map((r) => r.stage).filter((s): s is string => Boolean(s)))]);
  const stages = groups.flat();
  if (groups.length > 1) notes.push(t(lang, 'stagesApart', { stages: groups.map((g) => g.map((s) => stageName(ctx, s)).join(' / ')).join('; ') }));
  // One gap may be declared for several tables (expenses and resources): said once.
  const said = new Set<string>();
  for (const gap of knownGaps(meta, tables, stage, years)) {
    const text = t(lang, 'knownGap', {
      years: gap.years.join(', '),
      stage: gap.stage ? ` (${stageName(ctx, gap.stage)})` : '',
      reason: gap.reason[lang],
    });
    if (!said.has(text)) notes.push(h('span', { class: 'known-gap' }, text));
    said.add(text);
  }
  // What each stage covers can be long: folded, under the notes a reader needs first.
  const bases = stages.flatMap((s) => {
    const basis = stageBasis(meta, s, lang);
    return basis ? [h('p', { class: 'note' }, t(lang, 'basis', { stage: stageName(ctx, s), basis }))] : [];
  });
  if (bases.length) notes.push(h('details', { class: 'bases' }, h('summary', {}, t(lang, 'basesTitle')), bases));
  return notes;
}

/** The selected year first, then the others: the source line names the reader's year's source first. */
function sourcesFirst(rows: { year: number; ids: (number | null | undefined)[] }[], year: number | undefined): (number | null | undefined)[] {
  return [...rows.filter((r) => r.year === year), ...rows.filter((r) => r.year !== year)].flatMap((r) => r.ids);
}

// ---------------------------------------------------------------- the deficit, first

export async function deficit(ctx: ViewContext): Promise<HTMLElement> {
  const { lang, state, meta } = ctx;
  const answer = await get<DeficitRow[]>('deficit/', choice(ctx, 'deficit/'));
  const unit = unitOf(ctx, answer);
  const rows = answer.data;
  const years = yearRange(rows.map((r) => r.year));
  const byYear = new Map(rows.map((r) => [r.year, r]));
  const row = state.year === undefined ? undefined : byYear.get(state.year);
  const v = (value: number | null | undefined) => formatValue(ctx.fmt, unit, value);

  let headline: Node;
  let summary: string;
  if (row && row.value != null) {
    const law = row.stage === 'initial' || row.stage === 'amended';
    const surplus = row.value < 0;
    const amount = v(Math.abs(row.value));
    // A row without a stage is neither a plan nor an outturn: the sentence says neither.
    const key = law
      ? surplus
        ? 'deficit.surplusLaw'
        : 'deficit.headlineLaw'
      : row.stage === 'outturn'
        ? surplus
          ? 'deficit.surplusOutturn'
          : 'deficit.headlineOutturn'
        : surplus
          ? 'deficit.surplus.neutral'
          : 'deficit.headline';
    summary = t(lang, key, { year: row.year, amount, stage: law ? t(lang, `deficit.name.${row.stage as 'initial' | 'amended'}`) : '' });
    const forecast = row.stage ? isForecast(meta, row.year, row.stage) : false;
    const gaps = knownGaps(meta, ['deficit'], row.stage ?? undefined, [row.year]);
    // A surplus is told as a positive amount, and so is its share of GDP.
    const ratio = row.percent != null && !unit.percent ? t(lang, 'deficit.ofGdp', { percent: ctx.fmt.percent(Math.abs(row.percent)) }) : undefined;
    headline = h(
      'div',
      { class: 'headline' },
      h(
        'p',
        { class: 'big' },
        h('span', { class: 'big-number' }, amount),
        ' ',
        h('span', { class: 'big-label' }, `${t(lang, surplus ? 'deficit.surplus' : 'deficit.series')} ${row.year}`),
      ),
      h(
        'p',
        { class: 'headline-meta' },
        [ratio, row.stage ? stageName(ctx, row.stage) : undefined, forecast ? t(lang, 'col.forecast') : undefined].filter(Boolean).join(' · '),
      ),
      gaps.map((gap) => h('p', { class: 'note known-gap' }, gap.reason[lang])),
    );
    summary += ratio ? ` (${ratio}).` : '.';
    if (forecast) summary += ` ${t(lang, 'deficit.forecast')}`;
  } else {
    // A row without a value under a measure is a deficit whose measure lacks its series that year.
    summary =
      row && state.measure !== 'nominal'
        ? noMeasureFigure(ctx, state.year)
        : noDataAtStage(ctx, ['deficit'], t(lang, 'deficit.none', { year: state.year ?? '' }));
    const gaps = knownGaps(meta, ['deficit'], state.stage, state.year === undefined ? [] : [state.year]);
    // No number to lead with: the sentence says so in large type, and nothing is drawn from empty data.
    headline = h(
      'div',
      { class: 'headline' },
      h('p', { class: 'big big-none' }, summary),
      gaps.map((gap) => h('p', { class: 'note known-gap' }, gap.reason[lang])),
    );
    summary = '';
  }
  const datasets = stagedLines(ctx, rows, (r) => r.value, years, t(lang, 'deficit.series'), COLOURS.expenses);
  return figure(ctx, {
    id: 'deficit',
    title: t(lang, 'deficit.title'),
    headline,
    summary: summary || undefined,
    chart: rows.length ? { type: 'line', labels: [], datasets, unit, time: true } : undefined,
    empty: t(lang, 'noData'),
    notes: seriesNotes(ctx, ['deficit'], rows, years, state.stage),
    table: {
      columns: [t(lang, 'col.year'), t(lang, 'deficit.series'), t(lang, 'ratios.deficit'), t(lang, 'col.stage'), t(lang, 'col.source')],
      numeric: [1, 2],
      rows: years.map((y) => {
        const r = byYear.get(y);
        return [
          String(y),
          cell(ctx, unit, r?.value),
          r?.percent == null ? t(lang, 'noFigure') : ctx.fmt.percent(r.percent),
          stageCell(ctx, r),
          sourceCell(ctx, r?.source_id),
        ];
      }),
    },
    sourceIds: sourcesFirst(
      rows.map((r) => ({ year: r.year, ids: [r.source_id] })),
      state.year,
    ),
    answers: [answer],
  });
}

// ---------------------------------------------------------------- financing

type Part = 'tax' | 'nontax' | 'grants' | 'ownOther' | 'other' | 'borrowing';
const PARTS: Part[] = ['tax', 'nontax', 'grants', 'ownOther', 'other', 'borrowing'];
const OWN: Part[] = ['tax', 'nontax', 'grants', 'ownOther'];
const PART_COLOURS: Record<Part, string> = {
  tax: '#1b5e20',
  nontax: '#4c8c4a',
  grants: '#7cb342',
  ownOther: '#9ccc65',
  other: '#9e9e9e',
  borrowing: '#8a4b08',
};

/**
 * Which part of the financing a resource category is, by its name (French or English): the drop
 * has no such field, and Tunisian laws name these groups consistently. Order matters: "non
 * fiscales" before "fiscales". `own`: a group of own resources, split by its children.
 */
function kindOf(name: string): Part | 'own' | undefined {
  const n = name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  if (/emprunt|borrow|\bloans?\b|tresorerie|treasury|financement|financing/.test(n)) return 'borrowing';
  if (/non[- ]?fiscal|non[- ]?tax/.test(n)) return 'nontax';
  if (/\bdons?\b|grants?\b/.test(n)) return 'grants';
  if (/fiscal|impot|\btax|taxe|douane|\btva\b|\bvat\b/.test(n)) return 'tax';
  if (/propres|\bown\b|recettes du budget/.test(n)) return 'own';
  return undefined;
}

/** Years in lists of 50 at most, ascending. */
function inFifties(years: number[]): number[][] {
  const sorted = [...years].sort((a, b) => a - b);
  return Array.from({ length: Math.ceil(sorted.length / 50) }, (_, i) => sorted.slice(i * 50, i * 50 + 50));
}

/** A year list as the API takes it: a range when the years follow each other (`2016..2025`), else the list. */
function yearsParam(years: number[]): string {
  const [first, last] = [years[0]!, years.at(-1)!];
  if (years.length === 1) return String(first);
  return last - first + 1 === years.length ? `${first}..${last}` : years.join(',');
}

/**
 * A year's resource tree split into the parts of the financing, and the parts it has lines of.
 * `sums` is null when the tree has no figure (a measure whose series the drop lacks that year):
 * its parts are missing, not 0, and still have their columns.
 */
function split(roots: TreeNode[]): { sums: Record<Part, number> | null; seen: Set<Part> } {
  const sums: Record<Part, number> = { tax: 0, nontax: 0, grants: 0, ownOther: 0, other: 0, borrowing: 0 };
  const seen = new Set<Part>();
  const add = (part: Part, amount: number) => {
    sums[part] += amount;
    seen.add(part);
  };
  const walk = (node: TreeNode, inOwn: boolean) => {
    const amount = node.amount ?? 0;
    const kind = kindOf(node.name);
    if (kind && kind !== 'own') {
      add(kind, amount);
      return;
    }
    const own = inOwn || kind === 'own';
    if (node.children.length === 0) {
      add(own ? 'ownOther' : 'other', amount);
      return;
    }
    const below = node.children.reduce((sum, child) => sum + (child.amount ?? 0), 0);
    sums[own ? 'ownOther' : 'other'] += Math.round((amount - below) * 1000) / 1000;
    for (const child of node.children) walk(child, own);
  };
  for (const root of roots) walk(root, false);
  for (const part of PARTS) sums[part] = Math.round(sums[part] * 1000) / 1000;
  return { sums: roots.length > 0 && roots.every((root) => root.amount == null) ? null : sums, seen };
}

export async function financing(ctx: ViewContext): Promise<HTMLElement> {
  const { lang, state, meta } = ctx;
  const stage: SeriesStage = state.stage ?? 'amended';
  const params = choice(ctx, 'totals/');
  const totals = await get<TotalsRow[]>('totals/', params);
  const unit = unitOf(ctx, totals);
  const expenseYears = coveredYears(meta, 'expenses', stage);
  const resourceYears = coveredYears(meta, 'resources', stage);
  // totals/ has a row for a year with resource lines only, its expenses summing to 0: that 0 is a gap.
  const expensesOf = (row: TotalsRow | undefined) => (row && (!expenseYears || expenseYears.has(row.year)) ? row.total_expenses : null);
  const rowYears = totals.data.map((r) => r.year);
  const treeYears = rowYears.filter((y) => !resourceYears || resourceYears.has(y));
  const resourceParams = choice(ctx, 'resources/');
  // Every year's tree in one request (of 50 years at most, the API's bound on a year list), so that
  // the data behind every bar has its URL under the chart, not the chosen year's alone.
  const trees = await Promise.all(
    inFifties(treeYears).map((years) => getAll<TreeNode>('resources/', { year: yearsParam(years), hierarchy: true, ...resourceParams })),
  );
  const rootsOf = new Map(treeYears.map((year): [number, TreeNode[]] => [year, []]));
  for (const tree of trees) for (const root of tree.data) rootsOf.get(root.year)?.push(root);
  const splits = new Map(treeYears.map((year) => [year, split(rootsOf.get(year)!)]));
  const parts = new Map([...splits].map(([year, { sums }]) => [year, sums]));
  const years = yearRange(rowYears);
  const byYear = new Map(totals.data.map((r) => [r.year, r]));
  const shown = PARTS.filter((part) => [...splits.values()].some(({ sums, seen }) => (sums ? sums[part] !== 0 : seen.has(part))));
  const stageOf = (year: number) => byYear.get(year)?.stage ?? stage;
  const forecastYear = (year: number) => isForecast(meta, year, stageOf(year));
  const fade = (colour: string) => (c: { dataIndex: number }) => (forecastYear(years[c.dataIndex]!) ? `${colour}66` : colour);
  // Own resources not split by kind in any year are simply "own resources".
  const partLabel = (part: Part) =>
    t(lang, part === 'ownOther' && !shown.some((q) => q === 'tax' || q === 'nontax' || q === 'grants') ? 'financing.own' : `financing.${part}`);
  const datasets: Dataset[] = [
    ...shown.map((part): Dataset => ({
      type: 'bar',
      label: partLabel(part),
      data: years.map((x) => ({ x, y: parts.get(x)?.[part] ?? null })),
      backgroundColor: fade(PART_COLOURS[part]) as unknown as string,
      stack: 'resources',
      order: 2,
    })),
    {
      type: 'line',
      label: t(lang, 'financing.expenses'),
      data: years.map((x) => ({ x, y: expensesOf(byYear.get(x)) })),
      borderColor: COLOURS.expenses,
      backgroundColor: COLOURS.expenses,
      borderWidth: 3,
      spanGaps: false,
      stack: 'expenses',
      order: 1,
      pointRadius: ((c: { dataIndex: number }) => (years[c.dataIndex] === state.year ? 6 : 3)) as unknown as number,
      pointBackgroundColor: ((c: { dataIndex: number }) => (forecastYear(years[c.dataIndex]!) ? '#fff' : COLOURS.expenses)) as unknown as string,
      pointBorderWidth: 2,
    },
  ];
  const v = (value: number | null | undefined) => cell(ctx, unit, value);
  const own = (p: Record<Part, number> | null | undefined) => (p ? Math.round(OWN.reduce((sum, part) => sum + p[part], 0) * 1000) / 1000 : null);

  const year = state.year;
  const row = year === undefined ? undefined : byYear.get(year);
  const p = year === undefined ? undefined : parts.get(year);
  const stageText = stageName(ctx, row?.stage ?? stage).toLocaleLowerCase(lang);
  // Lines without figures (the measure's series missing that year): that is the cause to name, not
  // missing lines. In current prices totals/ sums lines, never to null.
  const figureless = year !== undefined && (p === null || (row !== undefined && row.total_expenses == null && (expenseYears?.has(year) ?? true)));
  let summary: string;
  if (figureless) summary = noMeasureFigure(ctx, year);
  else if (row && !p && expensesOf(row) != null) summary = t(lang, 'financing.noResources', { year: row.year, stage: stageText });
  else if (!row || !p) summary = noDataAtStage(ctx, ['expenses', 'resources']);
  else if (expensesOf(row) == null) summary = t(lang, 'financing.noExpenses', { year: row.year, stage: stageText });
  else {
    const expenses = expensesOf(row)!;
    const ownAmount = own(p)!;
    const values = {
      year: row.year,
      stage: stageText,
      expenses: v(expenses),
      own: v(ownAmount),
      share: expenses ? ctx.fmt.percent(Math.round((ownAmount / expenses) * 10000) / 100) : '—',
      borrowing: v(p.borrowing),
    };
    summary = t(lang, p.borrowing ? 'financing.summary' : 'financing.summaryNoBorrowing', values);
  }
  const notes = seriesNotes(
    ctx,
    ['expenses', 'resources'],
    totals.data.map((r) => ({ ...r, stage: r.stage ?? stage })),
    years,
    stage,
  );
  if (shown.includes('other')) notes.unshift(t(lang, 'financing.rule'));
  // The balance is a defined, small figure at most: never the headline, never called a deficit;
  // and only where the year has both expense and resource lines (else it is drawn from a gap).
  if (row && p && expensesOf(row) != null && row.balance != null)
    notes.push(
      h('span', { class: 'balance-note' }, t(lang, 'financing.balance', { year: row.year, balance: formatValue(ctx.fmt, unit, row.balance) })),
    );
  const columns = [
    t(lang, 'col.year'),
    t(lang, 'financing.expenses'),
    t(lang, 'financing.own'),
    ...shown.filter((part) => partLabel(part) !== t(lang, 'financing.own')).map(partLabel),
    t(lang, 'col.stage'),
  ];
  return figure(ctx, {
    id: 'financing',
    title: t(lang, 'financing.title'),
    summary,
    chart: rowYears.length ? { type: 'bar', labels: [], datasets, unit, time: true, stacked: true } : undefined,
    empty: t(lang, 'noData'),
    notes,
    table: {
      columns,
      numeric: columns.map((_, n) => n).slice(1, -1),
      rows: years.map((y) => {
        const r = byYear.get(y);
        const q = parts.get(y);
        return [
          String(y),
          v(expensesOf(r)),
          v(own(q)),
          ...shown.filter((part) => partLabel(part) !== t(lang, 'financing.own')).map((part) => v(q?.[part])),
          r ? stageCell(ctx, { year: y, stage: stageOf(y) }) : '',
        ];
      }),
    },
    sourceIds: sourcesFirst(
      totals.data.map((r) => ({ year: r.year, ids: r.source_ids ?? [] })),
      year,
    ),
    answers: [totals, ...trees],
  });
}

// ---------------------------------------------------------------- ratios

export async function ratios(ctx: ViewContext): Promise<HTMLElement> {
  const { lang, state } = ctx;
  // Both series are ratios to GDP already: the measure does not apply, the stage does.
  const [deficitAnswer, outstanding] = await Promise.all([
    get<DeficitRow[]>('deficit/', choice(ctx, 'deficit/', { measure: false })),
    get<OutstandingRow[]>('outstanding-debt/', choice(ctx, 'outstanding-debt/', { measure: false })),
  ]);
  const years = yearRange([...deficitAnswer.data, ...outstanding.data].map((r) => r.year));
  const d = new Map(deficitAnswer.data.map((r) => [r.year, r]));
  const o = new Map(outstanding.data.map((r) => [r.year, r]));
  const datasets = [
    ...stagedLines(ctx, deficitAnswer.data, (r) => r.percent, years, t(lang, 'ratios.deficit'), COLOURS.expenses),
    ...stagedLines(ctx, outstanding.data, (r) => r.value, years, t(lang, 'ratios.debt'), COLOURS.debt),
  ];
  const pct = (value: number | null | undefined) => (value == null ? t(lang, 'noFigure') : ctx.fmt.percent(value));
  const year = state.year;
  const dy = year === undefined ? undefined : d.get(year)?.percent;
  const oy = year === undefined ? undefined : o.get(year)?.value;
  const summary =
    year !== undefined && (dy != null || oy != null)
      ? t(lang, 'ratios.in', {
          year,
          parts: [
            // A negative deficit is a surplus, told as one with its size, as the headline tells it.
            dy == null
              ? t(lang, 'ratios.noDeficit')
              : dy < 0
                ? t(lang, 'ratios.surplusOf', { value: pct(-dy) })
                : t(lang, 'ratios.deficitOf', { value: pct(dy) }),
            oy != null ? t(lang, 'ratios.debtOf', { value: pct(oy) }) : t(lang, 'ratios.noDebt'),
          ].join(', '),
        })
      : noDataAtStage(ctx, ['deficit', 'outstanding_debt']);
  return figure(ctx, {
    id: 'ratios',
    title: t(lang, 'ratios.title'),
    summary,
    chart: years.length ? { type: 'line', labels: [], datasets, unit: ofGdp(ctx), time: true } : undefined,
    notes: seriesNotes(ctx, ['deficit', 'outstanding_debt'], [...deficitAnswer.data, ...outstanding.data], years, state.stage),
    table: {
      // One stage and one source column per series: the two series do not share their sources.
      columns: [
        t(lang, 'col.year'),
        t(lang, 'ratios.deficit'),
        t(lang, 'col.stage'),
        t(lang, 'col.source'),
        t(lang, 'ratios.debt'),
        t(lang, 'col.stage'),
        t(lang, 'col.source'),
      ],
      numeric: [1, 4],
      rows: years.map((y) => [
        String(y),
        pct(d.get(y)?.percent),
        stageCell(ctx, d.get(y)),
        sourceCell(ctx, d.get(y)?.source_id),
        pct(o.get(y)?.value),
        stageCell(ctx, o.get(y)),
        sourceCell(ctx, o.get(y)?.source_id),
      ]),
    },
    sourceIds: sourcesFirst(
      [...deficitAnswer.data, ...outstanding.data].map((r) => ({ year: r.year, ids: [r.source_id] })),
      year,
    ),
    answers: [deficitAnswer, outstanding],
  });
}
