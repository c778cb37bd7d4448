/**
 * Hot reload (docs/data-drops.md#reloading): load the drop at DATA_DIR into a new database,
 * validate it, and only then swap it in. A rejected drop leaves the old one serving; either way
 * the outcome is recorded in the Store for /budget/api/meta/.
 *
 * Triggers: `reload()` (server.ts calls it on SIGHUP) and a change of DATA_DIR/drop.json, or of
 * DATA_DIR itself when it is a symlink that is re-pointed (`ln -sfn new current`).
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { logger } from '../lib/log.js';
import { changeBetween } from './diff.js';
import { DropError, loadDrop, type LoadedDrop } from './drop.js';
import { describeProblem } from './problems.js';
import { MANIFEST_FILE } from './manifest.js';
import type { Lease } from './lease.js';
import type { ReloadFailure, ReloadOutcome, Store } from './store.js';
import { closeDatabase } from './close-database.js';

export interface ReloaderOptions {
  dataDir: string;
  store: Store;
  /**
   * Quiet time after the last change before reloading: an editor or a copy touches drop.json
   * several times, and a symlink flip arrives as two events.
   */
  debounceMs?: number;
}

export class Reloader {
  private readonly dataDir: string;
  private readonly store: Store;
  private readonly debounceMs: number;
  /** A reload that was asked for but has not started yet: later triggers join it. */
  private queued: Promise<ReloadOutcome> | null = null;
  /** The end of the last reload asked for; the next one starts after it, so reloads never overlap. */
  private tail: Promise<unknown> = Promise.resolve();
  private dropWatcher: FSWatcher | null = null;
  private linkWatcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | undefined;
  private relink = false;
  private closed = false;
  /** The comparison for the last swap, until it has run (tests wait for it). */
  pendingChange: Promise<void> = Promise.resolve();
  /** A comparison queued and not started yet, holding leases on both drops. */
  private waitingChange: { previous: Lease; next: Lease } | null = null;

  constructor({ dataDir, store, debounceMs = 200 }: ReloaderOptions) {
    this.dataDir = path.resolve(dataDir);
    this.store = store;
    this.debounceMs = debounceMs;
  }

  /**
   * Loads DATA_DIR as it is when the reload starts. While one reload runs, every further trigger
   * is coalesced into a single reload that starts after it, so the newest drop always wins and no
   * two drops load at once (each holds a whole database in memory).
   */
  reload(trigger = 'reload'): Promise<ReloadOutcome> {
    if (this.queued) return this.queued;
    const next = this.tail.then(() => {
      this.queued = null;
      return this.attempt(trigger);
    });
    this.queued = next;
    this.tail = next;
    return next;
  }

  /** Watches DATA_DIR/drop.json, and the directory entry of DATA_DIR for a re-pointed symlink. */
  watch(): void {
    this.linkWatcher = this.watchDirectory(path.dirname(this.dataDir), (file) => {
      if (file !== null && file !== path.basename(this.dataDir)) return;
      this.relink = true;
      this.schedule();
    });
    this.watchDrop();
  }

  close(): void {
    this.closed = true;
    this.dropWaitingChange();
    clearTimeout(this.timer);
    this.dropWatcher?.close();
    this.linkWatcher?.close();
  }

