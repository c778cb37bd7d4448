import { createHash } from 'node:crypto';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { ipKeyGenerator, type ClientRateLimitInfo, type Options, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import { createClient } from '@redis/client';
import { logger } from '../lib/log.js';
import { memo } from '../lib/memo.js';
import type { ApiKey } from './api-keys.js';
import { problem } from '../domain/errors.js';
import { CountsInMemory } from './counts-in-memory.js';
import { setFrontHeader } from './headers.js';
import { pathOf } from './url-path.js';

export interface RateLimitOptions {
  /** Requests per minute for a client without an API key; 0: not limited. */
  perMinute: number;
  /** Where the counts are kept; a fresh in-memory store when not given. */
  counts?: Store;
  /** Paths never counted (the health checks, from routes.ts). */
  unlimited: readonly string[];
}

const WINDOW_MS = 60_000;
/** How many clients' keys are remembered (see memo). */
const CLIENTS_REMEMBERED = 10_000;

/**
 * `perMinute` requests per client IP per minute, with IETF draft-8 headers; CORS preflights and the
 * `unlimited` paths are not counted. A request with an API
 * key (res.locals.apiKey, set by the api-keys middleware before this one) counts against its key's
 * own budget and limit, whatever its IP, and its RateLimit-Policy carries the key's name.
 *
 * Every request of the hot path goes through this (measured with scripts/bench/profile.ts; see
 * docs/performance.md), so what belongs to a client rather than to a request is worked out once
 * per client: its budget's key (an IPv6 address's /56 takes the ipaddr parser 10 µs or more) and
 * the pk= of its RateLimit-Policy, a SHA-256 that express-rate-limit would hash again on every
 * request. The counts are kept in this process (CountsInMemory, counted at once) or shared
 * (SharedCounts: express-rate-limit's RedisStore); the middleware around them is this one, which
 * waits for no promise for a count in memory and for one with Redis, where express-rate-limit's
 * awaited five (about a tenth of a cache hit's CPU, measured), and writes the very headers
 * express-rate-limit's draft-8 ones are (test/rate-limit.test.ts compares both, up to the 429).
 */
export function rateLimiter({ perMinute, counts, unlimited }: RateLimitOptions): RequestHandler {
  const exempt = new Set(unlimited);
  const isExempt = (path: string) => exempt.has(path);
  const store: Store = counts ?? new CountsInMemory();
  // What express-rate-limit gives a store before its first count; the stores read windowMs alone.
  void Promise.resolve(store.init?.({ windowMs: WINDOW_MS } as Options)).catch((error: Error) =>
    logger.error({ err: error }, 'rate limit counts could not be set up'),
  );
  const anonymous = `${perMinute}-in-1min`;
  const addressKey = memo((address: string) => `ip:${ipKeyGenerator(address)}`, CLIENTS_REMEMBERED);
  const partitionKey = memo(draftEightPartitionKey, CLIENTS_REMEMBERED);
  return (req, res, next) => {
    const apiKey = res.locals.apiKey as ApiKey | undefined;
    // A CORS preflight is never refused: a browser that got a 429 for it reports a CORS failure,
    // and the page could not read the 429 (nor its Retry-After) of the request it asked for. It
    // carries no data. A request not counted has no headers.
    if (req.method === 'OPTIONS' || isExempt(pathOf(req.originalUrl)) || (perMinute === 0 && !apiKey)) return next();
    const budget = apiKey ? `key:${apiKey.name}` : addressKey(clientAddress(req));
    const limit = apiKey?.limit ?? perMinute;
    const name = apiKey?.name ?? anonymous;
    const counted = ({ totalHits, resetTime }: ClientRateLimitInfo) => {
      const reset = resetSeconds(resetTime);
      draftEightHeaders(res, name, limit, Math.max(limit - totalHits, 0), reset, partitionKey(budget));
      if (totalHits <= limit) return next();
      setFrontHeader(res, 'Retry-After', String(reset));
      const who = apiKey ? `for this API key ` : '';
      next(problem.rateLimited(`too many requests: the limit ${who}is ${limit} per minute; retry after ${reset} s`));
    };
    const count = store.increment(budget);
    // Counts in memory come at once, and the request goes on without waiting for a promise;
    // shared counts come when Redis answers.
    if (!(count instanceof Promise)) return counted(count);
    count
      .then(counted)
      // As express-rate-limit did: a store that fails fails the request (SharedCounts never does:
      // it counts in memory while Redis is away).
      .catch(next);
  };
}

/**
 * Express's req.ip parses X-Forwarded-For on every call, even when no proxy is trusted and it must
 * ignore the header; the limiter reads it on every request. With no proxy trusted it is the socket's address, so the app's requests take
 * it from there; with a trusted proxy Express's own getter answers, as before.
 */
export function socketAddressUnlessProxied(app: Express): void {
  const expressIp = Object.getOwnPropertyDescriptor(express.request, 'ip')!.get!;
  Object.defineProperty((app as unknown as { request: object }).request, 'ip', {
    configurable: true,
    enumerable: true,
    get(this: Request) {
      return this.app.get('trust proxy') === false ? this.socket.remoteAddress : expressIp.call(this);
    },
  });
}

/** The client's address: the socket's, or with a trusted proxy the one it forwarded. */
const clientAddress = (req: Request) => req.ip ?? '';

/** Seconds until the client's window ends, as express-rate-limit counts them. */
function resetSeconds(resetTime: Date | undefined): number {
  return resetTime ? Math.max(0, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : Math.ceil(WINDOW_MS / 1000);
}

/**
 * The IETF draft-8 RateLimit and RateLimit-Policy headers, byte for byte as express-rate-limit's
 * `standardHeaders: 'draft-8'` writes them (test/rate-limit.test.ts compares both).
 */
function draftEightHeaders(res: Response, name: string, limit: number, remaining: number, reset: number, pk: string): void {
  if (res.headersSent) return;
  setFrontHeader(res, 'RateLimit', `"${name}"; r=${remaining}; t=${reset}`);
  setFrontHeader(res, 'RateLimit-Policy', `"${name}"; q=${limit}; w=${Math.ceil(WINDOW_MS / 1000)}; pk=:${pk}:`);
}

/** The policy's partition key: the first 12 hex digits of the budget key's SHA-256, in base64. */
function draftEightPartitionKey(key: string): string {
  return Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');
}

interface RateLimitStatus {
  store: 'redis' | 'memory';
  /** null when no Redis is configured. */
  redis: 'connected' | 'unavailable' | null;
}

/** How long a count may wait for Redis before the request is counted in memory instead. */
const REDIS_COMMAND_TIMEOUT_MS = 500;
/** A Redis not ready this long after start is said unavailable in the log (it may never error). */
const REDIS_SILENT_MS = 5_000;
/** How often a Redis that stalled with its connection open is tried again. */
const REDIS_RETRY_MS = 2_000;

/**
 * Rate-limit counts kept in Redis (RATE_LIMIT_REDIS_URL), so that every replica enforces one
 * budget per client. While Redis cannot be reached the counts are kept in this process's memory:
 * the service keeps answering, each replica limiting on its own, and goes back to Redis as soon
 * as the client reconnects. Each change is logged once and shown in /budget/api/meta/.
 */
export class SharedCounts implements Store {
  private readonly memory = new CountsInMemory();
  private readonly client: ReturnType<typeof createClient>;
  /** Set while Redis is connected and its scripts are loaded; null while counting in memory. */
  private redis: RedisStore | null = null;
  private options: Options | undefined;
  private closed = false;
  private warned = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(url: string) {
    this.client = createClient({
      url,
      // Fail at once while disconnected rather than queue: a queued count would hold the request.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: 2_000,
        // Keep trying for as long as the process lives, at most every 2 s.
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000),
      },
    });
    this.client.on('ready', () => void this.useRedis());
    this.client.on('error', (error: Error) => this.useMemory(error));
    this.client.on('end', () => this.useMemory());
    // connect() keeps retrying through reconnectStrategy; failures arrive as 'error' events.
    this.client.connect().catch((error: Error) => this.useMemory(error));
    // A Redis that accepts the connection but never answers raises no error: said once, all the same.
    setTimeout(() => {
      if (!this.redis && !this.warned) this.useMemory(new Error(`no answer from Redis within ${REDIS_SILENT_MS / 1000} s of starting`));
    }, REDIS_SILENT_MS).unref();
  }

  status(): RateLimitStatus {
    return { store: this.redis ? 'redis' : 'memory', redis: this.redis ? 'connected' : 'unavailable' };
  }

  init(options: Options): void {
    this.options = options;
    this.memory.init(options);
    if (this.client.isReady) void this.useRedis();
  }

  async get(key: string) {
    return this.either(
      (redis) => redis.get(key),
      () => this.memory.get(key),
    );
  }

  async increment(key: string) {
    return this.either(
      (redis) => redis.increment(key),
      () => this.memory.increment(key),
    );
  }

  async decrement(key: string) {
    return this.either(
      (redis) => redis.decrement(key),
      () => this.memory.decrement(key),
    );
  }

  async resetKey(key: string) {
    return this.either(
      (redis) => redis.resetKey(key),
      () => this.memory.resetKey(key),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.redis = null;
    this.memory.shutdown();
    // A stalled Redis would never answer QUIT: the connection is dropped if it does not in time.
    if (this.client.isOpen) await withTimeout(this.client.close(), REDIS_COMMAND_TIMEOUT_MS).catch(() => this.client.destroy());
    else this.client.destroy();
  }

  private async either<T>(inRedis: (redis: RedisStore) => Promise<T>, inMemory: () => T | Promise<T>): Promise<T> {
    const redis = this.redis;
    if (redis) {
      try {
        return await withTimeout(inRedis(redis), REDIS_COMMAND_TIMEOUT_MS);
      } catch (error) {
        this.useMemory(error as Error);
      }
    }
    return inMemory();
  }

  private async useRedis(): Promise<void> {
    if (this.closed || !this.options || this.redis) return;
    const store = new RedisStore({
      sendCommand: (...args: string[]) => this.client.sendCommand(args) as never,
      prefix: 'budget-api:rl:',
    });
    try {
      // A Redis that accepts the connection but never answers must not keep this waiting unseen.
      await withTimeout(store.init(this.options), REDIS_COMMAND_TIMEOUT_MS);
    } catch (error) {
      this.useMemory(error as Error);
      return;
    }
    if (this.closed || !this.client.isReady) return;
    this.redis = store;
    this.warned = false;
    logger.info('rate limit counts are kept in Redis, shared by every replica');
  }

  private useMemory(error?: Error): void {
    const wasRedis = this.redis !== null;
    this.redis = null;
    // A Redis that stalled (no answer in time) with its connection still open sends no new
    // 'ready' when it answers again: it is tried again every REDIS_RETRY_MS until it does.
    if (!this.closed && this.client.isReady && !this.retry) {
      this.retry = setTimeout(() => {
        this.retry = undefined;
        void this.useRedis();
      }, REDIS_RETRY_MS).unref();
    }
    if (this.closed || (!wasRedis && this.warned)) return;
    this.warned = true;
    // The message only: the URL (and any password in it) never reaches the log.
    logger.warn(
      { reason: error?.message ?? 'connection closed' },
      'Redis is unavailable: rate limit counts are kept in this process until it returns',
    );
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
