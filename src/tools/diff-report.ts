/**
 * `budget-data diff` as a person reads it: one line per table with its counts, a few example keys
 * of what was added, removed and changed (with the changed columns' values), then the totals per
 * year before and after.
 */
import type { DropDiff, Key, TableDiff } from '../data/diff.js';
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
    '',
    `${'table'.padEnd(18)} ${'before'.padStart(10)} ${'after'.padStart(10)} ${'added'.padStart(10)} ${'removed'.padStart(10)} ${'changed'.padStart(10)}  key`,
  ];
  for (const t of diff.tables) {
    lines.push(
      `${t.table.padEnd(18)} ${count(t.rows_before).padStart(10)} ${count(t.rows_after).padStart(10)} ${count(t.added).padStart(10)} ${count(t.removed).padStart(10)} ${count(t.changed).padStart(10)}  ${t.key.join(', ')}`,
    );
  }
  for (const t of diff.tables) lines.push(...examples(t));

  lines.push('', 'totals per year (expense and resource lines of the law as amended: initial + amendment)');
  lines.push(`${'year'.padEnd(6)} ${'expenses before'.padStart(16)} ${'after'.padStart(16)} ${'resources before'.padStart(17)} ${'after'.padStart(16)}`);
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
