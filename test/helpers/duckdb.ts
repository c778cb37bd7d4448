import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll } from 'vitest';

/**
 * A fresh in-memory DuckDB for the tests of the describe block that calls this: opened before
 * them, closed after. Its connection is what the returned function gives once they run.
 */
export function inMemoryDuckDB(): () => DuckDBConnection {
  let instance: DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:');
    connection = await instance.connect();
  });
  afterAll(() => {
    connection?.closeSync();
    instance?.closeSync();
  });
  return () => connection!;
}
