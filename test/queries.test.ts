import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { loadDrop, type LoadedDrop } from '../src/data/drop.js';
import { QUERIES, type QueryName } from '../src/data/queries.js';
import { readSql } from '../src/data/sql.js';
import { bound } from '../src/data/store.js';

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
});
