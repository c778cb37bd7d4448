/**
 * The per-column checks of a loaded Parquet file, before the rules (rules.ts) run on typed tables:
 * every column is there, in a type the drop format allows, without missing values where none may
 * be missing, finite, and fitting the type the service stores it in (see docs/data-drops.md).
 */
import { quotedIdentifier, type DuckDBConnection } from '@duckdb/node-api';
import { fileProblem, offendingRows, type Problem } from './problems.js';
import type { ColumnSpec, TableSpec } from './schema.js';

const INTEGER = /^U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)$/;
const FLOAT = /^(FLOAT|DOUBLE)$/;
const DECIMAL = /^DECIMAL\(\d+,\d+\)$/;
const NULL_TYPE = /^"?NULL"?$/;
const WIDER_THAN_BIGINT = /^(UBIGINT|U?HUGEINT)$/;

const KIND_WORDS: Record<ColumnSpec['kind'], string> = {
  integer: 'an integer',
  numeric: 'a number',
  string: 'a string',
  boolean: 'a boolean',
};

/**
 * Checks the columns of `raw` (the file as read) against `table`; `types` are the file's column
 * types by name. Returns every problem found, or [] when the table can be stored typed.
 */
export async function checkColumns(
  connection: DuckDBConnection,
  raw: string,
  file: string,
  table: TableSpec,
  types: ReadonlyMap<string, string>,
): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const column of table.columns) {
    const type = types.get(column.name);
    if (type === undefined) {
      if (column.absent === undefined) problems.push(fileProblem(file, `column ${column.name} must exist`));
    } else if (!accepts(column, type)) {
      problems.push(fileProblem(file, `column ${column.name} must be ${KIND_WORDS[column.kind]}, not ${type}`));
    }
  }
  if (table.oneOf && !table.oneOf.some((name) => types.has(name))) {
    problems.push(fileProblem(file, `column ${table.oneOf.join(' or column ')} must exist`));
  }
  if (problems.length) return problems;

  for (const column of table.columns.filter((c) => types.has(c.name))) {
    for (const check of valueChecks(column, types.get(column.name)!)) {
      const problem = await offendingRows(connection, `SELECT * FROM ${raw} WHERE ${check.where}`, file, check.rule);
      if (problem) problems.push(problem);
    }
  }
  return problems;
}

/**
 * Tools write the same logical column in different physical types: pandas turns an integer column
 * with nulls into floats, some writers store flags as 0/1. Those are accepted when every value
 * fits (checked row by row in valueChecks); anything else is a wrong type.
 */
function accepts(column: ColumnSpec, type: string): boolean {
  // A column with no values at all (an empty table, or a parent_id that is null everywhere) has
  // no type to speak of: pyarrow writes it with the null type, which DuckDB reads as "NULL".
  if (NULL_TYPE.test(type)) return true;
  switch (column.kind) {
    case 'integer':
    case 'numeric':
      return INTEGER.test(type) || FLOAT.test(type) || DECIMAL.test(type);
    case 'string':
      // Categorical string columns (pandas' category dtype) arrive as ENUM.
      return type === 'VARCHAR' || type.startsWith('ENUM(') || (column.dates === true && /^(DATE|TIMESTAMP.*)$/.test(type));
    case 'boolean':
      return type === 'BOOLEAN' || INTEGER.test(type);
  }
}

function valueChecks(column: ColumnSpec, type: string): { rule: string; where: string }[] {
  const name = column.name;
  const c = quotedIdentifier(name);
  const checks: { rule: string; where: string }[] = [];
  if (!column.nullable) checks.push({ rule: `column ${name} must not be missing (null)`, where: `${c} IS NULL` });
  if (FLOAT.test(type)) checks.push({ rule: `column ${name} must be a finite number`, where: `NOT isfinite(${c})` });
  if (column.kind === 'integer' && !INTEGER.test(type)) {
    checks.push({ rule: `column ${name} must hold whole numbers`, where: `isfinite(${c}::DOUBLE) AND ${c} <> trunc(${c})` });
  }
  if (column.kind === 'boolean' && INTEGER.test(type)) {
    checks.push({ rule: `column ${name} must be a boolean (or 0/1)`, where: `${c} NOT IN (0, 1)` });
  }
  if (column.sqlType === 'INTEGER') {
    checks.push({ rule: `column ${name} must be a year between 1 and 9999`, where: `${c} NOT BETWEEN 1 AND 9999` });
  }
  if (column.sqlType.startsWith('DECIMAL')) {
    checks.push({ rule: `column ${name} must be less than 10^32 in absolute value`, where: `isfinite(${c}::DOUBLE) AND abs(${c}::DOUBLE) >= 1e32` });
  }
  if (column.sqlType === 'BIGINT' && !INTEGER.test(type)) {
    checks.push({ rule: `column ${name} must fit a 64-bit integer`, where: `abs(${c}::DOUBLE) >= 9.2e18` });
  }
  if (column.sqlType === 'BIGINT' && WIDER_THAN_BIGINT.test(type)) {
    // UBIGINT (Parquet UINT_64) holds values up to 2^64 - 1, which the cast to BIGINT would fail on.
    checks.push({ rule: `column ${name} must fit a 64-bit integer`, where: `${c} > 9223372036854775807 OR ${c} < -9223372036854775808` });
  }
  return checks;
}
