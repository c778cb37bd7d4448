/** CSV downloads: RFC 4180 (CRLF records, quoting only where needed), UTF-8, a header row. */
import { stringify } from 'csv-stringify/sync';
import { Transform } from 'node:stream';
import { columnList, type DownloadFormat } from './format.js';
import type { Column, FlatRow } from './table.js';

/** The options of every CSV the service writes, downloads and the OpenAPI example alike. */
function csvOptions(columns: readonly Column[]) {
  // csv-stringify writes true as 1 and false as an empty field, which reads back as null: spell them out.
  return {
    header: true,
    columns: columns.map((c) => c.name),
    record_delimiter: 'windows',
    cast: { boolean: (value: boolean) => String(value) },
  } as const;
}

/**
 * Takes chunks of rows and gives CSV text, the header before the first chunk (or alone when there
 * are no rows); null and missing values are empty fields.
 */
function csvEncoder(columns: readonly Column[]): Transform {
  const options = csvOptions(columns);
  let header = true;
  return new Transform({
    writableObjectMode: true,
    transform(rows: FlatRow[], _encoding, done) {
      try {
        const text = stringify(rows, { ...options, header });
        header = false;
        done(null, text);
      } catch (error) {
        done(error as Error);
      }
    },
    flush(done) {
      done(null, header ? stringify([], options) : undefined);
    },
  });
}

export const csv: DownloadFormat<'csv'> = {
  name: 'csv',
  mediaType: 'text/csv',
  contentType: 'text/csv; charset=utf-8',
  extension: 'csv',
  download: true,
  encoder: csvEncoder,
  openApi: ({ tables, exampleItem }) => ({
    schema: { type: 'string', description: `CSV with a header row. ${columnList(tables)}` },
    example: stringify(tables[0]!.table.rows(exampleItem), csvOptions(tables[0]!.table.columns)),
  }),
};
