/**
 * Memory a drop's database frees goes back to the system after another database of the process
 * was closed (src/data/close-database.ts). Closing a DuckDB database switches off, for the whole
 * process, the allocator threads that give freed pages back; without them turned on again, the
 * serving drop kept the memory of everything it had run since the last reload, 0.5-1.4 GB at 10M
 * lines. Measured as a process's resident memory, on Linux x64, where DuckDB allocates with jemalloc.
 */
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { closeDatabase } from '../src/data/close-database.js';

const withJemalloc = process.platform === 'linux' && process.arch === 'x64';

/** VmRSS or VmHWM (the peak) of this process, MB. */
function memoryMb(field: 'VmRSS' | 'VmHWM'): number {
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;
}

describe('a database still open after another one was closed', () => {
  it.runIf(withJemalloc)('gives the memory of a large query back to the system', async () => {
    const open = await DuckDBInstance.create(':memory:', { allocator_background_threads: 'true', threads: '2' });
    const connection = await open.connect();
    try {
      closeDatabase(await DuckDBInstance.create(':memory:', { threads: '1' }));
      const before = memoryMb('VmRSS');
      // A hash table of ten million groups: a few hundred MB, freed when the query ends.
      await connection.run('SELECT count(*) FROM (SELECT i, count(*) FROM range(10000000) t(i) GROUP BY i)');
      expect(memoryMb('VmHWM') - before, 'the query used memory, or this test would prove nothing').toBeGreaterThan(200);
      // The allocator gives freed pages back after a delay of its own: wait up to 10 s for it.
      let retained = memoryMb('VmRSS') - before;
      for (let waited = 0; retained >= 64 && waited < 10_000; waited += 250) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        retained = memoryMb('VmRSS') - before;
      }
      expect(retained).toBeLessThan(64);
    } finally {
      connection.closeSync();
      closeDatabase(open);
    }
  });
});
