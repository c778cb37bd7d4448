/**
 * `budget-data diff` as a person reads it (text) and as a release note (Markdown): drop.json's
 * changed fields, one line per table with its counts, every expense and resource line added,
 * removed or changed with its year, amount, category, organization, stage and source, a few keys
 * of the other tables' changes, the totals per year and stage before and after, and the notes.
 */
import type { DropDiff, FieldChange, Key, LineChange, StageTotals, TableDiff } from '../data/diff.js';
import { jsonText } from '../domain/json.js';
import { printableLines } from './terminal.js';

const count = (n: number) => n.toLocaleString('en-US');
const amount = (n: number | null) => (n === null ? '—' : n.toLocaleString('en-US', { maximumFractionDigits: 3 }));
const keyText = (key: Key) =>
  Object.entries(key)
    .map(([name, value]) => `${name} ${value === null ? 'null' : jsonText(value)}`)
    .join(', ');

export function diffReport(diff: DropDiff): string {
  const lines = [
    `before: "${diff.before.version}" (${diff.before.created_at})`,
    `after:  "${diff.after.version}" (${diff.after.created_at})`,
    diff.equal ? 'the drops hold the same rows' : 'the drops differ',
    ...(diff.drop_json.length
      ? ['', 'drop.json:', ...diff.drop_json.map((c) => `  ${c.field}: ${fieldValue(c.before)} → ${fieldValue(c.after)}`)]
      : []),
    '',
    `${'table'.padEnd(18)} ${'before'.padStart(10)} ${'after'.padStart(10)} ${'added'.padStart(10)} ${'removed'.padStart(10)} ${'changed'.padStart(10)}  key`,
  ];
  for (const t of diff.tables) {
    lines.push(
      `${t.table.padEnd(18)} ${count(t.rows_before).padStart(10)} ${count(t.rows_after).padStart(10)} ${count(t.added).padStart(10)} ${count(t.removed).padStart(10)} ${count(t.changed).padStart(10)}  ${t.key.join(', ')}`,
    );
  }
  for (const t of diff.tables) lines.push(...examples(t));
  if (diff.lines.length) {
    lines.push('', 'lines:');
    for (const l of diff.lines) lines.push(`  ${lineText(l)}`);
    if (diff.lines_left_out) lines.push(`  … (${count(diff.lines_left_out)} more)`);
  }
  const moved = diff.totals_by_stage.filter(isMoved);
  if (moved.length) {
    lines.push('', 'totals/ by year and stage that changed');
    lines.push(
      `${'year'.padEnd(6)} ${'stage'.padEnd(8)} ${'expenses before'.padStart(16)} ${'after'.padStart(12)} ${'change'.padStart(12)} ${'resources before'.padStart(17)} ${'after'.padStart(12)} ${'change'.padStart(12)}`,
    );
    for (const t of moved) {
      lines.push(
        `${String(t.year).padEnd(6)} ${t.stage.padEnd(8)} ${amount(t.expenses_before).padStart(16)} ${amount(t.expenses_after).padStart(12)} ${signed(t.expenses_change).padStart(12)} ${amount(t.resources_before).padStart(17)} ${amount(t.resources_after).padStart(12)} ${signed(t.resources_change).padStart(12)}`,
      );
    }
  }
  if (diff.notes.length)
    lines.push('', 'notes:', ...diff.notes.map((n) => `  ${n.table} ${n.id}: ${n.text}${n.source_id == null ? '' : ` (source ${n.source_id})`}`));

  lines.push('', 'totals per year (expense and resource lines of the law as amended: initial + amendment)');
  lines.push(
    `${'year'.padEnd(6)} ${'expenses before'.padStart(16)} ${'after'.padStart(16)} ${'resources before'.padStart(17)} ${'after'.padStart(16)}`,
  );
  for (const y of diff.totals) {
    lines.push(
      `${String(y.year).padEnd(6)} ${amount(y.expenses_before).padStart(16)} ${amount(y.expenses_after).padStart(16)} ${amount(y.resources_before).padStart(17)} ${amount(y.resources_after).padStart(16)}${y.moved ? '  moved' : ''}`,
    );
  }
  // The versions, dates and example values are the drops' own text.
  return printableLines(lines);
}

function examples(t: TableDiff): string[] {
  const out: string[] = [];
  const more = (shown: number, total: number) => (total > shown ? ` … (${count(total - shown)} more)` : '');
  if (t.added) out.push(`  added:   ${t.examples.added.map(keyText).join('; ')}${more(t.examples.added.length, t.added)}`);
  if (t.removed) out.push(`  removed: ${t.examples.removed.map(keyText).join('; ')}${more(t.examples.removed.length, t.removed)}`);
  for (const c of t.examples.changed) {
    const columns = Object.entries(c.columns)
      .map(([name, { before, after }]) => `${name} ${jsonText(before)} → ${jsonText(after)}`)
      .join(', ');
    out.push(`  changed: ${keyText(c.key)}: ${columns}`);
  }
  if (t.changed > t.examples.changed.length) out.push(`  changed: … (${count(t.changed - t.examples.changed.length)} more)`);
  return out.length ? ['', `${t.table}:`, ...out] : [];
}

