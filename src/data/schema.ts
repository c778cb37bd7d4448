/**
 * The tables of a data drop (docs/data-drops.md#files-and-columns), described once.
 *
 * `kind` is what docs/data-drops.md#types allows in the Parquet file (any integer width for ids and years,
 * any numeric type for money); `sqlType` is what the service stores after loading, so that every
 * query sees one type whatever the analyst's tool wrote. Money is stored as DECIMAL(38,6): sums
 * are exact, and rounding to 3 decimals happens once, at the end.
 */
type ColumnKind = 'integer' | 'numeric' | 'string' | 'boolean';

export interface ColumnSpec {
  name: string;
  kind: ColumnKind;
  sqlType: string;
  nullable?: boolean;
}

export interface TableSpec {
  /** Table name in DuckDB; the file is `${name}.parquet`. */
  name: string;
  columns: ColumnSpec[];
}

const id = (name: string, nullable = false): ColumnSpec => ({ name, kind: 'integer', sqlType: 'BIGINT', nullable });
const year: ColumnSpec = { name: 'year', kind: 'integer', sqlType: 'INTEGER' };
const money = (name: string): ColumnSpec => ({ name, kind: 'numeric', sqlType: 'DECIMAL(38,6)' });
const text = (name: string): ColumnSpec => ({ name, kind: 'string', sqlType: 'VARCHAR' });
const flag = (name: string): ColumnSpec => ({ name, kind: 'boolean', sqlType: 'BOOLEAN' });

export const TABLES: readonly TableSpec[] = [
  { name: 'organizations', columns: [id('id'), text('name'), text('code')] },
  { name: 'categories', columns: [id('id'), text('name'), text('type'), id('parent_id', true)] },
  {
    name: 'expenses',
    columns: [id('id'), year, money('amount'), id('category_id'), id('organization_id'), flag('complementary')],
  },
  {
    name: 'resources',
    columns: [id('id'), year, money('amount'), id('category_id'), id('organization_id', true), flag('complementary')],
  },
  { name: 'debt_origins', columns: [id('id'), id('parent_id', true), text('name')] },
  { name: 'debt', columns: [year, id('debt_origin_id'), money('value')] },
  { name: 'gdp', columns: [year, money('gdp')] },
  { name: 'outstanding_debt', columns: [year, money('outstanding_debt')] },
  { name: 'deficit', columns: [year, money('value')] },
];

export const fileName = (table: TableSpec): string => `${table.name}.parquet`;
