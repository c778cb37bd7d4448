import { createRequire } from 'node:module';
import type { DuckDBPreparedStatement } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { inMemoryDuckDB } from '../helpers/duckdb.js';
import { bindTo, resultRows } from '../../src/data/store.js';

describe("a prepared statement's rows (resultRows)", () => {
  const connection = inMemoryDuckDB();

  /** Runs `statement` with `params` bound as the server binds them. */
  const rowsOf = async (statement: DuckDBPreparedStatement, params: Record<string, string | number | bigint | null>) => {
    bindTo(statement, { sql: '', params: new Set(Object.keys(params)) }, params);
    return resultRows(statement, await statement.run());
  };

  it('reads every chunk of a result, each column by its name', async () => {
    const statement = await connection().prepare(
      "SELECT i::BIGINT AS id, i % 7 = 0 AS seventh, concat('line ', i) AS label FROM range($n::INTEGER) t(i)",
    );
    const rows = await rowsOf(statement, { n: 5000 });
    expect(rows).toHaveLength(5000);
    expect(rows[4999]).toEqual({ id: 4999, seventh: false, label: 'line 4999' });
    expect(rows.filter((row) => row.seventh)).toHaveLength(715);
  });

  it('reads the columns again when what is bound changes their types', async () => {
    const statement = await connection().prepare('SELECT $x AS x, 2::BIGINT AS n');
    expect(await rowsOf(statement, { x: 41 })).toEqual([{ x: 41, n: 2 }]);
    expect(await rowsOf(statement, { x: 'forty-one' })).toEqual([{ x: 'forty-one', n: 2 }]);
    expect(await rowsOf(statement, { x: 4.5 })).toEqual([{ x: 4.5, n: 2 }]);
    expect(await rowsOf(statement, { x: 2n ** 70n })).toEqual([{ x: 2n ** 70n, n: 2 }]);
  });

  it('binds each kind of value as node-api would infer its type', async () => {
    const statement = await connection().prepare(
      'SELECT typeof($a) AS a, typeof($b) AS b, typeof($c) AS c, typeof($d) AS d, typeof($e) AS e, $f IS NULL AS f',
    );
    expect(await rowsOf(statement, { a: 7, b: 2 ** 40, c: 0.5, d: 7n, e: 'text', f: null })).toEqual([
      { a: 'INTEGER', b: 'BIGINT', c: 'DOUBLE', d: 'HUGEINT', e: 'VARCHAR', f: true },
    ]);
  });
});

describe('the DuckDB bindings the service reads chunks with', () => {
  it("are node-api's own copy, so that a chunk node-api made is one they know", () => {
    const ours = createRequire(import.meta.url).resolve('@duckdb/node-bindings');
    const nodeApis = createRequire(createRequire(import.meta.url).resolve('@duckdb/node-api')).resolve('@duckdb/node-bindings');
    expect(ours).toBe(nodeApis);
  });
});
