/** CSV downloads: RFC 4180 (CRLF records, quoting only where needed), UTF-8, a header row. */
import { stringify } from 'csv-stringify/sync';
import { Transform } from 'node:stream';
import type { DuckDBVector } from '@duckdb/node-api';
import { selectColumns } from '../data/export-sql.js';
import { memo } from '../lib/memo.js';
import { named as nameIn } from '../domain/names.js';
import { itemReader, typedItems } from '../data/vectors.js';
import { perId, sourceOf } from './chunk-columns.js';
import { columnList, type DownloadFormat, type ExportQuery } from './format.js';
import type { Column, FlatRow } from './table.js';

/**
 * A text cell that a spreadsheet would take for a formula (`=`, `+`, `-`, `@`, or a tab or
 * carriage return first) gets a leading `'`, as OWASP advises against CSV injection: a name in a
 * drop must not run as a formula in the analyst's spreadsheet. Only text columns: a negative
 * amount stays a number.
 */
export function formulaSafe(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** The options of every CSV the service writes, downloads and the OpenAPI example alike. */
function csvOptions(columns: readonly Column[]) {
  const text = new Set(columns.filter((c) => c.type === 'utf8').map((c) => c.name));
  // csv-stringify writes true as 1 and false as an empty field, which reads back as null: spell them out.
  return {
    header: true,
    columns: columns.map((c) => c.name),
    record_delimiter: 'windows',
    // A record of one empty field would be a blank line, which readers skip (oneColumnField).
    quoted_empty: columns.length === 1,
    // RFC 4180 quotes any field holding a line break; csv-stringify on its own quotes only a field
    // holding the whole record delimiter (CRLF), and would leave a lone LF or CR bare.
    quoted_match: /[\r\n]/,
    // A list (a roll-up's source_ids) is one field, its items joined with `;` (empty for []).
    cast: {
      boolean: (value: boolean) => String(value),
      object: (value: object) => (Array.isArray(value) ? value.join(';') : JSON.stringify(value)),
      string: (value: string, context: { header: boolean; column?: string | number }) =>
        !context.header && text.has(String(context.column)) ? formulaSafe(value) : value,
    },
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

/** A text field as csv-stringify writes it: quoted, quotes doubled, only when it holds a delimiter, quote or line break. */
const csvText = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

/** A text field as the CSV has it: defused (formulaSafe), then quoted (csvText). */
export const csvField = (text: string) => csvText(formulaSafe(text));

/** How one download column's field of row `i` is written, for a chunk's vector of it; the same text as csvEncoder's. */
function fieldWriter(column: Column, named: ExportQuery['named']): (vector: DuckDBVector, rows: number) => (i: number) => string {
  const byId = named?.[column.name];
  if (byId) {
    return perId((id) => csvField(nameIn(byId.names, id)));
  }
  if (column.type === 'utf8') {
    const text = memo(csvField);
    return (vector, rows) => {
      const item = itemReader(vector, rows);
      return (i) => {
        const value = item(i) as string | null;
        return value === null ? '' : text(value);
      };
    };
  }
  if (column.type !== 'bool' && column.type !== 'int64_list' && !column.nullable) {
    const type = column.type;
    return (vector, rows) => {
      const items = typedItems(vector, rows, type);
      return (i) => String(items[i]);
    };
  }
  return (vector, rows) => {
    const item = itemReader(vector, rows);
    return (i) => {
      const value = item(i);
      return value === null ? '' : String(value);
    };
  };
}

/**
 * The field of a one-column CSV: empty, it is written `""`, as csv-stringify's quoted_empty writes
 * it, since a record of one empty field is a blank line, which csv readers and pandas skip: a
 * row would be lost (`fields=source_id` where some lines have none).
 */
function oneColumnField(writer: ReturnType<typeof fieldWriter>): ReturnType<typeof fieldWriter> {
  return (vector, rows) => {
    const field = writer(vector, rows);
    return (i) => field(i) || '""';
  };
}

/**
 * A full export, written from DuckDB's chunks column by column: the same bytes as csvEncoder
 * writes from rows, with no object per row (chunk-columns.ts). The header goes out with the first
 * rows, so a query that fails before them still gets an error answer; after them, text goes out
 * by SEND_CHARS or more.
 */
const SEND_CHARS = 256 * 1024;

async function* csvFromQuery({ lease, sql, params, columns, named, rowsAtMost }: ExportQuery): AsyncGenerator<Buffer> {
  const { select, from } = sourceOf(columns, named);
  const writers = columns.map((column) => fieldWriter(column, named));
  if (writers.length === 1) writers[0] = oneColumnField(writers[0]!);
  let text = stringify([], csvOptions(columns));
  let sent = false;
  for await (const chunk of lease.chunks(await selectColumns(sql, select), params, rowsAtMost)) {
    const rows = chunk.rowCount;
    const vectors = select.map((_, i) => chunk.getColumnVector(i));
    const fields = writers.map((writer, c) => writer(vectors[from[c]!]!, rows));
    for (let i = 0; i < rows; i++) {
      let line = fields[0]!(i);
      for (let c = 1; c < fields.length; c++) line += ',' + fields[c]!(i);
      text += line + '\r\n';
    }
    // A filter leaves chunks of a few rows: after the first, they go out together, not one write each.
    if (!sent || text.length >= SEND_CHARS) {
      yield Buffer.from(text);
      text = '';
      sent = true;
    }
  }
  if (text) yield Buffer.from(text);
}

/** Each column type as DuckDB is to write it in the same text as fieldWriter; a list column has no writer. */
const COPY_VALUES: Partial<Record<Column['type'], (ref: string) => string>> = {
  int32: (ref) => ref,
  int64: (ref) => ref,
  bool: (ref) => ref,
  float64: (ref) => `js_number(${ref})`,
  utf8: (ref) => `csv_text(${ref}::VARCHAR)`,
};

export const csv: DownloadFormat<'csv'> = {
  name: 'csv',
  mediaType: 'text/csv',
  contentType: 'text/csv; charset=utf-8',
  extension: 'csv',
  download: true,
  encoder: csvEncoder,
  fromQuery: csvFromQuery,
  // DuckDB's CSV writer with its quoting off: every text field comes quoted as csvText quotes it,
  // every number written as String() writes it (sql/derive/js_number.sql, csv_text.sql).
  copy: {
    options: "FORMAT csv, HEADER, QUOTE '', NEW_LINE '\\r\\n'",
    // COPY would write a one-column CSV's empty field as a blank line (oneColumnField): JS writes those.
    columnsAtLeast: 2,
    value: (type, ref) => COPY_VALUES[type as Column['type']]?.(ref),
    name: csvField,
  },
  openApi: ({ tables, exampleItem }) => ({
    schema: { type: 'string', description: `CSV with a header row. ${columnList(tables)}` },
    example: stringify(tables[0]!.table.rows(exampleItem), csvOptions(tables[0]!.table.columns)),
  }),
};
