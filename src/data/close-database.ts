/**
 * Closing a DuckDB database gives its memory back to the system at once, and also switches off,
 * for the whole process, the allocator's background threads that give back what the databases
 * still open free later (DuckDB's DatabaseInstance destructor flushes jemalloc, then calls
 * SetBackgroundThreads(false)). Every load closes one (the anchors' reader), every reload the
 * drop it replaces: the serving drop then kept every page it ever freed. After a reload at 10M
 * lines the change summary's joins left 0.5-1.4 GB resident, over the serving target in 5 of 16
 * reloads (docs/performance.md#memory-given-back-after-a-reload-2026-11-29).
 *
 * So the service closes its databases here, and turns the threads back on from a database of its
 * own, empty, kept open for that (the drops' databases have their configuration locked). The
 * CLI's commands load drops the same way, so they open it too (a few ms); their last close, just
 * before they exit, is a plain closeSync (cli.ts): nothing is left to give memory back for.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { logger } from '../lib/log.js';
import { NO_EXTENSIONS } from './lockdown.js';

let keeper: Promise<DuckDBConnection> | undefined;

export function closeDatabase(instance: DuckDBInstance): void {
  instance.closeSync();
  void allocatorThreadsOn();
}

async function allocatorThreadsOn(): Promise<void> {
  try {
    keeper ??= DuckDBInstance.create(':memory:', { threads: '1', enable_external_access: 'false', ...NO_EXTENSIONS }).then((db) => db.connect());
    await (await keeper).run('SET allocator_background_threads = true');
  } catch (error) {
    keeper = undefined;
    logger.warn({ err: error }, "DuckDB's allocator threads could not be turned back on: freed memory stays with the process");
  }
}
