/**
 * What validation warns about without refusing the drop (docs/data-drops.md#warnings): the
 * mistakes that a rule cannot call wrong but that are nearly always typos. `budget-data build`
 * and `validate` print them (exit 0); `--strict` makes them errors. The server does not run them.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { LoadedDrop } from './drop.js';
import { TABLES } from './schema.js';

/** A warning; for a far year, where it is: each table holding it, its rows, and the first one's id (a series has none). */
export interface DropWarning {
  text: string;
  year?: number;
  at?: { table: string; rows: number; id?: number }[];
}

/** Where a warning's subject is: a file (or sheet), its first line or row there, and how many rows it has. */
export interface Place {
  label: string;
  first?: string;
  rows: number;
}

/** A warning told from where it is: `expenses.csv, line 5: year 2062 … (and on 1 more line of gdp.csv)`. */
export function placedWarning(text: string, places: Place[], unit: 'line' | 'row'): string {
  const [first, ...others] = places;
  if (!first) return text;
  const more = [{ label: first.label, rows: first.rows - 1 }, ...others].filter((p) => p.rows > 0);
  const total = more.reduce((n, p) => n + p.rows, 0);
  const units = `${total} more ${unit}${total === 1 ? '' : 's'}`;
  const also = !total ? '' : more.length === 1 ? ` (and on ${units} of ${more[0]!.label})` : ` (and on ${units}: ${more.map((p) => `${p.rows} of ${p.label}`).join(', ')})`;
  return `${first.label}${first.first === undefined ? '' : `, ${first.first}`}: ${text}${also}`;
}

/** A warning as `validate` tells it of a drop's Parquet files: the file, and the first row's id where rows have one. */
export const warningText = (w: DropWarning): string =>
  w.at
    ? placedWarning(
        w.text,
        w.at.map(({ table, rows, id }) => ({ label: `${table}.parquet`, rows, ...(id === undefined ? {} : { first: `id ${id}` }) })),
        'row',
      )
    : w.text;

/** A year this far from every other year of the drop is probably mistyped (2062 for 2026). */
const FAR_YEARS = 5;

/** The tables a measure needs for a year of lines, and the measure that answers null without them. */
const PER_YEAR: { table: string; column: string; measure: string }[] = [
  { table: 'gdp', column: 'gdp', measure: 'pct_gdp' },
  { table: 'population', column: 'population', measure: 'per_capita' },
  { table: 'cpi', column: 'index', measure: 'real' },
];

const FIGURE_TABLES = ['expenses', 'resources', 'debt', 'gdp', 'outstanding_debt', 'deficit', 'population', 'cpi'];

export async function dropWarnings(drop: LoadedDrop): Promise<DropWarning[]> {
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
    const warnings: DropWarning[] = [];
    const all = [...(await yearsOf(FIGURE_TABLES))];
    for (const year of all) {
      if (all.length > 1 && all.every((other) => other === year || Math.abs(other - year) > FAR_YEARS)) {
        const nearest = all.filter((y) => y !== year).sort((a, b) => Math.abs(a - year) - Math.abs(b - year))[0];
        const text = `year ${year} is more than ${FAR_YEARS} years from every other year of the drop (the nearest is ${nearest}): a typo?`;
        warnings.push({ text, year, at: await rowsOfYear(connection, year) });
      }
    }
    const lineYears = [...(await yearsOf(['expenses', 'resources']))];
    for (const { table, measure } of PER_YEAR) {
      const have = await yearsOf([table]);
      if (!have.size) continue;
      const missing = lineYears.filter((y) => !have.has(y));
      if (missing.length) {
        warnings.push({
          text: `${table}: no row for ${missing.length === 1 ? 'year' : 'years'} ${missing.join(', ')}, which ${missing.length === 1 ? 'has' : 'have'} lines; measure=${measure} answers null there`,
        });
      }
    }
    return warnings;
  } finally {
    connection.closeSync();
  }
}

/** The tables holding a year, in FIGURE_TABLES' order: each one's rows, and the smallest id where rows have one. */
async function rowsOfYear(connection: DuckDBConnection, year: number): Promise<NonNullable<DropWarning['at']>> {
  const at: NonNullable<DropWarning['at']> = [];
  for (const table of FIGURE_TABLES) {
    const hasId = TABLES.find((t) => t.name === table)?.columns.some((c) => c.name === 'id');
    const [[rows, id]] = (await connection.runAndReadAll(`SELECT count(*), ${hasId ? 'min(id)' : 'NULL'} FROM ${table} WHERE year = $year`, { year })).getRows() as [
      [bigint, unknown],
    ];
    if (rows > 0n) at.push({ table, rows: Number(rows), ...(id === null ? {} : { id: Number(id) }) });
  }
  return at;
}
