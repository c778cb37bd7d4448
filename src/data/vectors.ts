/**
 * DuckDB's vectors as typed arrays: numbers and which values are null out of a result's chunks
 * (full exports, src/formats/; the lines as loaded, src/data/line-anchors.ts; a query's rows,
 * src/data/store.ts), without a call per value.
 */
import { DuckDBTypeId, type DuckDBEnumType, type DuckDBVector } from '@duckdb/node-api';
import { plainValue } from './values.js';

export type TypedValues = Int32Array | BigInt64Array | Float64Array;
export const TYPED = { int32: Int32Array, int64: BigInt64Array, float64: Float64Array } as const;

/**
 * The values of a DuckDB vector of INTEGER, BIGINT or DOUBLE as its typed array, when the vector
 * keeps one (node-api's vectors do, as `items`, over the chunk's memory: use it before the next
 * chunk), else read item by item. Only for columns without nulls: the typed array has no validity.
 */
export function typedItems<K extends keyof typeof TYPED>(vector: DuckDBVector, rows: number, type: K): InstanceType<(typeof TYPED)[K]> {
  const Typed = TYPED[type];
  const items = (vector as unknown as { items?: unknown }).items;
  if (items instanceof Typed && items.length === rows) return items as InstanceType<(typeof TYPED)[K]>;
  const values = new Typed(rows);
  for (let i = 0; i < rows; i++) values[i] = vector.getItem(i) as never;
  return values as InstanceType<(typeof TYPED)[K]>;
}

/** Which 32-bit half of a BIGINT, as stored, is its high one: the second on little-endian machines. */
export const HIGH_HALF = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/**
 * BIGINT values (typedItems' 'int64') as 32-bit halves over the same memory (value i:
 * halves[2i + HIGH_HALF] high, the other low), so that they are compared or looked up without
 * making a bigint per value.
 */
export function int64Halves(values: BigInt64Array): Int32Array {
  return new Int32Array(values.buffer, values.byteOffset, values.length * 2);
}

/**
 * BIGINT value i of `halves` (int64Halves) as a number when it is a safe integer, within
 * ±(2^53 - 1), as plainValue makes it; else undefined. No bigint is made.
 */
export function safeIntegerAt(halves: Int32Array, i: number): number | undefined {
  const high = halves[2 * i + HIGH_HALF]!;
  if (high < -0x200000 || high >= 0x200000) return undefined;
  const value = high * 0x100000000 + (halves[2 * i + 1 - HIGH_HALF]! >>> 0);
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * Which of a vector's first `rows` values are not null, as bits (value i: bit i % 32 of word
 * i >> 5), or undefined when none is null. Read from the validity mask node-api keeps beside the
 * values when it has one (as `items`, see typedItems), else value by value.
 */
export function validBits(vector: DuckDBVector, rows: number): Uint32Array | undefined {
  const mask = (vector as unknown as { validity?: { data?: unknown } }).validity?.data;
  if (mask === null) return undefined;
  if (mask instanceof BigUint64Array && mask.length * 64 >= rows) return new Uint32Array(mask.buffer, mask.byteOffset, mask.length * 2);
  const bits = new Uint32Array(Math.ceil(rows / 32));
  let nulls = false;
  for (let i = 0; i < rows; i++) {
    if (vector.getItem(i) === null) nulls = true;
    else bits[i >>> 5]! |= 1 << (i & 31);
  }
  return nulls ? bits : undefined;
}

/**
 * Reads a vector's first `rows` values as getItem gives them, nulls included, without getItem's
 * test of each value's validity bit (node-api shifts and masks bigints for it, the larger part of a
 * read). Nulls come from validBits; values straight from the memory node-api keeps for BIGINT,
 * INTEGER and DOUBLE (`items`), an ENUM (`items`, indexes into its values) and a BOOLEAN (one byte
 * each); any other type through getItem.
 */
export function itemReader(vector: DuckDBVector, rows: number): (i: number) => unknown {
  return orNull(vector, rows, valueReader(vector, rows));
}

/** `value` for the values that are not null (validBits), null for the others. */
function orNull(vector: DuckDBVector, rows: number, value: (i: number) => unknown): (i: number) => unknown {
  const valid = validBits(vector, rows);
  if (!valid) return value;
  return (i) => ((valid[i >>> 5]! & (1 << (i & 31))) !== 0 ? value(i) : null);
}

function valueReader(vector: DuckDBVector, rows: number): (i: number) => unknown {
  const held = vector as unknown as { items?: unknown; dataView?: unknown };
  const { items, dataView } = held;
  switch (vector.type.typeId) {
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.DOUBLE:
      if ((items instanceof BigInt64Array || items instanceof Int32Array || items instanceof Float64Array) && items.length >= rows) return (i) => items[i];
      break;
    case DuckDBTypeId.ENUM: {
      const values = (vector.type as DuckDBEnumType).values;
      if ((items instanceof Uint8Array || items instanceof Uint16Array || items instanceof Uint32Array) && items.length >= rows) return (i) => values[items[i]!];
      break;
    }
    case DuckDBTypeId.BOOLEAN:
      if (dataView instanceof DataView && dataView.byteLength === rows) return (i) => dataView.getUint8(i) !== 0;
      break;
  }
  return (i) => vector.getItem(i);
}

/**
 * Reads a vector's first `rows` values as plain JS values (values.ts plainValue), for a query's
 * rows. A BIGINT within ±(2^53 - 1) (ids, counts) is made a number from its two halves, without
 * the bigint that getItem makes first: a page of lines has four BIGINT columns, and their bigints
 * were the larger part of what each answer left for the young generation to collect
 * (docs/performance.md, "The young generation's pauses").
 */
export function plainReader(vector: DuckDBVector, rows: number): (i: number) => unknown {
  const items = (vector as unknown as { items?: unknown }).items;
  if (vector.type.typeId === DuckDBTypeId.BIGINT && items instanceof BigInt64Array && items.length >= rows) {
    const halves = int64Halves(items);
    return orNull(vector, rows, (i) => safeIntegerAt(halves, i) ?? plainValue(items[i]));
  }
  const read = itemReader(vector, rows);
  return (i) => plainValue(read(i));
}
