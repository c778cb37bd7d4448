/**
 * Parquet downloads: one file with the columns and types of the Arrow stream (ids INT64, years
 * INT32, amounts DOUBLE, names UTF-8 strings), written by hyparquet-writer one row group at a time
 * and sent as each group is done: from rows (encoder), or for a full export from DuckDB's chunks
 * (fromQuery). A Parquet file ends with its footer (the schema
 * and where each row group lies), so it is written last; until then the server holds one row
 * group, never the whole export.
 */
import { ByteWriter, ParquetWriter, type ColumnSource, type SchemaElement } from 'hyparquet-writer';
import { Transform } from 'node:stream';
import snappy from 'snappy';
import type { DuckDBVector } from '@duckdb/node-api';
import { selectColumns } from '../data/export-sql.js';
import { named as nameIn } from '../domain/names.js';
import { HIGH_HALF, int64Halves, itemReader, TYPED, typedItems, type TypedValues } from '../data/vectors.js';
import { grown, perId, sourceOf, type NumberColumn } from './chunk-columns.js';
import { columnList, type DownloadFormat, type ExportQuery } from './format.js';
import { PARQUET_COPY_OPTIONS, withRequiredColumns } from './parquet-copy.js';
import { COLUMN_VALUES, type Column, type ColumnType, type FlatRow } from './table.js';

/** Rows per row group: DuckDB and pyarrow read groups of this size well, and it bounds memory. */
const ROW_GROUP_ROWS = 100_000;

/** The rows of a DuckDB chunk at most (its vector size). */
const CHUNK_ROWS = 2_048;

