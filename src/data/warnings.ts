/**
 * What validation warns about without refusing the drop (docs/data-drops.md#warnings): the
 * mistakes that a rule cannot call wrong but that are nearly always typos. `budget-data build`
 * and `validate` print them (exit 0); `--strict` makes them errors. The server does not run them.
 */
import type { LoadedDrop } from './drop.js';

/** A year this far from every other year of the drop is probably mistyped (2062 for 2026). */
const FAR_YEARS = 5;

/** The tables a measure needs for a year of lines, and the measure that answers null without them. */
const PER_YEAR: { table: string; column: string; measure: string }[] = [
  { table: 'gdp', column: 'gdp', measure: 'pct_gdp' },
  { table: 'population', column: 'population', measure: 'per_capita' },
  { table: 'cpi', column: 'index', measure: 'real' },
];

const FIGURE_TABLES = ['expenses', 'resources', 'debt', 'gdp', 'outstanding_debt', 'deficit', 'population', 'cpi'];

export async function dropWarnings(drop: LoadedDrop): Promise<string[]> {
  const connection = await drop.connect();
  try {
    const yearsOf = async (tables: string[]) =>
      new Set(
        (
          await connection.runAndReadAll(tables.map((t) => `SELECT DISTINCT year FROM ${t}`).join(' UNION ') + ' ORDER BY 1')
        )
          .getRows()
          .map(([year]) => Number(year)),
      );
    const warnings: string[] = [];
    const all = [...(await yearsOf(FIGURE_TABLES))];
    for (const year of all) {
      if (all.length > 1 && all.every((other) => other === year || Math.abs(other - year) > FAR_YEARS)) {
        const nearest = all.filter((y) => y !== year).sort((a, b) => Math.abs(a - year) - Math.abs(b - year))[0];
        warnings.push(`year ${year} is more than ${FAR_YEARS} years from every other year of the drop (the nearest is ${nearest}): a typo?`);
      }
    }
    const lineYears = [...(await yearsOf(['expenses', 'resources']))];
    for (const { table, measure } of PER_YEAR) {
      const have = await yearsOf([table]);
      if (!have.size) continue;
      const missing = lineYears.filter((y) => !have.has(y));
      if (missing.length) {
        warnings.push(`${table}: no row for ${missing.length === 1 ? 'year' : 'years'} ${missing.join(', ')}, which ${missing.length === 1 ? 'has' : 'have'} lines; measure=${measure} answers null there`);
      }
    }
    return warnings;
  } finally {
    connection.closeSync();
  }
}
