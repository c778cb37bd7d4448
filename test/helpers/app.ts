import type { Express } from 'express';
import { createApp } from '../../src/app.js';
import { parseConfig, type Config } from '../../src/config.js';
import { loadDrop } from '../../src/data/drop.js';
import { Store } from '../../src/data/store.js';
import { writeDrop, type DropData, type DropOptions } from './drop.js';

export interface TestApp {
  app: Express;
  store: Store;
  close(): void;
}

/** The real app over a real DuckDB loaded from a real drop; rate limiting off unless asked for. */
export async function appFor(data: DropData, env: Record<string, string> = {}, drop: DropOptions = {}): Promise<TestApp> {
  const dir = await writeDrop(data, drop);
  const config: Config = parseConfig({ RATE_LIMIT: '0', DATA_DIR: dir, ...env });
  const store = new Store();
  store.swap(await loadDrop(dir));
  return { app: createApp({ config, store }), store, close: () => store.close() };
}
