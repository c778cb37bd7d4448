import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HIGH_HALF, int64Halves, typedItems, validBits } from '../../src/data/vectors.js';

describe("DuckDB's vectors read without a call per value", () => {
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:');
    connection = await instance.connect();
  });
  afterAll(() => {
    connection.closeSync();
    instance.closeSync();
  });

  /** The first chunk of `sql` (one column), and its row count. */
  const firstChunk = async (sql: string) => {
    const result = await connection.run(sql);
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
});