  private async attempt(trigger: string): Promise<ReloadOutcome> {
    const started = performance.now();
    const log = { trigger, dir: this.dataDir };
    try {
      const drop = await loadDrop(this.dataDir, { allProblems: true });
      if (this.closed) {
        closeDatabase(drop.instance);
      } else if (sameDrop(drop, this.store.served)) {
        // Same content: keep the warm database (and its pooled connections) rather than swap.
        closeDatabase(drop.instance);
        this.store.recordReload('ok');
        logger.info({ ...log, version: drop.manifest.version }, 'data drop unchanged');
      } else {
        admitRelease(this.store, drop);
        const previous = this.store.lease();
        this.store.swap(drop);
        logger.info({ ...log, version: drop.manifest.version, ms: Math.round(performance.now() - started) }, 'data drop reloaded');
        // Kept before the comparison is queued, so that the release is there to take its change summary.
        await keepRelease(this.store, drop, !previous);
        if (previous) this.queueChange({ previous, next: this.store.lease()! });
      }
    } catch (error) {
      const reason = error instanceof DropError ? error.message : `could not load the drop: ${(error as Error).message}`;
      // Every problem, and the version refused (not the one still served), so that whoever
      // published it can fix it from /meta/ alone (docs/data-drops.md#reloading).
      this.store.recordReload('rejected', { ...failureOf(error), rejected_version: await refusedVersion(this.dataDir) });
      logger.error({ ...log, reason, serving: this.store.served?.manifest.version }, 'data drop rejected; still serving the previous drop');
    }
    return this.store.lastReload!;
  }

  /**
   * Works out what changed from the previous drop to the one just swapped in, for /meta/. It runs
   * after the swap, so that comparing two drops never delays serving the new one, and only once no
   * reload is running or queued, so that back-to-back swaps do not share the CPU with it. The
   * leases keep both databases open until then; a comparison still waiting when another swap comes
   * is dropped at once, letting its databases close. A comparison that fails only leaves the change out.
   */
  private queueChange(job: { previous: Lease; next: Lease }): void {
    this.dropWaitingChange();
    this.waitingChange = job;
    this.pendingChange = this.pendingChange.then(() => this.runChange());
  }

  private dropWaitingChange(): void {
    this.waitingChange?.previous.release();
    this.waitingChange?.next.release();
    this.waitingChange = null;
  }

  private async runChange(): Promise<void> {
    for (let last = this.tail; ; last = this.tail) {
      await last.catch(() => undefined);
      if (last === this.tail) break;
    }
    const job = this.waitingChange;
    this.waitingChange = null;
    if (!job) return;
    const { previous, next } = job;
    try {
      // The previous drop is let go as soon as its tables are copied out: a replaced drop holds its
      // whole database until then, on top of the served one.
      if (!this.closed) this.store.recordChange(next.drop.data, await changeBetween(previous.drop.data, next.drop.data, () => previous.release()));
    } catch (error) {
      logger.warn({ err: error, version: next.drop.data.manifest.version }, 'could not compare the new drop with the previous one');
    } finally {
      previous.release();
      next.release();
    }
  }

  /** Re-arms the watch of DATA_DIR's contents: after a symlink flip it must follow the new target. */
  private watchDrop(): void {
    this.dropWatcher?.close();
    this.dropWatcher = this.watchDirectory(this.dataDir, (file) => {
      // drop.json is replaced by a rename (build writes it last, under a temporary name), so the
      // directory is watched, not the file.
      if (file === null || file === MANIFEST_FILE) this.schedule();
    });
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.relink) {
        this.relink = false;
        this.watchDrop();
      }
      void this.reload('file watch');
    }, this.debounceMs);
    this.timer.unref();
  }

  private watchDirectory(dir: string, onChange: (file: string | null) => void): FSWatcher | null {
    try {
      // Not persistent: the watchers alone never keep the process alive.
      const watcher = watch(dir, { persistent: false }, (_event, file) => onChange(file === null ? null : String(file)));
      // A watched directory that is deleted (an old drop removed after a flip) ends its watcher;
      // the watch of DATA_DIR's parent re-arms it when DATA_DIR appears again.
      watcher.on('error', (error) => {
        logger.warn({ dir, err: error }, 'stopped watching a directory');
        watcher.close();
      });
      return watcher;
    } catch (error) {
      logger.warn({ dir, err: error }, 'cannot watch the directory; reload with SIGHUP');
      return null;
    }
  }
}

/**
 * The first drop a process serves: the one at `locate()` (DATA_DIR, or DATA_URL's download), kept
 * as a release. When it cannot be served, the newest kept release is served instead and
 * /meta/ last_reload says why (a restart never falls back to nothing); throws the drop's error
 * only when no release is kept either.
 */
