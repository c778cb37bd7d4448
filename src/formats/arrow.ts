/**
 * Arrow downloads: an IPC stream (schema, then one record batch per chunk of rows), so a client
 * can start reading before the server has finished, and the server never holds the whole table.
 */
import {
  AsyncByteQueue,
  Field,
  Float64,
  Int32,
  Int64,
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
import type { Column, ColumnType, FlatRow } from './table.js';

const ARROW_TYPES: Record<ColumnType, () => DataType> = {
  int32: () => new Int32(),
  int64: () => new Int64(),
  float64: () => new Float64(),
  utf8: () => new Utf8(),
};

/** Int64 vectors take bigints; rows carry ids as numbers, or as bigints past 2^53. */
const ARROW_VALUES: Record<ColumnType, (value: unknown) => unknown> = {
  int32: Number,
  int64: (value) => (typeof value === 'bigint' ? value : BigInt(value as number | string)),
  float64: Number,
  utf8: String,
};

function arrowSchema(columns: readonly Column[]): Schema {
  return new Schema(columns.map((c) => new Field(c.name, ARROW_TYPES[c.type](), c.nullable)));
}

function recordBatch(schema: Schema, columns: readonly Column[], rows: FlatRow[]): RecordBatch {
  const children = columns.map((column, i) => {
    const convert = ARROW_VALUES[column.type];
    const values = rows.map((row) => {
      const value = row[column.name];
      return value === null || value === undefined ? null : convert(value);
    });
    return vectorFromArray(values, schema.fields[i]!.type).data[0]!;
  });
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: rows.length, nullCount: 0, children }));
}

/** One record batch per chunk of rows; an answer without rows is one empty batch, so it still carries its schema. */
export async function* recordBatches(columns: readonly Column[], chunks: AsyncIterable<FlatRow[]>): AsyncGenerator<RecordBatch> {
  const schema = arrowSchema(columns);
  let written = false;
  for await (const rows of chunks) {
    if (rows.length === 0) continue;
    written = true;
    yield recordBatch(schema, columns, rows);
  }
  if (!written) yield recordBatch(schema, columns, []);
}

/**
 * A stream that takes record batches and gives the bytes of an Arrow IPC stream.
 *
 * Not apache-arrow's `throughNode()`: its duplex accepts batches faster than it hands bytes on, so
 * a slow client let the whole export pile up in memory, and a client leaving mid-export left a
 * rejected promise nobody caught (which stops the process). Here each batch is encoded as it is
 * written, so Node's own backpressure paces the query and destroying the stream stops everything.
 */
export function arrowEncoder(): Transform {
  const written: Uint8Array[] = [];
  const writer = new RecordBatchStreamWriter().reset(new BufferSink(written));
  const takeWritten = () => Buffer.concat(written.splice(0));
  return new Transform({
    writableObjectMode: true,
    transform(batch: RecordBatch, _encoding, done) {
      try {
        writer.write(batch);
        done(null, takeWritten());
      } catch (error) {
        done(error as Error); // fails the pipeline rather than throwing from inside the stream
      }
    },
    flush(done) {
      try {
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
