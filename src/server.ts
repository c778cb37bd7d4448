/**
 * The process: parse the configuration, load the drop, listen; reload the drop on SIGHUP and when
 * it changes on disk; on SIGTERM/SIGINT turn /readyz to 503, let in-flight requests finish, stop
 * accepting, close DuckDB and exit 0.
 */
import type { Server, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { createApp } from './app.js';
import { ENDPOINTS } from './api/endpoints/index.js';
import { ExportFiles } from './http/export-files.js';
import { TRUST_PROXY_TRUE, parseConfig, type Config } from './config.js';
import { Releases } from './data/releases.js';
import { Reloader, serveAtStartup } from './data/reloader.js';
import { RemoteDrops } from './data/remote.js';
import { Store } from './data/store.js';
import { createHttpServer } from './http/listener.js';
import { ApiKeys } from './http/api-keys.js';
import { SharedCounts } from './http/rate-limit.js';
import { logger } from './lib/log.js';
import { warmUp, warmUpPaths } from './http/warm-up.js';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  let config: Config;
  try {
    config = parseConfig();
  } catch (error) {
    return fail(error);
  }
  if (config.TRUST_PROXY === true) logger.warn(TRUST_PROXY_TRUE);
  const started = performance.now();
  const store = new Store(Number(process.env.UV_THREADPOOL_SIZE) || 4, {
    maxConcurrent: config.MAX_CONCURRENT_QUERIES,
    timeoutMs: config.QUERY_TIMEOUT_MS,
    queueWaitMs: config.QUEUE_WAIT_MS,
  });
  // With DATA_URL the drop is downloaded to a local directory first, then loaded as any other.
  const remote = config.DATA_URL ? new RemoteDrops({ dataUrl: config.DATA_URL, store, maxBytes: config.DATA_MAX_MB * 2 ** 20 }) : undefined;
  let releases: Releases;
  try {
    releases = await Releases.open({ dir: config.RELEASES_DIR, keep: config.RELEASES_KEEP, store });
  } catch (error) {
    return fail(new Error(`RELEASES_DIR=${config.RELEASES_DIR} cannot be used: ${(error as Error).message}`));
  }
  try {
    await serveAtStartup(store, async () => (remote ? await remote.download() : config.DATA_DIR));
  } catch (error) {
    return fail(error);
  }
  let apiKeys: ApiKeys | undefined;
  try {
    apiKeys = config.API_KEYS_FILE ? await ApiKeys.load(config.API_KEYS_FILE) : undefined;
  } catch (error) {
    return fail(error);
  }
  // Connects in the background: until Redis answers, each replica counts on its own.
  const counts = config.RATE_LIMIT_REDIS_URL ? new SharedCounts(config.RATE_LIMIT_REDIS_URL) : undefined;
  const drop = store.served!;
  logger.info({ version: drop.manifest.version, dir: drop.dir, ms: Math.round(performance.now() - started) }, 'data drop loaded');

  // A folder of this process's own unless one is configured, so two servers never share files.
  const exportFiles = new ExportFiles(
    config.EXPORT_CACHE_DIR ?? path.join(tmpdir(), `budget-exports-${process.pid}`),
    config.EXPORT_CACHE_MB * 2 ** 20,
  );
  // Files left by an earlier start may have been written by other code: never served again.
  await exportFiles.clear();
  await warmUpQuietly(config, store, drop.years);
  const server = createHttpServer(createApp({ config, store, counts, apiKeys, exportFiles })).listen(config.PORT, config.HOST, () => {
    const address = server.address();
    logger.info({ host: config.HOST, port: typeof address === 'object' ? address?.port : config.PORT }, 'listening');
  });
  server.on('error', fail);
  const inFlight = countInFlight(server);

  const reloader = remote ? undefined : new Reloader({ dataDir: config.DATA_DIR, store });
  reloader?.watch();
  remote?.poll(config.DATA_POLL_SECONDS);
  process.on('SIGHUP', () => {
    void (remote ? remote.check('SIGHUP') : reloader!.reload('SIGHUP'));
    void apiKeys?.reload();
  });

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    // Written at once, not with the next batch of lines: whoever stops the server sees it stopping.
    logger.flush();
    store.shuttingDown = true;
    reloader?.close();
    releases.close();
    void remote?.close();
    drainThenStop(server, inFlight, () => {
      store.close();
      void counts?.close();
      // A release still being recorded (the drop loaded just before) is finished first: cut short,
      // a restart over a broken drop would find nothing kept to fall back on.
      void Promise.all([exportFiles.clear(), releases.settled()]).finally(() => process.exit(0));
    });
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

/**
 * Counts the requests whose response is not finished, for the shutdown to wait on them. A
 * response that ends or whose client leaves emits 'close' either way.
 */
function countInFlight(server: Server): { count: number; onIdle: (() => void) | null } {
  const state = { count: 0, onIdle: null as (() => void) | null };
  server.on('request', (_req, res: ServerResponse) => {
    state.count += 1;
    res.once('close', () => {
      state.count -= 1;
      if (state.count === 0) state.onIdle?.();
    });
  });
  return state;
}

/**
 * While requests are in flight, the listener stays open so that a load balancer polling /readyz
 * sees the 503 (and any request it still sends is answered); once none is in flight, or after
 * the grace period, the listener closes, idle keep-alive connections are dropped, and busy ones
 * get one more grace period.
 */
function drainThenStop(server: Server, inFlight: ReturnType<typeof countInFlight>, done: () => void): void {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.close(() => done());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
  };
  if (inFlight.count === 0) return stop();
  inFlight.onIdle = stop;
  setTimeout(stop, SHUTDOWN_GRACE_MS).unref();
}

/**
 * Runs what first requests run before the server listens (http/warm-up.ts), on an app of its own
 * that counts, logs, caches and keeps nothing; the process's log says how long it took. That app
 * stays subscribed to the store's swaps, where it clears an empty cache and a folder already gone.
 */
async function warmUpQuietly(config: Config, store: Store, years: readonly number[]): Promise<void> {
  const files = new ExportFiles(path.join(tmpdir(), `budget-warm-up-${process.pid}`), 0);
  const app = createApp({ config: { ...config, RATE_LIMIT: 0, RESPONSE_CACHE_MB: 0 }, store, log: pino({ level: 'silent' }), exportFiles: files });
  try {
    const { requests, ms, failed } = await warmUp(app, warmUpPaths(ENDPOINTS, years));
    if (failed.length > 0) logger.error({ failed }, 'warm-up requests failed');
    logger.info({ requests, ms: Math.round(ms) }, 'warmed up');
  } catch (error) {
    // No loopback port to be had: the server still starts, only colder.
    logger.warn({ err: error }, 'warm-up skipped');
  } finally {
    await files.clear();
  }
}

function fail(error: unknown): void {
  // ConfigError and DropError messages are written to be this one line.
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`budget-api: ${message}\n`);
  process.exit(1);
}

void main();
