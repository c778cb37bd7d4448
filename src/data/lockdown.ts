/**
 * DuckDB as the service leaves it once a drop is loaded (security review, finding 4). No request
 * reaches DuckDB with SQL of its own (every statement is a fixed file of sql/ with bound values),
 * but should one ever, the database it meets can read and write no file but the service's own
 * scratch, reach no network, install or load no extension, and change none of these settings.
 */
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';

/** Set when a database is created: no extension is fetched or loaded behind the service's back, even during the load. */
export const NO_EXTENSIONS = {
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  allow_community_extensions: 'false',
} as const;

/**
 * Where the service itself has DuckDB write and read files after a load: the Parquet copies of
 * the previous drop that /meta/'s `changes` compares (data/diff.ts changeBetween). One per process.
 */
export const SCRATCH_DIR = path.join(tmpdir(), `budget-scratch-${process.pid}`);

export async function scratchDir(): Promise<string> {
  await mkdir(SCRATCH_DIR, { recursive: true });
  return SCRATCH_DIR;
}

/**
 * After the load and the derive step: files only under `allowed` (the scratch directory and the
 * database's spill directory), no other file or URL, then the configuration locked.
 */
export async function lockDown(connection: DuckDBConnection, allowed: readonly string[]): Promise<void> {
  const list = allowed.map((dir) => `'${dir.replaceAll("'", "''").replace(/\/?$/, '/')}'`).join(', ');
  await connection.run(`SET allowed_directories = [${list}]`);
  await connection.run('SET enable_external_access = false');
  await connection.run('SET lock_configuration = true');
}

/** What one drop's database may hold in memory when no container limit says otherwise. */
const DEFAULT_LIMIT_BYTES = 1.5 * 2 ** 30;
/** The share of a container's memory one database may take: a reload holds two, beside Node's own heap. */
const SHARE_OF_CONTAINER = 0.5;

/**
 * DuckDB's memory_limit: 1.5 GB, or half the container's memory limit (cgroup v2 memory.max, v1
 * memory.limit_in_bytes) when that is less, so that a load spills to disk before the container
 * is killed for memory.
 */
export function duckdbMemoryLimit(files = ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']): string {
  let limit = DEFAULT_LIMIT_BYTES;
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch {
      continue;
    }
    // "max" (v2) or a number near 2^63 (v1): no limit.
    if (/^\d+$/.test(text) && Number(text) < 2 ** 50) limit = Math.min(limit, Number(text) * SHARE_OF_CONTAINER);
    break;
  }
  return `${Math.floor(limit / 2 ** 20)}MB`;
}
