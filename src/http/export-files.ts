/**
 * Full exports kept as files (docs/performance.md#full-exports). A drop does not change while it
 * is served, so the bytes of a whole export (every matching line, CSV, Arrow or Parquet) are the
 * same for every request of it. The first request has them made once: DuckDB writes the file
 * itself where it can and the export is not small (`written`, `copyAbove`), and the requests
 * asking meanwhile read it as it grows; else
 * the request streams the bytes made in JS and writes them to a file at the same time
 * (`recorder`). Later requests are sent from the file by the kernel, with Content-Length and
 * Range, no query and no pooled connection. The files are kept under one folder per drop
 * fingerprint, so a file can only ever answer for the drop that made it; a swap removes the
 * folders of other drops.
 */
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, createWriteStream, openSync, read, writeFileSync, type WriteStream } from 'node:fs';
import { copyFile, link, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';

const readAt = promisify(read);

export interface ExportFile {
  file: string;
  size: number;
}

/** Tees a download's bytes into a file, named once the last byte has passed; `abort` drops it. */
export interface Recorder {
  tap: Transform;
  abort(): void;
}

/** Has DuckDB write an export to `part` (a file that exists, empty); rejects if it failed or was stopped. */
export type WriteExport = (part: string, signal: AbortSignal) => Promise<void>;

/** An export DuckDB is writing now, into a file of the scratch directory, and the requests reading it. */
interface Writing {
  part: string;
  readers: number;
  /** Set once DuckDB has closed the file: complete, or `failure`. */
  finished: boolean;
  failure?: Error;
  /** Settles when finished. */
  done: Promise<void>;
  stop: AbortController;
}

/** How long a reader waits for DuckDB to write more before it looks again. */
const POLL_MS = 4;
/** Bytes read from a file being written at a time. */
const READ_BYTES = 256 * 1024;

export class ExportFiles {
  /** Exports being written now, so that one export is written by one request at a time. */
  private readonly writing = new Set<string>();
  /** Exports DuckDB is writing now, by the file they will be kept as. */
  private readonly copying = new Map<string, Writing>();
  private bytes = 0;
  /** The drop whose files are kept (keepOnly): a file another drop finishes later is not. */
  private kept: string | undefined;

  constructor(
    private readonly root: string,
    /** Past this many bytes of files, further exports are streamed without being kept. */
    private readonly maxBytes: number,
    /**
     * DuckDB writes an export itself when it may have more lines than this; undefined: as the
     * format says (CopyWriter.writesAbove), by default more than SMALL_EXPORT_ROWS, as
     * api/pipeline.ts decides (a small CSV is made in JS, whose first bytes leave as soon as its
     * query has run, where COPY sorts and writes all of it first). Tests of DuckDB's writer set 0.
     */
    readonly copyAbove?: number,
  ) {}

  /** The file of an export already written for this drop, if any. */
  async find(fingerprint: string, key: string): Promise<ExportFile | undefined> {
    const file = this.fileOf(fingerprint, key);
    try {
      return { file, size: (await stat(file)).size };
    } catch {
      return undefined;
    }
  }

  /**
   * A recorder for an export not yet written, or undefined when another request is writing it or
   * the folder is full (that request just streams).
   */
  recorder(fingerprint: string, key: string): Recorder | undefined {
    if (this.maxBytes <= 0 || this.bytes >= this.maxBytes) return undefined;
    const file = this.fileOf(fingerprint, key);
    if (this.writing.has(file)) return undefined;
    this.writing.add(file);
    const temp = `${file}.${randomUUID()}.part`;
    let out: WriteStream | undefined;
    let written = 0;
    const opened = mkdir(path.dirname(file), { recursive: true }).then(() => {
      out = createWriteStream(temp);
      // A failed write only means the export is not kept; the download itself goes on.
      out.on('error', () => undefined);
    });
    const done = () => this.writing.delete(file);
    let finished = false;
    const commit = async () => {
      try {
        await opened;
        await new Promise<void>((resolve, reject) => out!.end((error?: Error | null) => (error ? reject(error) : resolve())));
        await rename(temp, file);
        this.bytes += written;
      } catch {
        await rm(temp, { force: true });
      } finally {
        done();
      }
    };
    const abort = () => {
      if (finished) return;
      finished = true;
      // Free to be recorded again at once, under a partial file of another name. This one's is
      // removed once its stream has closed: a stream destroyed before its file is open still
      // creates the file when the open completes, after any earlier rm.
      done();
      const closed = opened.then(() => {
        if (!out || out.closed) return;
        const closing = once(out, 'close');
        out.destroy();
        return closing;
      });
      const removePartial = () => void rm(temp, { force: true }).catch(() => undefined);
      void closed.then(removePartial, removePartial);
    };
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, callback: TransformCallback) {
        opened.then(
          () => {
            written += chunk.length;
            // The file is written at the pace of the response; a slower disk only buffers.
            out!.write(chunk);
            callback(null, chunk);
          },
          () => callback(null, chunk),
        );
      },
      // The file is named before the download's last byte goes out, so that the next request of
      // the export, sent once this one is complete, finds it.
      flush(callback: TransformCallback) {
        finished = true;
        commit().then(
          () => callback(),
          () => callback(),
        );
      },
    });
    return { tap, abort };
  }

  /**
   * The bytes of a whole export that DuckDB writes itself: read from its file as DuckDB writes it,
   * by this request and every other one asking meanwhile, with one writer per export (`write`, in
   * a file of `scratch`, the directory DuckDB may write to). Once written the file is kept for
   * later requests (`find`) while the folder has room, else removed once read. When every reader
   * has stopped before DuckDB is done, the writing is stopped and nothing is kept.
   */
  written(fingerprint: string, key: string, scratch: string, write: WriteExport): AsyncIterable<Buffer> {
    const file = this.fileOf(fingerprint, key);
    let writing = this.copying.get(file);
    // One whose readers have all left is being stopped: joining it would end in its interruption.
    if (!writing || writing.stop.signal.aborted) {
      const part = path.join(scratch, `export-${randomUUID()}.part`);
      // There before DuckDB opens it, so that a reader can open it at once (COPY's own temporary
      // file is turned off by the caller: it writes this very file, in place).
      writeFileSync(part, '');
      const started: Writing = { part, readers: 0, finished: false, stop: new AbortController(), done: Promise.resolve() };
      started.done = write(part, started.stop.signal).then(
        async () => {
          // Kept before its readers see the end: the next request, once one of them is answered,
          // must find the file. Until the part is removed, a request joining reads it.
          await this.keep(fingerprint, part, file);
          started.finished = true;
          this.forget(file, started);
          await rm(part, { force: true });
        },
        async (error: unknown) => {
          started.finished = true;
          started.failure = error instanceof Error ? error : new Error(String(error));
          this.forget(file, started);
          await rm(part, { force: true });
        },
      );
      this.copying.set(file, (writing = started));
    }
    // Opened now, while the file is surely there: once written it may be renamed or removed, and
    // an open descriptor still reads it.
    const fd = openSync(writing.part, 'r');
    writing.readers += 1;
    return this.tail(fd, writing);
  }

  /** Done with `writing`, unless a new writing of the same export has taken its place. */
  private forget(file: string, writing: Writing): void {
    if (this.copying.get(file) === writing) this.copying.delete(file);
  }

  private async *tail(fd: number, writing: Writing): AsyncGenerator<Buffer> {
    let position = 0;
    let buffer = Buffer.allocUnsafe(READ_BYTES);
    try {
      for (;;) {
        // Read before looking again at the file: once finished, what it has is all there is.
        const finished = writing.finished;
        const { bytesRead } = await readAt(fd, buffer, 0, READ_BYTES, position);
        if (bytesRead > 0) {
          position += bytesRead;
          yield buffer.subarray(0, bytesRead);
          buffer = Buffer.allocUnsafe(READ_BYTES);
        } else if (finished) {
          if (writing.failure !== undefined) throw writing.failure;
          return;
        } else await Promise.race([writing.done, delay(POLL_MS)]);
      }
    } finally {
      closeSync(fd);
      writing.readers -= 1;
      if (writing.readers === 0 && !writing.finished) writing.stop.abort();
    }
  }

  /**
   * Keeps a file DuckDB has written as the export's, if its drop is still served and the folder
   * has room: a second name for it (the part keeps its own until its writing is done).
   */
  private async keep(fingerprint: string, part: string, file: string): Promise<void> {
    try {
      const { size } = await stat(part);
      if (this.maxBytes <= 0 || this.bytes + size > this.maxBytes || (this.kept !== undefined && this.kept !== fingerprint)) return;
      await mkdir(path.dirname(file), { recursive: true });
      try {
        await link(part, file);
      } catch (error) {
        // The scratch directory and this folder may be on different file systems.
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
        const copied = `${file}.${randomUUID()}.part`;
        await copyFile(part, copied);
        await rename(copied, file);
      }
      this.bytes += size;
    } catch {
      // Not kept: the next request writes it again.
    }
  }

  /** Removes the files of every drop but this one (after a swap: those files can never be asked for again). */
  async keepOnly(fingerprint: string): Promise<void> {
    this.kept = fingerprint;
    const dirs = await readdir(this.root).catch(() => [] as string[]);
    const kept = folderOf(fingerprint);
    await Promise.all(dirs.filter((dir) => dir !== kept).map((dir) => rm(path.join(this.root, dir), { recursive: true, force: true })));
    this.bytes = 0;
    for (const name of await readdir(path.join(this.root, kept)).catch(() => [] as string[])) {
      this.bytes += (await stat(path.join(this.root, kept, name)).catch(() => ({ size: 0 }))).size;
    }
  }

  /** Removes every file: the process is stopping. */
  async clear(): Promise<void> {
    for (const writing of this.copying.values()) writing.stop.abort();
    await rm(this.root, { recursive: true, force: true });
  }

  private fileOf(fingerprint: string, key: string): string {
    return path.join(this.root, folderOf(fingerprint), createHash('sha256').update(key).digest('hex'));
  }
}

/** The fingerprint comes from the drop's checksums; whatever it holds, it names one folder, never a path. */
const folderOf = (fingerprint: string) => fingerprint.replace(/[^A-Za-z0-9_-]/g, '_');
