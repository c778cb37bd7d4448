/**
 * DATA_URL: serve a drop published in object storage (`s3://bucket/prefix/`) or under an
 * `http(s)://` base URL, instead of DATA_DIR (see docs/data-drops.md).
 *
 * Each look fetches drop.json; when it differs from the one being served, every file it lists is
 * downloaded into a new local directory, its size and sha256 checked as it arrives, and only then
 * is the directory loaded, validated and swapped in by the Reloader, exactly as a local reload.
 * A failed, truncated or wrong download never replaces the served drop: it is recorded as a
 * rejected reload, shown by /budget/api/meta/, and tried again at a later look.
 *
 * What a drop.json can make the server do is bounded (security review, finding 6): only the
 * files it lists, by plain names (manifest.ts), are downloaded, each stopped at the size drop.json
 * gives it (`bytes`) and all of them at `maxBytes` (DATA_MAX_MB); an http(s) drop is followed through redirects only on its own
 * origin; and a drop.json whose drop was rejected is not downloaded again at every poll, but
 * after a delay that doubles up to an hour (SIGHUP tries at once).
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { logger } from '../lib/log.js';
import { sourceFor, type DropSource } from './drop-source.js';
import { MANIFEST_FILE, readManifestText, type Manifest } from './manifest.js';
import { Reloader, versionNamedIn } from './reloader.js';
import type { ReloadFailure, Store } from './store.js';

const MAX_MANIFEST_BYTES = 1 << 20;
/** A download that has not finished in this time is abandoned (and tried again at the next look). */
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

/** DATA_MAX_MB's default. */
const DEFAULT_MAX_BYTES = 4096 * 2 ** 20;
/** The first wait before a rejected drop.json is tried again, and the longest. */
const FIRST_RETRY_MS = 5 * 60_000;
const LAST_RETRY_MS = 60 * 60_000;

/**
 * A download that failed: its message, with the URL, is for the log and for stderr at startup;
 * `failure` is what /meta/ shows, the file's name and no URL (security review, finding 7).
 */
export class DownloadError extends Error {
  /** The version the drop.json being downloaded names, once it could be read: /meta/ names the version refused. */
  version: string | null = null;
  constructor(
    message: string,
    private readonly file: string,
    private readonly rule: string,
  ) {
    super(message);
  }

  get failure(): ReloadFailure {
    const reason = `${this.file}: ${this.rule}`;
    return { code: 'download_failed', file: this.file, reason, rejected_version: this.version, problems: [reason] };
  }
}

export interface RemoteDropsOptions {
  dataUrl: string;
  store: Store;
  /** Where downloads go; a new temporary directory by default. */
  workDir?: string;
  /** The most a drop's files may weigh together (DATA_MAX_MB); 4 GiB by default. */
  maxBytes?: number;
  /** The first wait before a rejected drop.json is downloaded again; doubles up to an hour. */
  retryAfterMs?: number;
}

export class RemoteDrops {
  private readonly source: DropSource;
  private readonly store: Store;
  private readonly workDir: Promise<string>;
  private readonly ownsWorkDir: boolean;
  private reloader: Reloader | undefined;
  /** The bytes of the drop.json whose files are in `current`; a look that finds the same does nothing. */
  private servedManifest: string | undefined;
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private downloads = 0;
  private readonly maxBytes: number;
  private readonly retryAfterMs: number;
  /** The drop.json last rejected, and when it may be tried again. */
  private rejected: { text: string; delayMs: number; until: number } | undefined;

  constructor({ dataUrl, store, workDir, maxBytes = DEFAULT_MAX_BYTES, retryAfterMs = FIRST_RETRY_MS }: RemoteDropsOptions) {
    this.source = sourceFor(dataUrl);
    this.store = store;
    this.maxBytes = maxBytes;
    this.retryAfterMs = retryAfterMs;
    this.ownsWorkDir = !workDir;
    this.workDir = workDir ? mkdir(workDir, { recursive: true }).then(() => workDir) : mkdtemp(path.join(tmpdir(), 'budget-drops-'));
  }

  /** The local directory that always holds the drop being served (a symlink to its download). */
  async currentDir(): Promise<string> {
    return path.join(await this.workDir, 'current');
  }

  /**
   * Downloads the published drop for startup, and returns the local directory to load it from;
   * throws (a DownloadError with one line) when it cannot.
   */
  async download(): Promise<string> {
    const { manifest, text } = await this.fetchManifest();
    await this.install(await this.fetchFiles(manifest, text));
    this.servedManifest = text;
    return this.currentDir();
  }

