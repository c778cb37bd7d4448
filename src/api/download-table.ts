/**
 * The download columns of a measured or changed answer: a measured figure may be null (a year
 * without GDP, population or CPI), and change=previous_year adds `change` and `change_pct`
 * columns (one pair per figure, `change_<figure>` and `change_pct_<figure>`, when a row has
 * several figures, as the JSON objects flatten with `_`).
 */
import type { FlatRow, Table } from '../formats/table.js';
import { extended } from '../lib/extended.js';

export function downloadTable(table: Table, figures: readonly string[] | undefined, params: Record<string, unknown>): Table {
  if (!figures) return table;
  // A measured figure is null for a year without the value it divides by; a recorded one never is.
  const measured = (params.measure ?? 'nominal') !== 'nominal';
  const columns = table.columns.map((c) => (figures.includes(c.name) ? { ...c, nullable: measured } : c));
  if (params.change === undefined) return { ...table, columns };
  const single = figures.length === 1;
  const names = single ? [['change', 'change_pct']] : figures.map((f) => [`change_${f}`, `change_pct_${f}`]);
  return {
    ...table,
    columns: [...columns, ...names.flat().map((name) => ({ name, type: 'float64' as const, nullable: true }))],
    rows: (item) => {
      const { change, change_pct } = item as { change: unknown; change_pct: unknown };
      const extra: FlatRow = single
        ? { change, change_pct }
        : Object.fromEntries(
            figures.flatMap((f) => [
              [`change_${f}`, (change as Record<string, unknown>)[f]],
              [`change_pct_${f}`, (change_pct as Record<string, unknown>)[f]],
            ]),
          );
      return table.rows(item).map((row) => extended(row, extra));
    },
  };
}