const PHYSICAL: Record<ColumnType, Omit<SchemaElement, 'name'>> = {
  int32: { type: 'INT32' },
  int64: { type: 'INT64' },
  float64: { type: 'DOUBLE' },
  utf8: { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
  bool: { type: 'BOOLEAN' },
  // The LIST group; its one repeated field and element are added by parquetSchema.
  int64_list: { converted_type: 'LIST', logical_type: { type: 'LIST' }, num_children: 1 },
};

const TYPE_NAMES: Record<ColumnType, string> = {
  int32: 'INT32',
  int64: 'INT64',
  float64: 'DOUBLE',
  utf8: 'STRING',
  bool: 'BOOLEAN',
  int64_list: 'LIST<INT64>',
};

/**
 * Snappy in native code: hyparquet-writer's own is JavaScript, and took about a quarter of a full
 * export's time (ids and amounts, 14 MB a million lines, compress slowly in JS). The same format
 * (raw Snappy blocks), so any reader reads either.
 */
const NATIVE_SNAPPY = { SNAPPY: (bytes: Uint8Array) => snappy.compressSync(bytes) };

/** A list column is Parquet's three-level LIST: the group, its repeated `list`, the `element`. */
function parquetSchema(columns: readonly Column[]): SchemaElement[] {
  return [
    { name: 'root', num_children: columns.length },
    ...columns.flatMap((c) => {
      const top = { name: c.name, ...PHYSICAL[c.type], repetition_type: c.nullable ? 'OPTIONAL' : 'REQUIRED' } as SchemaElement;
      if (c.type !== 'int64_list') return [top];
      return [
        top,
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', type: 'INT64', repetition_type: 'REQUIRED' },
      ] as SchemaElement[];
    }),
  ];
}

/**
 * A Parquet file being written: what the writer has written is handed on with `take`, and its
 * buffer emptied, after each chunk and at the end.
 */
function parquetFile(columns: readonly Column[]) {
  const bytes = new ByteWriter();
  const take = () => {
    const written = Buffer.from(bytes.getBytes()); // a copy: the writer reuses its buffer
    bytes.index = 0;
    return written;
  };
  const writer = new ParquetWriter({ writer: bytes, schema: parquetSchema(columns), compressors: NATIVE_SNAPPY, createdBy: 'budget-data-service' });
  return { writer, bytes, take };
}

/** Takes chunks of rows and gives the bytes of one Parquet file. */
function parquetEncoder(columns: readonly Column[]): Transform {
  const { writer, bytes, take } = parquetFile(columns);
  let group: unknown[][] = columns.map(() => []);
  let rowsInGroup = 0;
  const writeGroup = () => {
    const columnData: ColumnSource[] = columns.map((c, i) => ({ name: c.name, data: group[i]! }));
    void writer.write({ columnData, rowGroupSize: rowsInGroup });
    group = columns.map(() => []);
    rowsInGroup = 0;
  };

  return new Transform({
    writableObjectMode: true,
    construct(done) {
      this.push(take()); // the magic number, so the client sees bytes at once
      done();
    },
    transform(rows: FlatRow[], _encoding, done) {
      try {
        for (const row of rows) {
          for (let i = 0; i < columns.length; i++) {
            const value = row[columns[i]!.name];
            group[i]!.push(value === null || value === undefined ? null : COLUMN_VALUES[columns[i]!.type](value));
          }
          if (++rowsInGroup === ROW_GROUP_ROWS) writeGroup();
        }
        done(null, bytes.index > 0 ? take() : undefined);
      } catch (error) {
        done(error as Error);
      }
    },
    flush(done) {
      try {
        if (rowsInGroup > 0) writeGroup();
        void writer.finish();
        done(null, take());
      } catch (error) {
        done(error as Error);
      }
    },
  });
}

/**
 * One column of the row group being filled: `add` appends a chunk's values, `take` gives them as
 * the writer takes them (a typed array for numbers without nulls, else values and nulls) and
 * starts over.
 */
interface GroupColumn {
  add(vector: DuckDBVector, rows: number): void;
  take(): TypedValues | unknown[];
}

function groupColumn(column: Column, named: ExportQuery['named']): GroupColumn {
  if (column.type in TYPED && !column.nullable && !named?.[column.name]) {
    // One array for every group, each chunk copied in once: the writer copies what it is given,
    // so a group's numbers are not kept past its write.
    const type = (column as NumberColumn).type;
    let values: TypedValues = new TYPED[type](ROW_GROUP_ROWS + CHUNK_ROWS);
    let length = 0;
    return {
      add(vector, rows) {
        if (length + rows > values.length) values = grown(values, length + rows);
        values.set(typedItems(vector, rows, type) as never, length);
        length += rows;
      },
      take() {
        const taken = values.subarray(0, length);
        length = 0;
        return taken;
      },
    };
  }
  let values: unknown[] = [];
  const take = () => {
    const taken = values;
    values = [];
    return taken;
  };
  const byId = named?.[column.name];
  if (byId) {
    const names = perId((id) => nameIn(byId.names, id));
    return {
      add(vector, rows) {
        const name = names(vector, rows);
        for (let i = 0; i < rows; i++) values.push(name(i));
      },
      take,
    };
  }
  const convert = COLUMN_VALUES[column.type];
  return {
    add(vector, rows) {
      const item = itemReader(vector, rows);
      for (let i = 0; i < rows; i++) {
        const value = item(i);
        values.push(value === null ? null : convert(value));
      }
    },
    take,
  };
}

/** Columns whose row groups get their min and max from rangeOf: numbers and booleans. */
const RANGED: ReadonlySet<ColumnType> = new Set(['int32', 'int64', 'float64', 'bool']);

/**
 * A column of a full export's row group as the writer takes it. Text columns (names, the stage)
 * get no min/max statistics: comparing every string by code point was a third of the writer's
 * time, and a reader skips row groups by ids, years and amounts, not by the range of the names.
 * Numbers and booleans get theirs from rangeOf, once the group is written (setRanges).
 */
const columnSource = (column: Column, data: unknown): ColumnSource =>
  ({ name: column.name, data, statistics: column.type !== 'utf8' && !RANGED.has(column.type) }) as ColumnSource;

type Statistics = NonNullable<NonNullable<ParquetWriter['row_groups'][number]['columns'][number]['meta_data']>['statistics']>;

/**
 * The min, max and null count of a row group's column of numbers or booleans (false before true),
 * set in the footer in place of hyparquet-writer's own: it compares value by value through code
 * written for every type, which cost a BIGINT id column 0.2 s a million lines, where this is one
 * loop. As the writer does, NaN (never in the service's numbers) is left out of the range, a zero
 * range is -0 to +0, and a column of nulls has none.
 */
function rangeOf(values: ArrayLike<number | bigint | boolean | null>): Statistics {
  if (values instanceof BigInt64Array) return int64Range(values);
  // Booleans compare as 0 and 1; the casts only say so to TypeScript.
  let min: number | undefined;
  let max: number | undefined;
  let nulls = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[i] as number | null;
    if (value === null) nulls++;
    else if (value === value) {
      if (min === undefined || value < min) min = value;
      if (max === undefined || value > max) max = value;
    }
  }
  if (min === 0) min = -0;
  if (max === 0) max = 0;
  return { min_value: min, max_value: max, null_count: BigInt(nulls) };
}

/**
 * rangeOf for BIGINTs without a bigint per value (reading each made one, about 100 ms a million
 * ids): each value compared by its 32-bit halves, the high one signed, the low one unsigned.
 */
