/**
 * Releases (docs/api.md#releases): every drop served is kept in RELEASES_DIR, one directory per
 * version holding its drop.json, its files and release.json (when it was served, its fingerprint,
 * the change summary against the release before), the last RELEASES_KEEP of them, across
 * restarts and reloads. A version names one content: a drop whose version is kept with other
 * content is refused.
 *
 * Only the current release is in memory (the Store's drop). An older one is loaded from its files
 * when asked, into a database file of its own with a small memory limit, and a few are kept open,
 * least recently used closed first: twenty kept releases cost disk, not memory.
 */
import { createHash, randomUUID } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { logger } from '../lib/log.js';
import { problem } from '../http/errors.js';
import { diffDrops, dropSideOf, summarize, type ChangeSummary } from './diff.js';
import { DropError, fingerprintOf, loadDrop, type LoadedDrop } from './drop.js';
import { MANIFEST_FILE, instantOf, readManifestText, sha256File, type Manifest } from './manifest.js';
import { fileProblem } from './problems.js';
import type { Lease, OpenDrop } from './lease.js';

/** release.json: what the service knows of a release besides its drop.json. */
export interface ReleaseRecord {
  version: string;
  created_at: string;
  fingerprint: string;
  /** The drop's files with their checksums, as its drop.json lists them: what "same content" compares. */
  files: Manifest['files'];
  /** Every time the release was the one served, oldest first; the current one's last `until` is null. */
  served: { from: string; until: string | null }[];
  /** Against the release served before it; null for the first, or until worked out. */
  changes: ChangeSummary | null;
}

export interface Release extends ReleaseRecord {
  /** The directory holding its drop.json and files. */
  dir: string;
}

const RECORD_FILE = 'release.json';
/** Beside a published version's drop.json (tools/publish.ts): when it was published. */
export const PUBLISHED_FILE = 'published.json';
/** Older releases kept open at once; each holds at most OLD_MEMORY_LIMIT of DuckDB buffers. */
const OPEN_RELEASES = 2;
const OLD_MEMORY_LIMIT = '256MB';
/** What Node's setTimeout holds; each of the two limits summed below is at most this (config.ts). */
const LONGEST_TIMER_MS = 2 ** 31 - 1;
/** Database files opened by this process, for their names. */
let databases = 0;

export const firstServed = (release: ReleaseRecord): string => release.served[0]!.from;
export const lastServed = (release: ReleaseRecord): string | null => release.served.at(-1)!.until;

/**
 * What the releases need of the store (store.ts): the current drop's lease, a way to open an older
 * one under the same limits, and a place to be found. Named here, not imported, so that the store
 * may hold its Releases without an import circle.
 */
export interface ReleaseHost {
  lease(signal?: AbortSignal): Lease | null;
  serveOther(data: LoadedDrop, onClosed?: () => void): OpenDrop;
  releases: Releases | null;
  /** How long a query may wait for a connection and run: how long a request waits for a release to open. */
  readonly limits: { readonly queueWaitMs: number; readonly timeoutMs: number };
}

export interface ReleasesOptions {
  dir: string;
  keep: number;
  store: ReleaseHost;
}

/** The reason a request stopped waiting for a release to open (Releases.lease). */
const STILL_OPENING = new Error('still opening');

export class Releases {
  private readonly dir: string;
  private readonly keepCount: number;
  private readonly store: ReleaseHost;
  private readonly kept = new Map<string, Release>();
  /** Older releases open for queries, least recently used first (a Map keeps insertion order). */
  private readonly opened = new Map<string, Promise<OpenDrop>>();
  /** Changes to the directory run one after the other. */
  private writes: Promise<unknown> = Promise.resolve();

  private constructor({ dir, keep, store }: ReleasesOptions) {
    this.dir = path.resolve(dir);
    this.keepCount = keep;
    this.store = store;
  }

