/**
 * DATA_URL: serve a drop published in object storage (`s3://bucket/prefix/`) or under an
 * `http(s)://` base URL, instead of DATA_DIR (see docs/data-drops.md).
 *
 * Each look fetches drop.json; when it differs from the one being served, every file it lists is
 * downloaded into a new local directory, its size and sha256 checked as it arrives, and only then
 * is the directory loaded, validated and swapped in by the Reloader, exactly as a local reload.
 * A failed, truncated or wrong download never replaces the served drop: it is recorded as a
 * rejected reload, shown by /budget/api/meta/, and tried again at the next look.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { logger } from '../lib/log.js';
import { ManifestSchema, MANIFEST_FILE, type Manifest } from './manifest.js';
import { Reloader } from './reloader.js';
import type { Store } from './store.js';

/** A drop's files are plain names in one directory; anything else in a remote manifest is refused. */
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}\.parquet$/;
const MAX_MANIFEST_BYTES = 1 << 20;
/** A download that has not finished in this time is abandoned (and tried again at the next look). */
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

export class DownloadError extends Error {}

interface Fetched {
  body: Readable;
  /** The size the server announced, when it did. */
  length: number | undefined;
}

/** Where a drop is published: fetches one file of it by name. */
interface DropSource {
  /** The URL of a file, for messages (no credentials). */
  urlOf(name: string): string;
  get(name: string, signal: AbortSignal): Promise<Fetched>;
}

/** `s3://bucket/prefix/` or `http(s)://host/path/`; a prefix without a trailing slash gets one. */
export function sourceFor(dataUrl: string): DropSource {
  const url = new URL(dataUrl);
  if (url.protocol === 's3:') {
    const { bucket, prefix } = parseS3Url(dataUrl);
    return s3Source(bucket, prefix);
  }
  url.pathname = url.pathname.replace(/([^/])$/, '$1/');
  return httpSource(url);
}

/** `s3://bucket/prefix/` split into its bucket and key prefix (ending in `/`, or empty). */
export function parseS3Url(s3Url: string): { bucket: string; prefix: string } {
  const url = new URL(s3Url);
  return { bucket: url.hostname, prefix: url.pathname.replace(/^\//, '').replace(/([^/])$/, '$1/') };
}

/**
 * An S3 client configured from the standard AWS_* variables (credentials, region; the SDK reads
 * AWS_ENDPOINT_URL itself). S3-compatible stores behind AWS_ENDPOINT_URL (MinIO, R2, ...) are
 * addressed path-style, which they all understand, and are not sent the SDK's newer default
 * checksums, which several of them refuse: the drop's own sha256s are checked anyway.
 */
export function s3Client(): S3Client {
  const compatible = Boolean(process.env.AWS_ENDPOINT_URL);
  return new S3Client({
    region: process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
    forcePathStyle: compatible,
    ...(compatible ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } : {}),
  });
}

function s3Source(bucket: string, prefix: string): DropSource {
  const client = s3Client();
  return {
    urlOf: (name) => `s3://${bucket}/${prefix}${name}`,
    async get(name, signal) {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: `${prefix}${name}` }), { abortSignal: signal });
      return { body: object.Body as Readable, length: object.ContentLength };
    },
  };
}

function httpSource(base: URL): DropSource {
  const shown = new URL(base);
  shown.username = '';
  shown.password = '';
  return {
    urlOf: (name) => new URL(name, shown).href,
    async get(name, signal) {
      // A CDN in front of the drop must not answer drop.json from its cache.
      const response = await fetch(new URL(name, base), { signal, headers: { 'Cache-Control': 'no-cache' } });
      if (response.status !== 200 || !response.body) {
        await response.body?.cancel();
        throw new Error(`HTTP ${response.status}`);
      }
      const length = response.headers.get('content-length');
      return { body: Readable.fromWeb(response.body as never), length: length === null ? undefined : Number(length) };
    },
  };
}

