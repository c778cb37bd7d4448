/**
 * The tables of a data drop (docs/data-drops.md#files-and-columns), described once.
 *
 * `kind` is what docs/data-drops.md#types allows in the Parquet file (any integer width for ids and years,
 * any numeric type for money); `sqlType` is what the service stores after loading, so that every
 * query sees one type whatever the analyst's tool wrote. Money is stored as DECIMAL(38,6): sums
 * are exact, and rounding to 3 decimals happens once, at the end. (The lines' amounts are stored
 * as DECIMAL(18,6) when every one is under 10^12, the same values scanned faster: drop.ts.)
 *
 * Optional columns (stages, provenance) and optional tables (sources, population, cpi) may be left
 * out of a drop; the service then stores the column's `absent` value, or an empty table, so that
 * every query can rely on one shape (see docs/data-drops.md, "Stages and sources").
 */
type ColumnKind = 'integer' | 'numeric' | 'string' | 'boolean';

export interface ColumnSpec {
  name: string;
  kind: ColumnKind;
  sqlType: string;
  nullable?: boolean;
  /** An optional column: what is stored when the file lacks it (an SQL expression over the file's columns). */
  absent?: string;
  /** A string column that also takes DATE and TIMESTAMP values (stored as ISO text). */
  dates?: boolean;
}

export interface TableSpec {
  /** Table name in DuckDB; the file is `${name}.parquet`. */
  name: string;
  columns: ColumnSpec[];
  /**
   * The columns that tell one row from another: unique in a drop (rules.ts), and what two drops'
   * rows are matched on (diff.ts). `stage` counts only where a drop has that column.
   */
  key: readonly string[];
  /** An optional table: a drop without its file is served as if the table were empty. */
  optional?: boolean;
  /** Optional columns of which the file must have at least one (each one's `absent` reads the other). */
  oneOf?: readonly [string, string];
}


const id = (name: string, nullable = false): ColumnSpec => ({ name, kind: 'integer', sqlType: 'BIGINT', nullable });
const year: ColumnSpec = { name: 'year', kind: 'integer', sqlType: 'INTEGER' };
const money = (name: string): ColumnSpec => ({ name, kind: 'numeric', sqlType: 'DECIMAL(38,6)' });
const text = (name: string): ColumnSpec => ({ name, kind: 'string', sqlType: 'VARCHAR' });
const optionalText = (name: string): ColumnSpec => ({ ...text(name), nullable: true });
const flag = (name: string): ColumnSpec => ({ name, kind: 'boolean', sqlType: 'BOOLEAN' });

/** Provenance, optional on every table of figures: the source a row comes from, and whether it was computed. */
const provenance: ColumnSpec[] = [
  { ...id('source_id', true), absent: 'NULL' },
  { ...flag('derived'), absent: 'false' },
];

/** Lines: without a stage column, complementary decides it; without complementary, the stage does. */
const lineColumns = (organizationNullable: boolean): ColumnSpec[] => [
  id('id'),
  year,
  money('amount'),
  id('category_id'),
  id('organization_id', organizationNullable),
  { ...flag('complementary'), absent: "stage = 'amendment'" },
  { ...text('stage'), absent: "CASE WHEN complementary THEN 'amendment' ELSE 'initial' END" },
  ...provenance,
];

/** A series without a stage column has rows of no stated stage (null). */
const seriesStage: ColumnSpec = { ...text('stage'), absent: 'NULL' };

/** The ratio to GDP as the row's source printed it (docs/data-drops.md#published-ratios); null when it printed none. */
const publishedPercent: ColumnSpec = { ...money('published_percent'), nullable: true, absent: 'NULL' };

/** The specs as given, each name kept as its literal: TableName is their union. */
const tables = <const N extends string>(specs: readonly (TableSpec & { name: N })[]) => specs;

export const TABLES = tables([
  { name: 'organizations', key: ['id'], columns: [id('id'), text('name'), text('code')] },
  { name: 'categories', key: ['id'], columns: [id('id'), text('name'), text('type'), id('parent_id', true)] },
  { name: 'expenses', key: ['id'], columns: lineColumns(false), oneOf: ['stage', 'complementary'] },
  { name: 'resources', key: ['id'], columns: lineColumns(true), oneOf: ['stage', 'complementary'] },
  { name: 'debt_origins', key: ['id'], columns: [id('id'), id('parent_id', true), text('name')] },
  { name: 'debt', key: ['year', 'debt_origin_id', 'stage'], columns: [year, id('debt_origin_id'), money('value'), seriesStage, ...provenance] },
  { name: 'gdp', key: ['year'], columns: [year, money('gdp'), ...provenance] },
  {
    name: 'outstanding_debt',
    key: ['year', 'stage'],
    columns: [year, money('outstanding_debt'), seriesStage, ...provenance, publishedPercent],
  },
  { name: 'deficit', key: ['year', 'stage'], columns: [year, money('value'), seriesStage, ...provenance, publishedPercent] },
  {
    name: 'sources',
    key: ['id'],
    optional: true,
    columns: [id('id'), text('title'), optionalText('url'), optionalText('publisher'), { ...optionalText('published'), dates: true }, optionalText('quote')],
  },
  { name: 'population', key: ['year'], optional: true, columns: [year, money('population'), ...provenance] },
  { name: 'cpi', key: ['year'], optional: true, columns: [year, money('index'), ...provenance] },
]);

/** The name of a table of a drop: a map over tables keyed by it must name every one (synth.ts). */
export type TableName = (typeof TABLES)[number]['name'];

export const fileName = (table: TableSpec): string => `${table.name}.parquet`;

/** The columns a drop must have (its other columns are optional). */
export const requiredColumns = (table: TableSpec): ColumnSpec[] => table.columns.filter((c) => c.absent === undefined);
