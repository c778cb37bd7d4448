import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';

/**
 * Rate-limit counts kept in this process, as express-rate-limit's MemoryStore keeps them: a window
 * per client from its first request, and a client not seen for a whole window forgotten (the
 * counts of the window before are kept one window more, then dropped). The difference is that a
 * count is answered at once: MemoryStore answers through a promise, and on Node.js 24 waiting for
 * it cost a cache hit about 7% of its CPU (on Node.js 20 too little to tell from the noise;
 * docs/performance.md, "Cache hits: the count answered at once"). express-rate-limit's Store
 * allows a count without a promise, and the limiter takes either.
 */
export class CountsInMemory implements Store {
  readonly localKeys = true;
  private windowMs = 60_000;
  private current = new Map<string, ClientRateLimitInfo>();
  private previous = new Map<string, ClientRateLimitInfo>();
  private timer: NodeJS.Timeout | undefined;

  init({ windowMs }: Pick<Options, 'windowMs'>): void {
    this.windowMs = windowMs;
    clearInterval(this.timer);
    this.timer = setInterval(() => {
      this.previous = this.current;
      this.current = new Map();
    }, windowMs);
    this.timer.unref();
  }

  get(key: string): ClientRateLimitInfo | undefined {
    const count = this.current.get(key) ?? this.previous.get(key);
    return count && count.resetTime!.getTime() > Date.now() ? count : undefined;
  }

  increment(key: string): ClientRateLimitInfo {
    const now = Date.now();
    const count = this.countOf(key);
    if (count.resetTime!.getTime() <= now) {
      count.totalHits = 0;
      count.resetTime = new Date(now + this.windowMs);
    }
    count.totalHits++;
    return count;
  }

  decrement(key: string): void {
    const count = this.countOf(key);
    if (count.totalHits > 0) count.totalHits--;
  }

  resetKey(key: string): void {
    this.current.delete(key);
    this.previous.delete(key);
  }

  resetAll(): void {
    this.current.clear();
    this.previous.clear();
  }

  shutdown(): void {
    clearInterval(this.timer);
    this.resetAll();
  }

  /** The key's count, moved into the current window's map if it was in the previous one's. */
  private countOf(key: string): ClientRateLimitInfo {
    let count = this.current.get(key);
    if (!count) {
      count = this.previous.get(key) ?? { totalHits: 0, resetTime: new Date(Date.now() + this.windowMs) };
      this.previous.delete(key);
      this.current.set(key, count);
    }
    return count;
  }
}