  /**
   * Looks for a new drop.json and, when there is one, downloads, checks, loads and swaps it in.
   * Looks never overlap: one asked for while another runs joins it.
   */
  check(trigger: string): Promise<void> {
    this.running ??= this.look(trigger).finally(() => (this.running = null));
    return this.running;
  }

  /** Looks every `seconds` (0: never; only check() on SIGHUP). */
  poll(seconds: number): void {
    if (seconds > 0) this.timer = setInterval(() => void this.check('poll'), seconds * 1000).unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.reloader?.close();
    await this.running?.catch(() => undefined);
    // The served drop lives in memory: its downloaded files are no longer needed.
    if (this.ownsWorkDir) await rm(await this.workDir, { recursive: true, force: true });
  }

  private async look(trigger: string): Promise<void> {
    const log = { trigger, url: this.source.urlOf(MANIFEST_FILE) };
    let downloaded: string | undefined;
    let text: string | undefined;
    try {
      const fetched = await this.fetchManifest();
      text = fetched.text;
      const { manifest } = fetched;
      if (text === this.servedManifest || this.closed) return;
      if (text === this.rejected?.text && trigger !== 'SIGHUP' && Date.now() < this.rejected.until) return;
      logger.info({ ...log, version: manifest.version }, 'new drop.json published; downloading the drop');
      downloaded = await this.fetchFiles(manifest, text);
    } catch (error) {
      const reason = error instanceof DownloadError ? error.message : `could not download the drop: ${(error as Error).message}`;
      this.store.recordReload(
        'rejected',
        error instanceof DownloadError ? error.failure : { code: 'download_failed', file: null, reason: 'the drop could not be downloaded (the server log says why)' },
      );
      logger.error({ ...log, reason, serving: this.store.served?.manifest.version }, 'drop download failed; still serving the previous drop');
      // A drop.json that could be read, whose files could not: not downloaded again at once.
      if (text !== undefined) this.backOff(text);
      return;
    }
    if (this.closed || text === undefined) return void (await rm(downloaded, { recursive: true, force: true }));
    const previous = await this.install(downloaded);
    this.reloader ??= new Reloader({ dataDir: await this.currentDir(), store: this.store });
    const outcome = await this.reloader.reload(`DATA_URL ${trigger}`);
    if (outcome.status === 'ok') {
      this.servedManifest = text;
      this.rejected = undefined;
      if (previous) await rm(previous, { recursive: true, force: true });
    } else {
      this.backOff(text);
      // Rejected by validation: `current` goes back to the files being served, and a later look
      // downloads the drop again (it may have been fixed by then).
      if (previous) await this.install(previous);
      await rm(downloaded, { recursive: true, force: true });
    }
  }

  /** Waits before downloading this drop.json again: FIRST_RETRY_MS, then twice as long each time, up to an hour. */
  private backOff(text: string): void {
    const delayMs = text === this.rejected?.text ? Math.min(this.rejected.delayMs * 2, LAST_RETRY_MS) : this.retryAfterMs;
    this.rejected = { text, delayMs, until: Date.now() + delayMs };
    logger.info({ retry_in_s: Math.round(delayMs / 1000) }, 'the rejected drop.json will be downloaded again after a delay, or at once on SIGHUP');
  }