const signed = (n: number | null) => (n === null ? '—' : `${n > 0 ? '+' : ''}${amount(n)}`);
const isMoved = (t: StageTotals) => (t.expenses_change ?? 0) !== 0 || (t.resources_change ?? 0) !== 0;
const fieldValue = (v: unknown) => (v === null || v === undefined ? '(none)' : jsonText(v));

function lineText(l: LineChange): string {
  const money =
    l.change === 'changed'
      ? `${amount(l.amount_before)} → ${amount(l.amount_after)}`
      : amount(l.change === 'added' ? l.amount_after : l.amount_before);
  const what = l.change === 'changed' ? ` (${l.changed.join(', ')})` : '';
  return `${l.change.padEnd(7)} ${l.table} ${l.id}: ${l.year ?? '—'}, ${money}, ${l.category ?? '—'}, ${l.organization ?? '—'}, ${l.stage ?? '—'}, source: ${l.source ?? '—'}${what}`;
}

/** Markdown's table cells: pipes escaped, line breaks flattened. */
const cell = (v: unknown) =>
  String(v ?? '—')
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');
const row = (cells: unknown[]) => `| ${cells.map(cell).join(' | ')} |`;
const head = (cells: string[], right: number[] = []) => [row(cells), `|${cells.map((_, i) => (right.includes(i) ? '---:' : '---')).join('|')}|`];

/** `budget-data diff --format markdown`: ready to paste as a release note. */
export function diffMarkdown(diff: DropDiff): string {
  const out: string[] = [
    `## Changes from "${cell(diff.before.version)}" to "${cell(diff.after.version)}"`,
    '',
    `${diff.before.created_at} → ${diff.after.created_at}. ${diff.equal ? 'The drops hold the same rows and the same drop.json.' : 'The drops differ.'}`,
  ];
  if (diff.drop_json.length) {
    out.push('', '### drop.json', '', ...head(['field', 'before', 'after']));
    for (const c of diff.drop_json) out.push(row([c.field, fieldCell(c, 'before'), fieldCell(c, 'after')]));
  }
  out.push('', '### Rows per table', '', ...head(['table', 'before', 'after', 'added', 'removed', 'changed'], [1, 2, 3, 4, 5]));
  for (const t of diff.tables)
    out.push(row([t.table, count(t.rows_before), count(t.rows_after), count(t.added), count(t.removed), count(t.changed)]));

  const moved = diff.totals_by_stage.filter(isMoved);
  if (moved.length) {
    out.push('', '### Totals by year and stage', '', 'What `totals/?year=Y&stage=S` answers; years and stages that did not move are left out.', '');
    out.push(
      ...head(['year', 'stage', 'expenses before', 'expenses after', 'change', 'resources before', 'resources after', 'change'], [2, 3, 4, 5, 6, 7]),
    );
    for (const t of moved) {
      out.push(
        row([
          t.year,
          t.stage,
          amount(t.expenses_before),
          amount(t.expenses_after),
          signed(t.expenses_change),
          amount(t.resources_before),
          amount(t.resources_after),
          signed(t.resources_change),
        ]),
      );
    }
  }
  if (diff.lines.length) {
    out.push(
      '',
      '### Lines',
      '',
      ...head(['', 'table', 'id', 'year', 'amount before', 'amount after', 'category', 'organization', 'stage', 'source'], [4, 5]),
    );
    for (const l of diff.lines) {
      out.push(
        row([
          l.change + (l.change === 'changed' ? ` (${l.changed.join(', ')})` : ''),
          l.table,
          l.id,
          l.year,
          amount(l.amount_before),
          amount(l.amount_after),
          l.category,
          l.organization,
          l.stage,
          l.source,
        ]),
      );
    }
    if (diff.lines_left_out) out.push('', `… and ${count(diff.lines_left_out)} more lines.`);
  }
  const others = diff.tables.filter((t) => t.table !== 'expenses' && t.table !== 'resources' && t.added + t.removed + t.changed > 0);
  if (others.length) {
    out.push('', '### Other tables');
    for (const t of others)
      out.push(
        '',
        `**${t.table}**`,
        '',
        ...examples(t)
          .slice(2)
          .map((l) => `- ${l.trim()}`),
      );
  }
  if (diff.notes.length) {
    out.push('', '### Notes', '');
    for (const n of diff.notes) out.push(`- **${cell(n.table)} ${n.id}**: ${cell(n.text)}${n.source_id == null ? '' : ` (source ${n.source_id})`}`);
  }
  return out.join('\n');
}

function fieldCell(c: FieldChange, side: 'before' | 'after'): string {
  const v = c[side];
  if (v === null || v === undefined) return '(none)';
  return `\`${jsonText(v).replace(/`/g, "'")}\``;
}
