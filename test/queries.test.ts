import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { loadDrop, type LoadedDrop } from '../src/data/drop.js';
import { QUERIES, type QueryName } from '../src/data/queries.js';
import { readSql, variantOf, variantsOf } from '../src/data/sql.js';
import { bindTo, bound } from '../src/data/store.js';

const SQL_DIR = new URL('../sql/', import.meta.url);
const FILES = readdirSync(SQL_DIR)
  .filter((f) => f.endsWith('.sql'))
  .map((f) => f.slice(0, -'.sql'.length))
  .sort();

/** The parameters a .sql file's header comment lists: `-- $name TYPE what it is`. */
const headerParams = (name: string) =>
  [...readFileSync(new URL(`${name}.sql`, SQL_DIR), 'utf8').matchAll(/^-- \$(\w+)\s/gm)].map(([, param]) => param!).sort();

/** Values that let any query run (answering few rows or none), so that its columns can be read. */
const RUNNABLE: Record<string, string | number | boolean | null> = {
  stage: 'amended',
  limit: 1,
  offset: 0,
  by_year: false,
  last: false,
  top_level: false,
  type: 'expense',
  organization: 1,
};

let drop: LoadedDrop;
let connection: DuckDBConnection;
beforeAll(async () => {
  drop = await loadDrop(new URL('../data/', import.meta.url).pathname);
  connection = await drop.connect();
});
afterAll(() => {
  connection.closeSync();
  drop.instance.closeSync();
});

describe('the typed query map (src/data/queries.ts)', () => {
  it('has one entry for each query file under sql/, and no other', () => {
    expect(Object.keys(QUERIES).sort()).toEqual(FILES);
  });

  it.each(FILES)('binds the parameters that %s.sql lists in its header, and DuckDB finds no other', async (name) => {
    const declared = [...QUERIES[name as QueryName].params].sort();
    expect(declared).toEqual(headerParams(name));
    const statement = await connection.prepare(await readSql(name));
    const prepared = Array.from({ length: statement.parameterCount }, (_, i) => statement.parameterName(i + 1)).sort();
    expect(declared).toEqual(prepared);
  });

  it.each(FILES)('reads the columns that %s.sql gives', async (name) => {
    const { params, columns } = QUERIES[name as QueryName];
    const { values, types } = bound(Object.fromEntries(params.map((p) => [p, RUNNABLE[p] ?? null])));
    const result = await connection.run(await readSql(name), values, types);
    expect([...columns].sort()).toEqual([...result.columnNames()].sort());
  });

  it.each(FILES)('gives the same rows as %s.sql without the filters a request leaves NULL', async (name) => {
    const { params } = QUERIES[name as QueryName];
    const values = Object.fromEntries(params.map((p) => [p, RUNNABLE[p] ?? null]));
    const whole = bound(values);
    const variant = await variantOf(name, values);
    // Bound as the server binds it (store.ts bindTo).
    const statement = await connection.prepare(variant.sql);
    bindTo(statement, variant, values);
    const asServed = (await statement.runAndReadAll()).getRowsJson();
    expect(asServed).toEqual((await connection.runAndReadAll(await readSql(name), whole.values, whole.types)).getRowsJson());
  });
});

describe('a query without the filters a request leaves NULL (variantsOf)', () => {
  const sql = [
    '-- $a INTEGER  $b INTEGER  $c INTEGER  $d INTEGER, listed as a header lists them',
    'SELECT x FROM t',
    'WHERE x > 0',
    '  AND ($a::INTEGER IS NULL OR x = $a::INTEGER)',
    '  AND ($b::INTEGER[] IS NULL OR list_contains($b::INTEGER[], x))',
    '  AND ($c::INTEGER IS NULL OR x = $c::INTEGER) OR x = $d::INTEGER',
    'LIMIT 10;',
  ].join('\n');
  const of = variantsOf(sql);

  it('drops each filter line whose parameter is NULL, and binds only the parameters left', () => {
    const variant = of({ a: null, b: [1], c: 1, d: 2 });
    expect(variant.sql).not.toContain('x = $a');
    expect(variant.sql).toContain('list_contains($b::INTEGER[], x)');
    expect([...variant.params].sort()).toEqual(['b', 'c', 'd']);
  });

  it('keeps a line whose condition goes on past its parenthesis, NULL or not', () => {
    expect(of({ a: 1, b: null, c: null, d: 2 }).sql).toContain('x = $c::INTEGER) OR x = $d');
  });

  it('keeps every line when no parameter is NULL, and tells the variants apart', () => {
    const all = of({ a: 1, b: [1], c: 1, d: 2 });
    expect(all.sql).toBe(sql);
    expect(of({ a: null, b: [1], c: 1, d: 2 })).not.toBe(all);
    expect(of({ a: undefined, b: [1], c: 1, d: 2 })).toBe(of({ a: null, b: [1], c: 1, d: 2 }));
  });
});

describe('the served database', () => {
  it('reads a small page (50 lines or fewer, past an offset) in one scan, not a scan and a join back by row id', async () => {
    // DuckDB's late materialization (for LIMIT 50 or less) made such pages 2-8 times slower on
    // in-memory tables (docs/performance.md#small-pages-2026-11-28).
    const params = { year_from: 2024, year_to: 2024, limit: 5, from_id: 1n, to_id: 1000n, skip: 2n };
    const variant = await variantOf('expenses', params);
    const { values, types } = bound(Object.fromEntries([...variant.params].map((p) => [p, params[p as keyof typeof params]])));
    const plan = (await connection.runAndReadAll(`EXPLAIN ${variant.sql}`, values, types))
      .getRows()
      .map((row) => String(row[1]))
      .join('\n');
    expect(plan.match(/SEQ_SCAN/g)).toHaveLength(1);
    expect(plan).not.toMatch(/JOIN|rowid/i);
  });
});
