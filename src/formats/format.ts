/**
 * What a format is: one module per format (json.ts, csv.ts, arrow.ts, parquet.ts), listed once in
 * registry.ts. Negotiation, downloads and the OpenAPI document loop over the registry, so a new
 * format is one module and one line there.
 */
import type { Transform } from 'node:stream';
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

/**
 * A download: the endpoint's table, sent as an attachment. The encoder takes chunks of rows
 * (arrays of FlatRow, object mode) and gives bytes; stream.pipeline paces it by the client.
 */
export interface DownloadFormat<Name extends string = string> extends FormatBase<Name> {
  download: true;
  encoder(columns: readonly Column[]): Transform;
}

export type Format<Name extends string = string> = AnswerFormat<Name> | DownloadFormat<Name>;

/** `Columns: id (Int64), year (Int32, nullable).` for each table, in a format's type names. */
export function columnList(tables: FormatDoc['tables'], typeName?: (column: Column) => string): string {
  const list = (columns: readonly Column[]) =>
    columns.map((c) => (typeName ? `${c.name} (${typeName(c)}${c.nullable ? ', nullable' : ''})` : c.name)).join(', ');
  return tables.map(({ table, when }) => (when ? `${when}: ${list(table.columns)}.` : `Columns: ${list(table.columns)}.`)).join(' ');
}