export interface RemoteDropsOptions {
  dataUrl: string;
  store: Store;
  /** Where downloads go; a new temporary directory by default. */
  workDir?: string;
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

  constructor({ dataUrl, store, workDir }: RemoteDropsOptions) {
    this.source = sourceFor(dataUrl);
    this.store = store;
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
    let text: string;
    try {
      const fetched = await this.fetchManifest();
      ({ text } = fetched);
      const { manifest } = fetched;
      if (text === this.servedManifest || this.closed) return;
      logger.info({ ...log, version: manifest.version }, 'new drop.json published; downloading the drop');
      downloaded = await this.fetchFiles(manifest, text);
    } catch (error) {
      const reason = error instanceof DownloadError ? error.message : `could not download the drop: ${(error as Error).message}`;
      this.store.recordReload('rejected', reason);
      logger.error({ ...log, reason, serving: this.store.served?.manifest.version }, 'drop download failed; still serving the previous drop');
      return;
    }
    if (this.closed) return void (await rm(downloaded, { recursive: true, force: true }));
    const previous = await this.install(downloaded);
    this.reloader ??= new Reloader({ dataDir: await this.currentDir(), store: this.store });
    const outcome = await this.reloader.reload(`DATA_URL ${trigger}`);
    if (outcome.status === 'ok') {
      this.servedManifest = text;
      if (previous) await rm(previous, { recursive: true, force: true });
    } else {
      // Rejected by validation: `current` goes back to the files being served, and the next look
      // downloads the drop again (it may have been fixed by then).
      if (previous) await this.install(previous);
      await rm(downloaded, { recursive: true, force: true });
    }
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
      throw new DownloadError(`could not download ${url}: ${reasonOf(error)}`);
    }
    let parsed;
    try {
      parsed = ManifestSchema.safeParse(JSON.parse(text));
    } catch (error) {
      throw new DownloadError(`${url} is not JSON: ${(error as Error).message}`);
    }
    if (!parsed.success) throw new DownloadError(`${url} is not a drop manifest: ${parsed.error.issues[0]!.path.join('.')} ${parsed.error.issues[0]!.message}`);
    const unsafe = Object.keys(parsed.data.files).find((name) => !FILE_NAME.test(name));
    if (unsafe !== undefined) throw new DownloadError(`${url} lists "${unsafe.slice(0, 200)}", which is not a plain .parquet file name`);
    return { manifest: parsed.data, text };
  }

  /** Downloads every file of `manifest` into a new directory, checking each; drop.json is written last. */
  private async fetchFiles(manifest: Manifest, text: string): Promise<string> {
    const dir = path.join(await this.workDir, `drop-${Date.now()}-${++this.downloads}`);
    await mkdir(dir);
    try {
      for (const [name, { sha256 }] of Object.entries(manifest.files)) await this.fetchFile(name, sha256.toLowerCase(), dir);
      await writeFile(path.join(dir, MANIFEST_FILE), text);
      return dir;
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  private async fetchFile(name: string, expected: string, dir: string): Promise<void> {
    const url = this.source.urlOf(name);
    const hash = createHash('sha256');
    let size = 0;
    let announced: number | undefined;
    try {
      const { body, length } = await this.source.get(name, AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS));
      announced = length;
      const measure = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          hash.update(chunk);
          done(null, chunk);
        },
      });
      await pipeline(body, measure, createWriteStream(path.join(dir, name)));
    } catch (error) {
      throw new DownloadError(`could not download ${url}: ${reasonOf(error)}`);
    }
    if (announced !== undefined && size !== announced) {
      throw new DownloadError(`${url} was cut short: ${size} of ${announced} bytes arrived`);
    }
    const actual = hash.digest('hex');
    if (actual !== expected) throw new DownloadError(`${url}: sha256 must match drop.json (manifest ${expected}, downloaded ${actual})`);
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
