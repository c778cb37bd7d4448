import { LRUCache } from 'lru-cache';
import type { Rendered } from './caching.js';

/**
 * Answers already rendered, bounded in bytes. Keys name the drop's fingerprint, so an entry can
 * only ever be served for the drop that produced it; the cache is also emptied when a drop is
 * swapped out, to free the memory. Concurrent requests for the same uncached answer share one
 * computation.
 */
export class ResponseCache {
  private readonly lru: LRUCache<string, Rendered, () => Promise<Rendered>> | null;

  constructor(maxBytes: number) {
    this.lru =
      maxBytes > 0
        ? new LRUCache({
            maxSize: maxBytes,
            // Answers larger than a tenth of the cache would evict too much to be worth keeping.
            maxEntrySize: Math.max(1, Math.floor(maxBytes / 10)),
            sizeCalculation: (answer, key) => answer.size + key.length + 200,
            fetchMethod: (_key, _stale, { context }) => context(),
            // clear() on a reload aborts the renders in flight; their requests, which started on
            // the old drop, must still get their answer, not an abort error. (An answer kept
            // after that is under a key of the old drop, never asked for again, and evicted.)
            ignoreFetchAbort: true,
          })
        : null;
  }

  /** The answer cached under `key`, if any (it becomes the most recently used). */
  get(key: string): Rendered | undefined {
    return this.lru?.get(key);
  }

  async getOrRender(key: string, render: () => Promise<Rendered>): Promise<Rendered> {
    if (!this.lru) return render();
    const answer = await this.lru.fetch(key, { context: render });
    // fetch() only returns undefined when the fetch was aborted, which this cache never does.
    return answer ?? render();
  }

  clear(): void {
    this.lru?.clear();
  }
}
