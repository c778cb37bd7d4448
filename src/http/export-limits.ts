/**
 * What a full export may cost (security review, findings 1 and 2; docs/api.md#limits-and-load-shedding).
 * A full export made from DuckDB holds a pooled connection for as long as its client reads, and
 * costs the server seconds where a page costs milliseconds; so, apart from the request rate limit:
 * - the server runs `atOnce` (fewer than its connections), so that exports can never take every
 *   connection from the queries; one more waits for a turn, as a query waits for a connection,
 *   and is refused (503 overloaded) only when none came within `waitMs`: a burst of exports the
 *   server can make is made, never refused for its count;
 * - where the operator asks for them (off by default), a client may start `perMinute` of them a
 *   minute (its own budget, with its own RateLimit headers) and run `perClient` at once;
 * - a response whose writes make no progress for `stallMs` (a client that stopped reading) is cut,
 *   and so is one still running after `maxMs`: either way its connection goes back to the pool.
 * Exports sent from files (http/export-files.ts) hold no connection and are not counted here.
 */
import type { Request, Response } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import { PassThrough, type Transform } from 'node:stream';
import { notes } from './access-log.js';
import { problem } from './errors.js';

export interface ExportLimitOptions {
  /** Full exports a client may start per minute; 0: not limited. */
  perMinute: number;
  /** Full exports one client may run at once (or wait to run); Infinity: not limited. */
  perClient: number;
  /** Full exports the server runs at once. */
  atOnce: number;
  /** How long an export may wait for its turn before it is refused. */
  waitMs: number;
  /** A response whose writes have made no progress for this long is cut. */
  stallMs: number;
  /** A full export still running after this long is cut. */
  maxMs: number;
}

const WINDOW_MS = 60_000;

export class ExportLimits {
  private running = 0;
  /** Exports waiting for a turn, first come first served: each is handed a running one's place. */
  private readonly waiting: (() => void)[] = [];
  private readonly byClient = new Map<string, number>();
  /** Per client: the exports started in the current window and when the window ends. */
  private readonly windows = new Map<string, { started: number; resetAt: number }>();

  constructor(readonly options: ExportLimitOptions) {}

  /**
   * Admits one full export for this request's client once it may run, or throws: 429
   * `rate_limited` past the client's budget per minute or its exports at once (when asked for),
   * 503 `overloaded` when no turn came within `waitMs`. Resolves to the function that ends it
   * (idempotent).
   */
  async enter(req: Request, res: Response): Promise<() => void> {
    const client = clientOf(req, res);
    const { perMinute, perClient, atOnce } = this.options;
    const now = Date.now();
    if (perMinute > 0) {
      let window = this.windows.get(client);
      if (!window || window.resetAt <= now) {
        // Forgets the windows that have ended, so that the map holds only this minute's clients.
        if (this.windows.size > 10_000) for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
        window = { started: 0, resetAt: now + WINDOW_MS };
        this.windows.set(client, window);
      }
      const reset = Math.max(1, Math.ceil((window.resetAt - now) / 1000));
      const remaining = Math.max(0, perMinute - window.started - 1);
      if (window.started >= perMinute) {
        setExportHeaders(res, perMinute, 0, reset);
        throw problem.tooManyExports(
          `too many full exports: the limit is ${perMinute} per minute per client; retry after ${reset} s, or ask for a page (limit and offset)`,
          reset,
        );
      }
      window.started += 1;
      setExportHeaders(res, perMinute, remaining, reset);
    }
    const mine = this.byClient.get(client) ?? 0;
    if (mine >= perClient) {
      throw problem.tooManyExports(`too many full exports at once: a client may run ${perClient} at a time; retry when yours has finished`, 5);
    }
    this.byClient.set(client, mine + 1);
    const leave = () => {
      const left = (this.byClient.get(client) ?? 1) - 1;
      if (left > 0) this.byClient.set(client, left);
      else this.byClient.delete(client);
    };
    try {
      await this.turn(atOnce);
    } catch (error) {
      leave();
      throw error;
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      leave();
      // A waiting export takes this one's place; the count of running ones stays as it is.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    };
  }

  /** Resolves once this export may run: at once while fewer than `atOnce` run, else when one ends. */
  private turn(atOnce: number): Promise<void> {
    if (this.running < atOnce) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const start = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(start), 1);
        reject(problem.exportsBusy(this.options.waitMs));
      }, this.options.waitMs);
      this.waiting.push(start);
    });
  }

  /**
   * A stage to put last before the response: it cuts the response (destroys it, which stops the
   * export and gives its connection back) when nothing has passed it for `stallMs` while the
   * response waits for its client to read, or when `maxMs` have passed since it started.
   */
  watchdog(res: Response): Transform {
    const { stallMs, maxMs } = this.options;
    const started = Date.now();
    let progress = started;
    const stage = new PassThrough({ highWaterMark: 0 });
    stage.on('data', () => (progress = Date.now()));
    const cut = (why: string) => {
      notes(res).cut = why;
      clearInterval(timer);
      res.destroy();
    };
    const timer = setInterval(
      () => {
        const now = Date.now();
        if (now - started > maxMs) cut(`the export ran longer than ${maxMs} ms`);
        else if (res.writableNeedDrain && now - progress > stallMs) cut(`the client read nothing for ${stallMs} ms`);
      },
      Math.max(10, Math.min(1000, stallMs / 4)),
    );
    timer.unref();
    // The stage closes whenever the response does (pipeline destroys every stage then): one
    // listener on the response more was its eleventh 'close' listener, and Node warned of a leak
    // on every export.
    stage.once('close', () => clearInterval(timer));
    return stage;
  }
}

/** An API key's name, else the client's address (its /56 for IPv6), as the rate limit keys it. */
function clientOf(req: Request, res: Response): string {
  const key = res.locals.apiKey as { name: string } | undefined;
  return key ? `key:${key.name}` : `ip:${ipKeyGenerator(req.ip ?? '')}`;
}

/**
 * The exports' budget as a second policy in the IETF draft-8 headers, after the request limit's
 * (a list: each header may name several policies).
 */
function setExportHeaders(res: Response, limit: number, remaining: number, reset: number): void {
  const append = (name: string, value: string) => {
    const current = res.getHeader(name);
    res.setHeader(name, current ? `${String(current)}, ${value}` : value);
  };
  append('RateLimit', `"exports"; r=${remaining}; t=${reset}`);
  append('RateLimit-Policy', `"exports"; q=${limit}; w=${WINDOW_MS / 1000}`);
}
