import { describe, expect, it } from 'vitest';
import { inMemoryDuckDB } from '../helpers/duckdb.js';
import { HIGH_HALF, int64Halves, itemReader, plainReader, typedItems, validBits } from '../../src/data/vectors.js';
import { plainValue } from '../../src/data/values.js';

describe("DuckDB's vectors read without a call per value", () => {
  const connection = inMemoryDuckDB();

  /** The first chunk of `sql` (one column), and its row count. */
  const firstChunk = async (sql: string) => {
    const result = await connection().run(sql);
    const chunk = result.getChunk(0);
    return { vector: chunk.getColumnVector(0), rows: chunk.rowCount };
  };

  describe('validBits', () => {
    it('sets the bit of every value that is not null, across words', async () => {
      const nulls = new Set([0, 31, 32, 33, 64, 2047]);
      const { vector, rows } = await firstChunk(
        `SELECT CASE WHEN i IN (${[...nulls].join(', ')}) THEN NULL ELSE i END::INTEGER FROM range(2048) t(i)`,
      );
      expect(rows).toBe(2048);
      const bits = validBits(vector, rows)!;
      const valid = Array.from({ length: rows }, (_, i) => ((bits[i >>> 5]! >>> (i & 31)) & 1) === 1);
      expect(valid).toEqual(Array.from({ length: rows }, (_, i) => !nulls.has(i)));
    });

    it('is undefined when no value is null', async () => {
      const { vector, rows } = await firstChunk('SELECT i::INTEGER FROM range(100) t(i)');
      expect(validBits(vector, rows)).toBeUndefined();
    });
  });

  describe('int64Halves', () => {
    it('gives the high and low 32 bits of every BIGINT, negative ones included', async () => {
      const values = [0n, -1n, 2n ** 31n - 1n, 2n ** 31n, 2n ** 32n, 2n ** 53n + 1n, -(2n ** 40n) - 3n, 2n ** 63n - 1n, -(2n ** 63n)];
      const { vector, rows } = await firstChunk(`SELECT unnest([${values.join(', ')}]::BIGINT[])`);
      const halves = int64Halves(typedItems(vector, rows, 'int64'));
      const read = Array.from({ length: rows }, (_, i) => (BigInt(halves[2 * i + HIGH_HALF]!) << 32n) | BigInt(halves[2 * i + 1 - HIGH_HALF]! >>> 0));
      expect(read).toEqual(values);
    });
  });

  /**
   * Every column of the first chunk of `sql`, read by `reader` and value by value with getItem,
   * each value then made what the reader should give (`expected`).
   */
  const readBothWays = async (sql: string, reader: typeof itemReader, expected: (value: unknown) => unknown) => {
    const chunk = (await connection().run(sql)).getChunk(0);
    return Array.from({ length: chunk.columnCount }, (_, c) => {
      const vector = chunk.getColumnVector(c);
      const read = reader(vector, chunk.rowCount);
      return {
        reader: Array.from({ length: chunk.rowCount }, (_, i) => read(i)),
        getItem: Array.from({ length: chunk.rowCount }, (_, i) => expected(vector.getItem(i))),
      };
    });
  };

  describe('itemReader', () => {
    const bothWays = (sql: string) => readBothWays(sql, itemReader, (value) => value);

    it('reads BIGINT, INTEGER, DOUBLE, ENUM and BOOLEAN values and their nulls as getItem does', async () => {
      const columns = await bothWays(`
        SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE i * 4294967296 - 7 END::BIGINT,
               CASE WHEN i % 5 = 0 THEN NULL ELSE i - 1000 END::INTEGER,
               CASE WHEN i % 7 = 0 THEN NULL ELSE i / 3 END::DOUBLE,
               CASE WHEN i % 11 = 0 THEN NULL ELSE (['initial', 'amendment', 'executed'])[i % 3 + 1] END::ENUM('initial', 'amendment', 'executed'),
               CASE WHEN i % 13 = 0 THEN NULL ELSE i % 2 = 0 END::BOOLEAN
        FROM range(2048) t(i)`);
      for (const { reader, getItem } of columns) {
        expect(reader).toEqual(getItem);
        expect(reader.filter((value) => value === null).length).toBeGreaterThan(100);
      }
      expect(columns.map((c) => c.reader[1])).toEqual([4294967289n, -999, 1 / 3, 'amendment', false]);
    });

    it('reads columns without a null, and other types, as getItem does', async () => {
      const columns = await bothWays(`SELECT i::BIGINT, (i % 2 = 0)::BOOLEAN, 'x' || i::VARCHAR, (i / 8)::DECIMAL(18, 3) FROM range(300) t(i)`);
      for (const { reader, getItem } of columns) expect(reader).toEqual(getItem);
      expect(columns.map((c) => c.reader[299])).toEqual([299n, false, 'x299', columns[3]!.getItem[299]]);
    });
  });

  describe('plainReader', () => {
    const bothWays = (sql: string) => readBothWays(sql, plainReader, plainValue);

    it('reads a BIGINT within ±(2^53 - 1) as a number and one past it as a bigint, nulls as null', async () => {
      const values = [
        0n,
        -1n,
        1n,
        2n ** 32n - 1n,
        2n ** 32n,
        -(2n ** 32n),
        2n ** 53n - 1n,
        -(2n ** 53n) + 1n,
        2n ** 53n,
        -(2n ** 53n),
        2n ** 53n + 1n,
        2n ** 63n - 1n,
        -(2n ** 63n),
      ];
      const [column] = await bothWays(`SELECT unnest([${values.join(', ')}, NULL]::BIGINT[])`);
      expect(column!.reader).toEqual(column!.getItem);
      expect(column!.reader).toEqual([
        0,
        -1,
        1,
        2 ** 32 - 1,
        2 ** 32,
        -(2 ** 32),
        2 ** 53 - 1,
        -(2 ** 53) + 1,
        2n ** 53n,
        -(2n ** 53n),
        2n ** 53n + 1n,
        2n ** 63n - 1n,
        -(2n ** 63n),
        null,
      ]);
    });

    it('reads every other type as plainValue of getItem does: lists, decimals, text, non-finite doubles', async () => {
      const columns = await bothWays(`
        SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE i * 4294967296 - 7 END::BIGINT,
               CASE WHEN i % 5 = 0 THEN NULL ELSE i - 1000 END::INTEGER,
               CASE WHEN i % 7 = 0 THEN NULL WHEN i % 7 = 1 THEN 'infinity'::DOUBLE WHEN i % 7 = 2 THEN 'nan'::DOUBLE ELSE i / 3 END::DOUBLE,
               CASE WHEN i % 11 = 0 THEN NULL ELSE [i, i + 1]::BIGINT[] END,
               (i / 8)::DECIMAL(18, 3),
               'x' || i::VARCHAR,
               (i % 2 = 0)::BOOLEAN
        FROM range(300) t(i)`);
      for (const { reader, getItem } of columns) expect(reader).toEqual(getItem);
      expect(columns.map((c) => c.reader[1])).toEqual([4294967289, -999, 'Infinity', [1, 2], 0.125, 'x1', false]);
    });
  });
});