  /**
   * Reads the releases kept in `dir` (created when missing). A directory with a drop.json but no
   * release.json is a published version copied in (docs/deploying.md#releases): taken as served
   * from its published.json's published_at (else its created_at) until the next one. Any other
   * directory is left alone.
   */
  static async open(options: ReleasesOptions): Promise<Releases> {
    const releases = new Releases(options);
    await mkdir(releases.dir, { recursive: true });
    const seeded: Release[] = [];
    for (const entry of await readdir(releases.dir, { withFileTypes: true })) {
      const dir = path.join(releases.dir, entry.name);
      // A copy cut short (the process stopped while keeping a release) is removed.
      if (entry.name.startsWith('.staging-')) await rm(dir, { recursive: true, force: true });
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      try {
        const read = readManifestText(await readFile(path.join(dir, MANIFEST_FILE), 'utf8'));
        if (!read.ok) throw new Error(`${MANIFEST_FILE} is not a drop manifest`);
        const { manifest } = read;
        const record = await readJson<ReleaseRecord>(path.join(dir, RECORD_FILE));
        // The fingerprint is worked out again: what it covers may have grown since it was written.
        const fingerprint = fingerprintOf(manifest);
        if (record) {
          releases.kept.set(record.version, { ...record, fingerprint, dir });
        } else {
          const published = await readJson<{ published_at?: string }>(path.join(dir, PUBLISHED_FILE));
          const from = (published?.published_at ? new Date(published.published_at) : instantOf(manifest.created_at)).toISOString();
          seeded.push({ version: manifest.version, created_at: manifest.created_at, fingerprint, files: manifest.files, served: [{ from, until: null }], changes: null, dir });
        }
      } catch (error) {
        logger.warn({ dir, err: error }, 'not a release (no readable drop.json); left alone');
      }
    }
    for (const release of seeded) {
      if (releases.kept.has(release.version)) continue;
      const from = firstServed(release);
      const next = [...seeded, ...releases.kept.values()].map(firstServed).filter((t) => t > from).sort()[0];
      release.served[0]!.until = next ?? null;
      releases.kept.set(release.version, release);
      await writeRecord(release);
    }
    options.store.releases = releases;
    return releases;
  }

  /** Newest first: by the time each was first served. */
  list(): Release[] {
    return [...this.kept.values()].sort((a, b) => firstServed(b).localeCompare(firstServed(a)));
  }

  get(version: string): Release | undefined {
    return this.kept.get(version);
  }

  /**
   * The release served last, to serve when the drop at DATA_DIR or DATA_URL cannot be: a restart
   * never falls back to nothing (docs/deploying.md#releases); loadDrop(release.dir) loads it. After
   * a flip back (B, then A again) that is A, which an operator chose over B, not B, first served last.
   */
  servedLast(): Release | undefined {
    return this.byLastServed()[0];
  }

  /** The releases kept, the one served last first: the one still served (its time open) before any other. */
  private byLastServed(): Release[] {
    const until = (release: Release) => {
      const last = lastServed(release);
      return last === null ? Infinity : Date.parse(last);
    };
    return [...this.kept.values()].sort((a, b) => until(b) - until(a) || 0);
  }

  /** Where releases are listed, for messages. */
  get where(): string {
    return this.dir;
  }

  /**
   * The release served at `instant` (Memento, RFC 7089), to the second (Accept-Datetime has no
   * finer unit): of the times a kept release was served, the one holding that second, the latest
   * started if two do. Undefined before the first, and when the release served then is no longer
   * kept: another's figures are never given in its place.
   */
  at(instant: Date): Release | undefined {
    const t = instant.getTime();
    let best: { release: Release; from: number } | undefined;
    for (const release of this.kept.values()) {
      for (const { from, until } of release.served) {
        const start = Math.floor(Date.parse(from) / 1000) * 1000;
        const end = until === null ? Infinity : Math.ceil(Date.parse(until) / 1000) * 1000;
        if (start <= t && t < end && (!best || start > best.from)) best = { release, from: start };
      }
    }
    return best?.release;
  }

  /** Throws a DropError when `drop`'s version is kept with other content: a version names one content. */
  admit(drop: LoadedDrop): void {
    const kept = this.kept.get(drop.manifest.version);
    if (!kept || sameContent(kept, { fingerprint: drop.fingerprint, files: drop.manifest.files })) return;
    throw new DropError([
      fileProblem(
        MANIFEST_FILE,
        `version must name one content: "${drop.manifest.version}" is already a release with other content (fingerprint ${kept.fingerprint.slice(0, 12)}…, this drop ${drop.fingerprint.slice(0, 12)}…); give this drop a new version`,
      ),
    ]);
  }