function int64Range(values: BigInt64Array): Statistics {
  if (values.length === 0) return { min_value: undefined, max_value: undefined, null_count: 0n };
  const halves = int64Halves(values);
  const high = (i: number) => halves[2 * i + HIGH_HALF]!;
  const low = (i: number) => halves[2 * i + 1 - HIGH_HALF]! >>> 0;
  let min = 0;
  let max = 0;
  for (let i = 1; i < values.length; i++) {
    const h = high(i);
    if (h < high(min) || (h === high(min) && low(i) < low(min))) min = i;
    if (h > high(max) || (h === high(max) && low(i) > low(max))) max = i;
  }
  return { min_value: values[min], max_value: values[max], null_count: 0n };
}

/** Sets the ranges of the row group just written (see RANGED). */
function setRanges(writer: ParquetWriter, columns: readonly Column[], data: readonly unknown[]): void {
  const written = writer.row_groups.at(-1)!.columns;
  columns.forEach((column, i) => {
    if (!RANGED.has(column.type)) return;
    const chunk = written.find((c) => c.meta_data?.path_in_schema[0] === column.name)!;
    chunk.meta_data!.statistics = rangeOf(data[i] as ArrayLike<number | null>);
  });
}

/**
 * A full export, from DuckDB's chunks column by column (chunk-columns.ts): numbers handed to the
 * writer as typed arrays, names from the drop's. Not DuckDB's own COPY: its rows would need a join
 * to their names, which does not keep the lines' order, and sorting them back holds the whole
 * export in memory before the first byte (docs/performance.md#full-exports).
 */
async function* parquetFromQuery({ lease, sql, params, columns, named, rowsAtMost }: ExportQuery): AsyncGenerator<Buffer> {
  const { select, from } = sourceOf(columns, named);
  const group = columns.map((column) => groupColumn(column, named));
  const { writer, bytes, take } = parquetFile(columns);
  let rows = 0;
  const writeGroup = () => {
    const data = group.map((column) => column.take());
    void writer.write({ columnData: columns.map((c, i) => columnSource(c, data[i])), rowGroupSize: rows });
    setRanges(writer, columns, data);
    rows = 0;
  };
  let sent = false;
  for await (const chunk of lease.chunks(await selectColumns(sql, select), params, rowsAtMost)) {
    const vectors = select.map((_, i) => chunk.getColumnVector(i));
    group.forEach((column, c) => column.add(vectors[from[c]!]!, chunk.rowCount));
    rows += chunk.rowCount;
    if (rows >= ROW_GROUP_ROWS) writeGroup();
    // The magic number goes out with the first rows (a query failing before them still gets an error answer).
    if (!sent || bytes.index > 0) yield take();
    sent = true;
  }
  if (rows > 0) writeGroup();
  void writer.finish();
  yield take();
}

/** Each column type as DuckDB's writer is to write it, with the Arrow stream's type; a list column is written in JS. */
const COPY_TYPES: Partial<Record<ColumnType, string>> = {
  int32: 'INTEGER',
  int64: 'BIGINT',
  float64: 'DOUBLE',
  utf8: 'VARCHAR',
  bool: 'BOOLEAN',
};

export const parquet: DownloadFormat<'parquet'> = {
  name: 'parquet',
  mediaType: 'application/vnd.apache.parquet',
  contentType: 'application/vnd.apache.parquet',
  extension: 'parquet',
  download: true,
  encoder: parquetEncoder,
  fromQuery: parquetFromQuery,
  // A full export is DuckDB's own file, its required columns then marked so (parquet-copy.ts):
  // the same columns, types and values as fromQuery's, in other pages and encodings.
  copy: {
    options: PARQUET_COPY_OPTIONS,
    value: (type, ref) => {
      const sqlType = COPY_TYPES[type as ColumnType];
      return sqlType && `${ref}::${sqlType}`;
    },
    name: (text) => text,
    rewrite: withRequiredColumns,
    // Even a small Parquet file's bytes come out at its end, made in JS or not, and COPY makes them
    // sooner: one year of a 1M-line drop in 60-68 ms against 72-101 ms, first byte 8-15 against
    // 27-42 ms (docs/performance.md#parquet-written-by-duckdb-2026-11-28).
    writesAbove: 0,
  },
  openApi: ({ tables }) => ({
    schema: {
      type: 'string',
      contentMediaType: 'application/vnd.apache.parquet',
      description: `One Parquet file, the columns and types of the Arrow stream. ${columnList(tables, (c) => TYPE_NAMES[c.type])}`,
    },
  }),
};
