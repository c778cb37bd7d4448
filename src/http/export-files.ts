/**
 * Full exports kept as files (docs/performance.md#full-exports). A drop does not change while it
 * is served, so the bytes of a whole export (every matching line, CSV, Arrow or Parquet) are the
 * same for every request of it: the first request streams them as before and writes them to a
 * file at the same time; later ones are sent from that file by the kernel, with Content-Length
 * and Range, no query and no pooled connection. The files are kept under one folder per drop
 * fingerprint, so a file can only ever answer for the drop that made it; a swap removes the
 * folders of other drops.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';

export interface ExportFile {
  file: string;
  size: number;
}

/** Tees a download's bytes into a file, named once the last byte has passed; `abort` drops it. */
export interface Recorder {
  tap: Transform;
  abort(): void;
}

export class ExportFiles {
  /** Exports being written now, so that one export is written by one request at a time. */
  private readonly writing = new Set<string>();
  private bytes = 0;

  constructor(
    private readonly root: string,
    /** Past this many bytes of files, further exports are streamed without being kept. */
    private readonly maxBytes: number,
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
      void opened.then(() => out?.destroy()).finally(() => void rm(temp, { force: true }).finally(done));
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

  /** Removes the files of every drop but this one (after a swap: those files can never be asked for again). */
  async keepOnly(fingerprint: string): Promise<void> {
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
    await rm(this.root, { recursive: true, force: true });
  }

  private fileOf(fingerprint: string, key: string): string {
    return path.join(this.root, folderOf(fingerprint), createHash('sha256').update(key).digest('hex'));
  }
}

/** The fingerprint comes from the drop's checksums; whatever it holds, it names one folder, never a path. */
const folderOf = (fingerprint: string) => fingerprint.replace(/[^A-Za-z0-9_-]/g, '_');
