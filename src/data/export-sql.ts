/**
 * The statement of a full export, around the endpoint's `sql/<name>.sql` (a scan of one table, in
 * table order): only the columns a format reads. Everything spliced in is the code's own (file
 * names, column names checked as identifiers); what a request gives stays in bound parameters.
 */
import { readSql } from './sql.js';

/** A name as SQL: a download's column and table names are the code's own, checked to be plain identifiers. */
export function identifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not an identifier: ${name}`);
  return `"${name}"`;
}

/** `columns` of the scan, in its order (a projection keeps it). */
export async function selectColumns(name: string, columns: readonly string[]): Promise<string> {
  const scan = (await readSql(name)).replace(/;\s*$/, '');
  return `SELECT ${columns.map(identifier).join(', ')} FROM (\n${scan}\n) AS line`;
}
