/** CSV downloads: RFC 4180 (CRLF records, quoting only where needed), UTF-8, a header row. */
import { stringify, type Stringifier } from 'csv-stringify';
import type { Column } from './table.js';

/** A stream that takes row objects and gives CSV text; null and missing values are empty fields. */
export function csvEncoder(columns: readonly Column[]): Stringifier {
  return stringify(csvOptions(columns));
}

/** The options of every CSV the service writes; the OpenAPI examples use them too. */
export function csvOptions(columns: readonly Column[]) {
  return { header: true, columns: columns.map((c) => c.name), record_delimiter: 'windows' } as const;
}