  /**
   * Records that `drop` is served from now on: kept as a release (its files copied) when it is
   * new, the release served before closed, the oldest beyond RELEASES_KEEP removed. Call admit()
   * before swapping the drop in. The change summary against the release before is worked out from
   * both releases' files unless the caller brings it (noteChanges: the reloader compares the two
   * databases anyway).
   */
  keep(drop: LoadedDrop, { now = new Date(), workOutChanges = true }: { now?: Date; workOutChanges?: boolean } = {}): Promise<void> {
    const work = this.writes.then(() => this.record(drop, now, workOutChanges));
    this.writes = work.catch(() => undefined);
    return work;
  }

  /** The change summary of `version` against the release before it, as the reloader worked it out. */
  noteChanges(version: string, changes: ChangeSummary): void {
    const release = this.kept.get(version);
    if (!release) return;
    release.changes = changes;
    this.writes = this.writes.then(() => writeRecord(release)).catch((error) => logger.warn({ err: error, version }, 'could not write release.json'));
  }

  /** Resolves once every change to the directory asked for so far is written (tests wait on it). */
  settled(): Promise<unknown> {
    return this.writes;
  }

  /**
   * A lease on `version`'s data: the served drop's when it is current, otherwise the release opened
   * from its files; null when the version is not kept.
   */
  async lease(version: string, signal?: AbortSignal): Promise<Lease | null> {
    const current = this.store.lease(signal);
    if (current && current.drop.data.manifest.version === version) return current;
    current?.release();
    const release = this.kept.get(version);
    if (!release) return null;
    for (;;) {
      let opening = this.opened.get(version);
      if (opening) this.opened.delete(version);
      else opening = this.openRelease(release);
      this.opened.set(version, opening);
      this.evict(OPEN_RELEASES);
      let served: OpenDrop;
      // Opening a release from its files is the work of the request's query: a request waits for
      // it no longer than a query may wait and run (QUEUE_WAIT_MS + QUERY_TIMEOUT_MS), and is
      // answered 503 while it goes on opening for the next; a small release opens in well under
      // that even on a busy machine (a bound of QUEUE_WAIT_MS alone refused some there).
      const { queueWaitMs, timeoutMs } = this.store.limits;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(STILL_OPENING), Math.min(queueWaitMs + timeoutMs, LONGEST_TIMER_MS))));
      try {
        served = await Promise.race([opening, late]);
      } catch (error) {
        if (error === STILL_OPENING) throw problem.overloaded(`release ${version} is being opened from its files; retry in a second`);
        if (this.opened.get(version) === opening) this.opened.delete(version);
        logger.error({ err: error, version }, 'could not open a kept release');
        throw problem.releaseUnreadable(version);
      } finally {
        clearTimeout(timer);
      }
      // Closed by an eviction while it was opening: open it again.
      if (this.opened.get(version) === opening) return served.lease(signal);
    }
  }

  /** Closes the older releases open, once their requests are done. */
  close(): void {
    this.evict(0);
  }

  private evict(limit: number): void {
    while (this.opened.size > limit) {
      const [version, opening] = this.opened.entries().next().value!;
      this.opened.delete(version);
      opening.then((served) => served.retire()).catch(() => undefined);
    }
  }

  private async openRelease(release: Release): Promise<OpenDrop> {
    const file = path.join(tmpdir(), `budget-release-${process.pid}-${++databases}.duckdb`);
    const removeFile = () => Promise.all([rm(file, { force: true }), rm(`${file}.wal`, { force: true })]);
    try {
      // A file left by an earlier process of the same pid would be taken for this release's tables.
      await removeFile();
      const data = await loadDrop(release.dir, { databaseFile: file, memoryLimit: OLD_MEMORY_LIMIT });
      return this.store.serveOther(data, () => void removeFile());
    } catch (error) {
      void removeFile();
      throw error;
    }
  }

  private async record(drop: LoadedDrop, now: Date, workOutChanges: boolean): Promise<void> {
    const { version } = drop.manifest;
    const at = now.toISOString();
    let previous: Release | undefined;
    for (const release of this.kept.values()) {
      const last = release.served.at(-1)!;
      if (release.version === version || last.until !== null) continue;
      last.until = at;
      previous = release;
      await writeRecord(release);
    }
    let release = this.kept.get(version);
    if (release) {
      // Served again; after a restart onto the same release, the time it was served goes on.
      if (release.served.at(-1)!.until !== null) release.served.push({ from: at, until: null });
      await writeRecord(release);
    } else {
      release = await this.copy(drop, at);
      this.kept.set(version, release);
      // Before pruning: with RELEASES_KEEP=1 (or after a flip back) the release before is the one
      // pruned, and the summary is worked out from its files.
      if (previous && workOutChanges) await this.changesFromFiles(previous, release);
    }
    await this.prune(version);
  }

  /** Copies the drop's files into a new release directory, checking each against drop.json, then renames it into place. */
  private async copy(drop: LoadedDrop, at: string): Promise<Release> {
    const { manifest } = drop;
    const final = path.join(this.dir, directoryName(manifest.version));
    const staging = path.join(this.dir, `.staging-${randomUUID()}`);
    await mkdir(staging);
    try {
      for (const [name, { sha256 }] of Object.entries(manifest.files)) {
        const target = path.join(staging, name);
        await copyFile(path.join(drop.dir, name), target);
        // The drop's directory may have been replaced since it was loaded: keep only what was served.
        if ((await sha256File(target)) !== sha256.toLowerCase()) throw new Error(`${name} changed on disk after the drop was loaded`);
      }
      await writeFile(path.join(staging, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
      const release: Release = {
        version: manifest.version,
        created_at: manifest.created_at,
        fingerprint: drop.fingerprint,
        files: manifest.files,
        served: [{ from: at, until: null }],
        changes: null,
        dir: final,
      };
      await writeRecord({ ...release, dir: staging });
      await rm(final, { recursive: true, force: true });
      await rename(staging, final);
      return release;
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw error;
    }
  }

  /** After a restart onto a new drop, the change summary is worked out from both releases' files. */
  private async changesFromFiles(previous: Release, release: Release): Promise<void> {
    try {
      const changes = summarize(await diffDrops(await dropSideOf(previous.dir), await dropSideOf(release.dir)));
      if (!release.changes) this.noteChanges(release.version, changes);
    } catch (error) {
      logger.warn({ err: error, version: release.version }, 'could not compare the release with the one before');
    }
  }

  /**
   * Removes the releases beyond RELEASES_KEEP served longest ago; never the one being served. A
   * release served again (a flip back) counts from its last time, so that the releases kept are
   * those a recent citation or Accept-Datetime names.
   */
  private async prune(current: string): Promise<void> {
    const excess = this.byLastServed()
      .filter((release) => release.version !== current)
      .slice(this.keepCount - 1);
    for (const release of excess) {
      this.kept.delete(release.version);
      const opening = this.opened.get(release.version);
      if (opening) {
        this.opened.delete(release.version);
        opening.then((served) => served.retire()).catch(() => undefined);
      }
      await rm(release.dir, { recursive: true, force: true });
      logger.info({ version: release.version }, 'release removed: more than RELEASES_KEEP kept');
    }
  }
}

/** Same files with the same checksums, and the same fingerprint (which also covers answer-changing drop.json fields). */
export function sameContent(a: { fingerprint: string; files: Manifest['files'] }, b: { fingerprint: string; files: Manifest['files'] }): boolean {
  if (a.fingerprint !== b.fingerprint) return false;
  const names = Object.keys(a.files);
  return (
    names.length === Object.keys(b.files).length &&
    names.every((name) => b.files[name] !== undefined && b.files[name].sha256.toLowerCase() === a.files[name]!.sha256.toLowerCase())
  );
}

/** A JSON file's contents, or undefined when there is no such file. */
async function readJson<T>(file: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  return JSON.parse(text) as T;
}

/** A directory name for a free-text version: readable, and unique by its hash (also the published copy's, tools/publish.ts). */
export function directoryName(version: string): string {
  const readable = version.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 60);
  return `${readable || 'release'}-${createHash('sha256').update(version).digest('hex').slice(0, 12)}`;
}

async function writeRecord(release: Release): Promise<void> {
  const { dir, ...record } = release;
  const file = path.join(dir, RECORD_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(record, null, 2)}\n`);
  await rename(temporary, file);
}
