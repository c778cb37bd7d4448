/**
 * Arrow downloads: an IPC stream (schema, then one record batch per chunk of rows), so a client
 * can start reading before the server has finished, and the server never holds the whole table.
 */
import {
  AsyncByteQueue,
  Bool,
  Field,
  Float64,
  Int32,
  Int64,
  List,
  RecordBatch,
  RecordBatchStreamWriter,
  Schema,
  Struct,
  Utf8,
  makeData,
  vectorFromArray,
  type DataType,
} from 'apache-arrow';
import { Transform } from 'node:stream';
import { selectColumns } from '../data/export-sql.js';
import { BatchBuilder } from './arrow-batches.js';
import { columnList, type DownloadFormat, type ExportQuery } from './format.js';
import { COLUMN_VALUES, type Column, type ColumnType, type FlatRow } from './table.js';

const ARROW_TYPES: Record<ColumnType, () => DataType> = {
  int32: () => new Int32(),
  int64: () => new Int64(),
  float64: () => new Float64(),
  utf8: () => new Utf8(),
  bool: () => new Bool(),
  int64_list: () => new List(new Field('item', new Int64(), false)),
};

const TYPE_NAMES: Record<ColumnType, string> = {
  int32: 'Int32',
  int64: 'Int64',
  float64: 'Float64',
  utf8: 'Utf8',
  bool: 'Bool',
  int64_list: 'List<Int64>',
};

function arrowSchema(columns: readonly Column[]): Schema {
  return new Schema(columns.map((c) => new Field(c.name, ARROW_TYPES[c.type](), c.nullable)));
}

function recordBatch(schema: Schema, columns: readonly Column[], rows: FlatRow[]): RecordBatch {
  const children = columns.map((column, i) => {
    const convert = COLUMN_VALUES[column.type];
    const values = rows.map((row) => {
      const value = row[column.name];
      return value === null || value === undefined ? null : convert(value);
    });
    return vectorFromArray(values, schema.fields[i]!.type).data[0]!;
  });
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: rows.length, nullCount: 0, children }));
}

/**
 * Takes chunks of rows and gives the bytes of an Arrow IPC stream: one record batch per chunk; an
 * answer without rows is one empty batch, so it still carries its schema.
 *
 * Not apache-arrow's `throughNode()`: its duplex accepts batches faster than it hands bytes on, so
 * a slow client let the whole export pile up in memory, and a client leaving mid-export left a
 * rejected promise nobody caught (which stops the process). Here each batch is encoded as it is
 * written, so Node's own backpressure paces the query and destroying the stream stops everything.
 */
function arrowEncoder(columns: readonly Column[]): Transform {
  const schema = arrowSchema(columns);
  const written: Uint8Array[] = [];
  const writer = new RecordBatchStreamWriter().reset(new BufferSink(written));
  const takeWritten = () => Buffer.concat(written.splice(0));
  let batches = 0;
  return new Transform({
    writableObjectMode: true,
    transform(rows: FlatRow[], _encoding, done) {
      try {
        if (rows.length === 0) return done();
        writer.write(recordBatch(schema, columns, rows));
        batches += 1;
        done(null, takeWritten());
      } catch (error) {
        done(error as Error); // fails the pipeline rather than throwing from inside the stream
      }
    },
    flush(done) {
      try {
        if (batches === 0) writer.write(recordBatch(schema, columns, []));
        writer.close();
        done(null, takeWritten());
      } catch (error) {
        done(error as Error);
      }
    },
  });
}

/** A writer sink that keeps what the writer writes, to be taken synchronously after each batch. */
class BufferSink extends AsyncByteQueue {
  constructor(private readonly buffers: Uint8Array[]) {
    super();
  }
  override write(value: Uint8Array): void {
    this.buffers.push(value);
  }
}

/**
 * Rows per record batch of a full export: readers handle batches of this size well, and the
 * server holds one (about 1.7 MB of lines), so a slow client holds back the query within a few
 * batches. The first batch is the first DuckDB chunk alone, so bytes leave at once.
 */
const EXPORT_BATCH_ROWS = 16_384;

/** A full export: record batches built from DuckDB's chunks column by column (arrow-batches.ts). */
async function* arrowFromQuery({ lease, sql, params, columns, named, rowsAtMost }: ExportQuery): AsyncGenerator<Uint8Array> {
  const schema = arrowSchema(columns);
  const batches = new BatchBuilder(schema, columns, named);
  const written: Uint8Array[] = [];
  const writer = new RecordBatchStreamWriter().reset(new BufferSink(written));
  const takeWritten = () => Buffer.concat(written.splice(0));
  let sent = 0;
  for await (const chunk of lease.chunks(await selectColumns(sql, batches.source.select), params, rowsAtMost)) {
    batches.add(chunk);
    if (batches.rows >= (sent === 0 ? 1 : EXPORT_BATCH_ROWS)) {
      writer.write(batches.take());
      sent += 1;
      yield takeWritten();
    }
  }
  // The last rows; an export without rows is one empty batch, so that it still carries its schema.
  if (batches.rows > 0 || sent === 0) writer.write(batches.take());
  writer.close();
  yield takeWritten();
}

export const arrow: DownloadFormat<'arrow'> = {
  name: 'arrow',
  mediaType: 'application/vnd.apache.arrow.stream',
  contentType: 'application/vnd.apache.arrow.stream',
  extension: 'arrow',
  download: true,
  encoder: arrowEncoder,
  fromQuery: arrowFromQuery,
  openApi: ({ tables }) => ({
    schema: {
      type: 'string',
      contentMediaType: 'application/vnd.apache.arrow.stream',
      description: `An Arrow IPC stream. ${columnList(tables, (c) => TYPE_NAMES[c.type])}`,
    },
  }),
};
