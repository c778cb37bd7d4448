/**
 * What a format is: one module per format (json.ts, csv.ts, arrow.ts, parquet.ts), listed once in
 * registry.ts. Negotiation, downloads and the OpenAPI document loop over the registry, so a new
 * format is one module and one line there.
 */
import type { Transform } from 'node:stream';
import type { Lease, Params } from '../data/lease.js';
import type { CopyValue } from '../data/export-sql.js';
import type { Column, Table } from './table.js';

type Json = Record<string, unknown>;

/** What the OpenAPI document knows of a data endpoint when a format describes its 200 answer. */
export interface FormatDoc {
  /** The JSON answer's schema (a $ref) and an example of it. */
  answer: Json;
  example: unknown;
  /** The tables a download holds: the endpoint's list, then its other variants (`when` says which). */
  tables: { table: Table; when?: string }[];
  /** One JSON item of the list, to show what a download's rows look like. */
  exampleItem: unknown;
}

interface FormatBase<Name extends string> {
  /** The value of `format=`. */
  name: Name;
  /** What `Accept` names to ask for it. */
  mediaType: string;
  /** The Content-Type sent. */
  contentType: string;
  /** The extension of a download's file name. */
  extension: string;
  /** The OpenAPI media type object of a data endpoint's 200 in this format. */
  openApi(doc: FormatDoc): Json;
}

/** The JSON answer: the items themselves, rendered whole and cached (see pipeline.ts). */
export interface AnswerFormat<Name extends string = string> extends FormatBase<Name> {
  download: false;
}

/** A text column of a full export named from the drop: by the id in column `by`, from `table`.`column`. */
export interface NamedBy {
  /** A BIGINT column that is never null (validation sees that every line has its category and organization). */
  by: string;
  table: string;
  column: string;
  /**
   * The same names, as the drop keeps them in JS (derived.ts), by id as rows carry ids (values.ts
   * plainValue: a number, or a bigint past 2^53); domain/names.ts named() reads one.
   */
  names: ReadonlyMap<unknown, string>;
}

/**
 * A full export that DuckDB answers itself: `sql/<sql>.sql`, a scan of one table (so its rows come
 * in table order) whose result has the download's columns, but ids in place of `named` columns.
 */
export interface ExportQuery {
  lease: Lease;
  sql: string;
  params: Params;
  columns: readonly Column[];
  named?: Readonly<Record<string, NamedBy>>;
  /** At most this many rows match, when the endpoint knows (a small export is read whole: ServedDrop.chunks). */
  rowsAtMost?: number;
}

/**
 * A download: the endpoint's table, sent as an attachment. The encoder takes chunks of rows
 * (arrays of FlatRow, object mode) and gives bytes; stream.pipeline paces it by the client.
 * fromQuery gives the bytes of a full export straight from DuckDB's results, with no JS object
 * per row (docs/performance.md#full-exports).
 */
export interface DownloadFormat<Name extends string = string> extends FormatBase<Name> {
  download: true;
  encoder(columns: readonly Column[]): Transform;
  fromQuery(query: ExportQuery): AsyncIterable<Uint8Array>;
  /** When DuckDB's own writer makes what fromQuery makes (the same bytes, or for Parquet the same columns, types and values): how (formats/copy-export.ts). */
  copy?: CopyWriter;
}

/** How DuckDB's COPY writes a format's full export as fromQuery would: byte for byte (CSV), or with the same columns, types and values (Parquet). */
export interface CopyWriter {
  /** COPY's options. */
  options: string;
  /** Each value of a column of this type as an SQL expression of `ref`; undefined where the writer cannot. */
  value: CopyValue;
  /** A name of the drop as the file has it. */
  name(text: string): string;
  /**
   * COPY writes the exports that may have more lines than this; smaller ones are made in JS.
   * By default SMALL_EXPORT_ROWS (data/export-sql.ts): a small CSV made in JS sends its first
   * lines sooner than COPY, which writes all of it first.
   */
  writesAbove?: number;
  /** COPY writes only exports of at least this many columns; fewer are made in JS. */
  columnsAtLeast?: number;
  /**
   * When COPY's file is not yet the format's: has DuckDB write it (`copyTo`, a file of its own)
   * and writes the format's bytes into `part` (parquet-copy.ts).
   */
  rewrite?(copyTo: (file: string) => Promise<void>, part: string, columns: readonly Column[]): Promise<void>;
}

export type Format<Name extends string = string> = AnswerFormat<Name> | DownloadFormat<Name>;

/** `Columns: id (Int64), year (Int32, nullable).` for each table, in a format's type names. */
export function columnList(tables: FormatDoc['tables'], typeName?: (column: Column) => string): string {
  const list = (columns: readonly Column[]) =>
    columns.map((c) => (typeName ? `${c.name} (${typeName(c)}${c.nullable ? ', nullable' : ''})` : c.name)).join(', ');
  return tables.map(({ table, when }) => (when ? `${when}: ${list(table.columns)}.` : `Columns: ${list(table.columns)}.`)).join(' ');
}
