/**
 * A full export that DuckDB writes itself with its own writer (COPY), where the format has one
 * that makes the same bytes as the format's JS (format.copy): the statement, with the drop's names
 * written as the format has them. DuckDB writes at its own pace on its own threads, where JS
 * makes every field of every line on the event loop (docs/performance.md#full-exports).
 */
import { copyStatement } from '../data/export-sql.js';
import type { Params } from '../data/lease.js';
import type { CopyWriter, ExportQuery } from './format.js';

/** What COPY runs: the statement and its parameters, and COPY's options; undefined when the export cannot be COPY's. */
export interface CopyExport {
  sql: string;
  params: Params;
  options: string;
  /** Writes the export into `part` from what COPY writes (format.ts CopyWriter.rewrite); without it COPY writes `part` itself. */
  rewrite?: (copyTo: (file: string) => Promise<void>, part: string) => Promise<void>;
}

export async function copyExport(query: Omit<ExportQuery, 'lease'>, writer: CopyWriter): Promise<CopyExport | undefined> {
  if (query.columns.length < (writer.columnsAtLeast ?? 1)) return undefined;
  const columns = query.columns.map((column) => {
    const byId = query.named?.[column.name];
    return { name: column.name, type: column.type, named: byId && { by: byId.by, names: writtenNames(byId.names, writer) } };
  });
  const statement = await copyStatement(query.sql, query.params, columns, writer.value, query.rowsAtMost);
  // COPY writes this very file, in place: readers have it open while it grows (http/export-files.ts).
  if (!statement) return undefined;
  const options = `${writer.options}, USE_TMP_FILE false`;
  if (!writer.rewrite) return { ...statement, options };
  return { ...statement, options, rewrite: (copyTo, part) => writer.rewrite!(copyTo, part, query.columns) };
}

/** The drop's names as a writer writes them, once per drop and writer. */
const written = new WeakMap<ReadonlyMap<unknown, string>, Map<CopyWriter, ReadonlyMap<unknown, string>>>();
function writtenNames(names: ReadonlyMap<unknown, string>, writer: CopyWriter): ReadonlyMap<unknown, string> {
  let byWriter = written.get(names);
  if (!byWriter) written.set(names, (byWriter = new Map()));
  let made = byWriter.get(writer);
  if (!made) byWriter.set(writer, (made = new Map([...names].map(([id, name]) => [id, writer.name(name)]))));
  return made;
}
