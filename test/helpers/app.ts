import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createApp } from '../../src/app.js';
import { parseConfig, type Config } from '../../src/config.js';
import { loadDrop, type LoadOptions } from '../../src/data/drop.js';
import { Releases } from '../../src/data/releases.js';
import { serveAtStartup } from '../../src/data/reloader.js';
import { Store } from '../../src/data/store.js';
import { createHttpServer, type Limits } from '../../src/http/listener.js';
import { ApiKeys } from '../../src/http/api-keys.js';
import { ExportFiles } from '../../src/http/export-files.js';
import { SharedCounts } from '../../src/http/rate-limit.js';
import { writeDrop, type DropData, type DropOptions } from './drop.js';

export interface TestApp {
  app: Express;
  store: Store;
  config: Config;
  close(): Promise<void>;
}

/** The real app over a real DuckDB loaded from a real drop; rate limiting off unless asked for. */
export async function appFor(data: DropData, env: Record<string, string> = {}, drop: DropOptions = {}, serving: Serving = {}): Promise<TestApp> {
  return appServing(await writeDrop(data, drop), env, {}, serving);
}

export interface Serving {
  /** Keep every drop served as a release, in a folder of the test's own, as the server does (RELEASES_DIR); the drop is then loaded as the server loads it, without LoadOptions. */
  releases?: boolean;
}

/**
 * The real app serving the drop already in `dir` (DATA_DIR), as the server starts it: with its
 * export files (whole exports written once, by DuckDB where it can) in a folder of the test's own.
 */
export async function appServing(dir: string, env: Record<string, string> = {}, load: LoadOptions = {}, serving: Serving = {}): Promise<TestApp> {
  const config: Config = parseConfig({ RATE_LIMIT: '0', DATA_DIR: dir, ...env });
  const store = new Store(4, { maxConcurrent: config.MAX_CONCURRENT_QUERIES, timeoutMs: config.QUERY_TIMEOUT_MS, queueWaitMs: config.QUEUE_WAIT_MS });
  const releases = serving.releases
    ? await Releases.open({ dir: mkdtempSync(path.join(tmpdir(), 'budget-test-releases-')), keep: 20, store })
    : undefined;
  if (releases) {
    await serveAtStartup(store, async () => dir);
    await releases.settled();
  } else store.swap(await loadDrop(dir, load));
  const counts = config.RATE_LIMIT_REDIS_URL ? new SharedCounts(config.RATE_LIMIT_REDIS_URL) : undefined;
  const apiKeys = config.API_KEYS_FILE ? await ApiKeys.load(config.API_KEYS_FILE) : undefined;
  const exportFiles = new ExportFiles(mkdtempSync(path.join(tmpdir(), 'budget-test-exports-')), config.EXPORT_CACHE_MB * 2 ** 20);
  return {
    app: createApp({ config, store, counts, apiKeys, exportFiles }),
    store,
    config,
    close: async () => {
      releases?.close();
      store.close();
      await counts?.close();
      await exportFiles.clear();
    },
  };
}

/**
 * Listens on a free loopback port, through the same HTTP server as production (with its limits,
 * or shorter ones for a test); resolves with the base URL and a function to stop.
 */
export async function listen(app: Express, limits: Partial<Limits> = {}): Promise<{ base: string; port: number; stop(): Promise<void> }> {
  const server: Server = createHttpServer(app, limits).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    stop: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
