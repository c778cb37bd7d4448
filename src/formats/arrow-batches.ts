/**
 * Arrow record batches built column by column from DuckDB's result chunks, for full exports: no
 * JS object per row, numbers copied as typed arrays, names from the drop's (chunk-columns.ts).
 */
import type { DuckDBDataChunk, DuckDBVector } from '@duckdb/node-api';
import { Bool, Float64, Int32, Int64, makeData, RecordBatch, Struct, Utf8, type Data, type Schema } from 'apache-arrow';
import { memo } from '../lib/memo.js';
import { named } from '../domain/names.js';
import { itemReader, TYPED, typedItems, type TypedValues } from '../data/vectors.js';
import { concatTyped, grown, perId, sourceOf, type NumberColumn, type Source } from './chunk-columns.js';
import type { ExportQuery } from './format.js';
import type { Column } from './table.js';

const encoder = new TextEncoder();

/** One column of the batch being built. */
interface ColumnBuilder {
  /** Appends a chunk's rows; `vector` is the column's (or, for a named column, its id column's). */
  add(vector: DuckDBVector, rows: number): void;
  /** The column's Arrow data for the rows added since the last take, and a fresh start. */
  take(): Data;
}

/** Validity bits, as Arrow keeps them: set for a value, clear for a null. */
class Validity {
  private bits = new Uint8Array(64);
  nulls = 0;
  set(index: number, valid: boolean): void {
    if (index >> 3 >= this.bits.length) this.bits = grown(this.bits, (index >> 3) + 1);
    if (valid) this.bits[index >> 3]! |= 1 << (index & 7);
    else this.nulls += 1;
  }
  take(length: number): { nullCount: number; nullBitmap?: Uint8Array } {
    const taken = this.nulls > 0 ? { nullCount: this.nulls, nullBitmap: this.bits.slice(0, (length + 7) >> 3) } : { nullCount: 0 };
    this.bits.fill(0);
    this.nulls = 0;
    return taken;
  }
}

function numberColumn(column: NumberColumn): ColumnBuilder {
  const Typed = TYPED[column.type];
  const type = { int32: () => new Int32(), int64: () => new Int64(), float64: () => new Float64() }[column.type]();
  let parts: TypedValues[] = [];
  let length = 0;
  const validity = new Validity();
  return {
    add(vector, rows) {
      if (!column.nullable) parts.push(typedItems(vector, rows, column.type).slice());
      else {
        const values = new Typed(rows);
        const item = itemReader(vector, rows);
        for (let i = 0; i < rows; i++) {
          const value = item(i);
          validity.set(length + i, value !== null);
          if (value !== null) values[i] = (column.type === 'int64' ? BigInt(value as bigint) : Number(value)) as never;
        }
        parts.push(values);
      }
      length += rows;
    },
    take() {
      const data = concatTyped(column.type, parts);
      const taken = makeData({ type, length, data, ...validity.take(length) } as never) as Data;
      parts = [];
      length = 0;
      return taken;
    },
  };
}

function boolColumn(column: Column): ColumnBuilder {
  let bits = new Uint8Array(64);
  let length = 0;
  const validity = new Validity();
  return {
    add(vector, rows) {
      if ((length + rows) >> 3 >= bits.length) bits = grown(bits, ((length + rows) >> 3) + 1);
      const item = itemReader(vector, rows);
      for (let i = 0; i < rows; i++, length++) {
        const value = item(i);
        if (column.nullable) validity.set(length, value !== null);
        if (value) bits[length >> 3]! |= 1 << (length & 7);
      }
    },
    take() {
      const taken = makeData({ type: new Bool(), length, data: bits.slice(0, (length + 7) >> 3), ...validity.take(length) }) as Data;
      bits.fill(0);
      length = 0;
      return taken;
    },
  };
}

/**
 * UTF-8 text: `text(vector, rows)` gives, for a chunk, each row's bytes, or null. The bytes are
 * appended to one buffer as the chunks come, with each row's end offset, so that taking a batch is
 * two copies; gathering each row's bytes first and copying them at the take cost a full export
 * of a million lines about a third of a second (docs/performance.md#arrow-text-columns-2026-11-28).
 */
function textColumn(text: (vector: DuckDBVector, rows: number) => (index: number) => Uint8Array | null): ColumnBuilder {
  let data = new Uint8Array(1 << 16);
  let offsets = new Int32Array(1 << 12);
  let length = 0;
  let size = 0;
  const validity = new Validity();
  return {
    add(vector, rows) {
      const bytesOf = text(vector, rows);
      if (length + rows >= offsets.length) offsets = grown(offsets, length + rows + 1);
      for (let i = 0; i < rows; i++) {
        const bytes = bytesOf(i);
        validity.set(length, bytes !== null);
        if (bytes !== null) {
          const n = bytes.length;
          if (size + n > data.length) data = grown(data, size + n);
          data.set(bytes, size);
          size += n;
        }
        offsets[++length] = size;
      }
    },
    take() {
      const taken = makeData({
        type: new Utf8(),
        length,
        valueOffsets: offsets.slice(0, length + 1),
        data: data.slice(0, size),
        ...validity.take(length),
      }) as Data;
      length = 0;
      size = 0;
      return taken;
    },
  };
}

/** Text read from DuckDB, each distinct string encoded once. */
function plainText(): ColumnBuilder {
  const encoded = memo((value: string) => encoder.encode(value));
  return textColumn((vector, rows) => {
    const item = itemReader(vector, rows);
    return (i) => {
      const value = item(i) as string | null;
      return value === null ? null : encoded(value);
    };
  });
}

/** Text named by the id in another column (never null, see NamedBy), each id's name encoded once. */
function namedText(names: ReadonlyMap<unknown, string>): ColumnBuilder {
  return textColumn(perId((id) => encoder.encode(named(names, id))));
}

function builderFor(column: Column, named: ExportQuery['named']): ColumnBuilder {
  const byId = named?.[column.name];
  if (byId) return namedText(byId.names);
  switch (column.type) {
    case 'utf8':
      return plainText();
    case 'bool':
      return boolColumn(column);
    default:
      return numberColumn(column as NumberColumn);
  }
}

/**
 * Builds record batches of `columns` from DuckDB chunks of `source.select`: add chunks, take a
 * batch when enough rows are in.
 */
export class BatchBuilder {
  readonly source: Source;
  private readonly builders: ColumnBuilder[];
  rows = 0;

  constructor(
    private readonly schema: Schema,
    columns: readonly Column[],
    named: ExportQuery['named'],
  ) {
    this.source = sourceOf(columns, named);
    this.builders = columns.map((c) => builderFor(c, named));
  }

  add(chunk: DuckDBDataChunk): void {
    const rows = chunk.rowCount;
    const vectors = this.source.select.map((_, i) => chunk.getColumnVector(i));
    this.builders.forEach((builder, i) => builder.add(vectors[this.source.from[i]!]!, rows));
    this.rows += rows;
  }

  take(): RecordBatch {
    const children = this.builders.map((b) => b.take());
    const batch = new RecordBatch(this.schema, makeData({ type: new Struct(this.schema.fields), length: this.rows, nullCount: 0, children }));
    this.rows = 0;
    return batch;
  }
}