  private async fetchManifest(): Promise<{ manifest: Manifest; text: string }> {
    const signal = AbortSignal.timeout(60_000);
    const url = this.source.urlOf(MANIFEST_FILE);
    let text: string;
    try {
      const { body } = await this.source.get(MANIFEST_FILE, signal);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of body) {
        size += (chunk as Buffer).length;
        if (size > MAX_MANIFEST_BYTES) throw new Error(`larger than ${MAX_MANIFEST_BYTES} bytes`);
        chunks.push(chunk as Buffer);
      }
      text = Buffer.concat(chunks).toString('utf8');
    } catch (error) {
      throw new DownloadError(`could not download ${url}: ${reasonOf(error)}`, MANIFEST_FILE, `could not be downloaded (${causeOf(error)})`);
    }
    const read = readManifestText(text);
    if (!read.ok && 'notJson' in read) throw new DownloadError(`${url} is not JSON: ${read.notJson.message}`, MANIFEST_FILE, 'must be valid JSON');
    if (!read.ok) {
      const rule = `${read.issues[0]!.path} ${read.issues[0]!.message}`;
      const error = new DownloadError(`${url} is not a drop manifest: ${rule}`, MANIFEST_FILE, rule);
      error.version = versionNamedIn(text);
      throw error;
    }
    return { manifest: read.manifest, text };
  }

  /**
   * Downloads the files `manifest` lists into a new directory, checking each; drop.json is
   * written last. Files other than the tables are fetched too: a drop lacking a file it lists is
   * refused, as a local one is (drop.ts), and a release keeps every file listed.
   */
  private async fetchFiles(manifest: Manifest, text: string): Promise<string> {
    const files = Object.entries(manifest.files);
    const declared = files.reduce((sum, [, file]) => sum + (file.bytes ?? 0), 0);
    const dir = path.join(await this.workDir, `drop-${Date.now()}-${++this.downloads}`);
    await mkdir(dir);
    try {
      if (declared > this.maxBytes) {
        const rule = `files must weigh at most ${this.maxBytes} bytes together (DATA_MAX_MB); drop.json says ${declared}`;
        throw new DownloadError(`${this.source.urlOf(MANIFEST_FILE)}: ${rule}`, MANIFEST_FILE, rule);
      }
      let left = this.maxBytes;
      for (const [name, { sha256, bytes }] of files) left -= await this.fetchFile(name, sha256.toLowerCase(), bytes, left, dir);
      await writeFile(path.join(dir, MANIFEST_FILE), text);
      return dir;
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      if (error instanceof DownloadError) error.version = manifest.version;
      throw error;
    }
  }

  /**
   * Downloads one file, stopping as soon as it is larger than drop.json says (`bytes`) or than
   * what is `left` of DATA_MAX_MB; returns its size.
   */
  private async fetchFile(name: string, expected: string, bytes: number | undefined, left: number, dir: string): Promise<number> {
    const url = this.source.urlOf(name);
    const hash = createHash('sha256');
    const limit = Math.min(bytes ?? left, left);
    const tooLarge = () =>
      bytes !== undefined && bytes <= left
        ? `must be ${bytes} bytes, as drop.json says; more arrived`
        : `is past what is left of DATA_MAX_MB (${left} bytes)`;
    let size = 0;
    let announced: number | undefined;
    try {
      const { body, length } = await this.source.get(name, AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS));
      announced = length;
      if (announced !== undefined && announced > limit) {
        body.destroy();
        throw new TooLarge();
      }
      const measure = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          if (size > limit) return done(new TooLarge());
          hash.update(chunk);
          done(null, chunk);
        },
      });
      await pipeline(body, measure, createWriteStream(path.join(dir, name)));
    } catch (error) {
      if (error instanceof TooLarge) throw new DownloadError(`${url} ${tooLarge()}`, name, tooLarge());
      throw new DownloadError(`could not download ${url}: ${reasonOf(error)}`, name, `could not be downloaded (${causeOf(error)})`);
    }
    if (announced !== undefined && size !== announced) {
      const rule = `was cut short: ${size} of ${announced} bytes arrived`;
      throw new DownloadError(`${url} ${rule}`, name, rule);
    }
    const actual = hash.digest('hex');
    if (actual !== expected) {
      const rule = `sha256 must match drop.json (manifest ${expected}, downloaded ${actual})`;
      throw new DownloadError(`${url}: ${rule}`, name, rule);
    }
    return size;
  }

  /** Points `current` at `dir`, atomically; returns the directory it pointed at before. */
  private async install(dir: string): Promise<string | undefined> {
    const current = await this.currentDir();
    const previous = await readlink(current).then(
      (target) => path.resolve(path.dirname(current), target),
      () => undefined,
    );
    const temporary = `${current}.${process.pid}.tmp`;
    await rm(temporary, { force: true });
    await symlink(path.basename(dir), temporary);
    await rename(temporary, current);
    return previous === dir ? undefined : previous;
  }
}

/** A one-line reason: the SDK's error names (NoSuchKey, AccessDenied) and fetch's causes say more than their messages. */
function reasonOf(error: unknown): string {
  const e = error as Error & { code?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'timed out';
  const message = firstLine(e.message || String(error));
  if (e.cause) return `${message} (${e.cause.code ?? firstLine(e.cause.message ?? String(e.cause))})`;
  const name = e.code ?? (e.name && e.name !== 'Error' ? e.name : undefined);
  return name && !message.includes(name) ? `${name}: ${message}` : message;
}

const firstLine = (text: string) => text.split('\n')[0]!;

class TooLarge extends Error {}

/**
 * What /meta/ says of a failed download: a status, an error's code or name (HTTP 404, NoSuchKey,
 * ECONNREFUSED, timed out), never a message that could name an internal address.
 */
function causeOf(error: unknown): string {
  const e = error as Error & { code?: string; cause?: { code?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'timed out';
  const http = /^HTTP \d{3}(: redirected off the drop's origin|: more than \d+ redirects)?$/.exec(e.message ?? '');
  if (http) return http[0];
  const code = e.cause?.code ?? e.code ?? (e.name && e.name !== 'Error' ? e.name : undefined);
  return code && /^[A-Za-z0-9_.-]{1,64}$/.test(code) ? code : 'an error';
}