export async function serveAtStartup(store: Store, locate: () => Promise<string>): Promise<void> {
  let drop: LoadedDrop;
  let rejected: ReloadFailure | undefined;
  let dir: string | undefined;
  try {
    dir = await locate();
    // Every problem, not the first alone: when a kept release is served instead, /meta/ lists them
    // as a reload does. (A valid drop loads as fast either way.)
    drop = await loadDrop(dir, { allProblems: true });
    admitRelease(store, drop);
  } catch (error) {
    const fallback = store.releases?.servedLast();
    if (!fallback) throw error;
    // A failed download (remote.ts DownloadError) says what failed in its own terms.
    const failure = (error as { failure?: ReloadFailure }).failure ?? failureOf(error);
    rejected = { ...failure, rejected_version: dir === undefined ? (failure.rejected_version ?? null) : await refusedVersion(dir) };
    try {
      drop = await loadDrop(fallback.dir);
    } catch {
      throw error;
    }
    logger.error({ reason: (error as Error).message, serving: fallback.version }, 'the drop cannot be served; serving the release served last instead');
  }
  store.swap(drop);
  // Copying a large drop's files, and comparing them with the release before, takes a while: the
  // server listens meanwhile, answering the current release's permalinks from memory
  // (Releases.settled() says when it is kept).
  void keepRelease(store, drop);
  if (rejected !== undefined) store.recordReload('rejected', rejected);
}

/** Refuses (a DropError) a drop whose version is kept as a release with other content; its database is closed. */
export function admitRelease(store: Store, drop: LoadedDrop): void {
  try {
    store.releases?.admit(drop);
  } catch (error) {
    closeDatabase(drop.instance);
    throw error;
  }
}

/**
 * Keeps the drop just swapped in as a release. A release that cannot be written (a full disk) is
 * logged, never a reason to stop serving the drop.
 */
export async function keepRelease(store: Store, drop: LoadedDrop, workOutChanges = true): Promise<void> {
  try {
    await store.releases?.keep(drop, { workOutChanges });
  } catch (error) {
    logger.error({ err: error, version: drop.manifest.version }, 'could not keep the drop as a release');
  }
}

/**
 * The fingerprint leaves out drop.json's free text; a new manifest over the same files that
 * changes only that (a corrected version or description) is still swapped in, so that /meta/
 * tells the truth.
 */
function sameDrop(drop: LoadedDrop, served: LoadedDrop | null): boolean {
  return drop.fingerprint === served?.fingerprint && isDeepStrictEqual(drop.manifest, served.manifest);
}

/** The version a rejected drop's drop.json names, when it can be read at all. */
async function refusedVersion(dataDir: string): Promise<string | null> {
  return versionNamedIn(await readFile(path.join(dataDir, MANIFEST_FILE), 'utf8').catch(() => ''));
}

/** The version a drop.json's text names, even when the rest of it is wrong; null when it names none. */
export function versionNamedIn(text: string): string | null {
  try {
    const json = JSON.parse(text) as { version?: unknown };
    return typeof json.version === 'string' ? json.version : null;
  } catch {
    return null;
  }
}

/** What /meta/ shows of a failed load: a DropError's rule without the server's paths; of anything else, only that it failed. */
export function failureOf(error: unknown): ReloadFailure {
  if (error instanceof DropError) {
    const problems = error.problems.slice(0, 20).map((p) => describeProblem({ ...p, where: undefined }));
    // A rule with a code of its own (control_total_mismatch) names the rejection when it is the first problem.
    const code = error.problems[0]?.code === 'control_total_mismatch' ? 'control_total_mismatch' : 'invalid_drop';
    return { code, file: error.problems[0]?.file ?? null, reason: error.publicReason, problems };
  }
  return { code: 'load_failed', file: null, reason: 'the drop could not be loaded (the server log says why)' };
}
