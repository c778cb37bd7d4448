/**
 * Sends a table as a download in one of the registry's download formats: rows that arrive in
 * chunks and are encoded as they come, or the bytes of a full export made from DuckDB's results
 * (format.fromQuery). Either way through stream.pipeline, so the response's backpressure paces
 * the source: memory stays flat however long the export, and a client that disconnects stops it.
 */
import type { Request, Response } from 'express';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createReadStream } from 'node:fs';
import { compressor, type Encoding } from '../http/encoding.js';
import type { ExportFile, Recorder } from '../http/export-files.js';
import { asRfc9110Asks } from '../http/file-conditions.js';
import type { DownloadFormat } from './format.js';
import type { Column, FlatRow } from './table.js';

/** What a download is made of: chunks of rows for the format's encoder, or the format's bytes already. */
export type DownloadBody = { rows: AsyncIterable<FlatRow[]>; columns: readonly Column[] } | { bytes: AsyncIterable<Uint8Array> };

interface Download {
  format: DownloadFormat;
  /** Compress the stream with this encoding (only ever asked for text formats). */
  encoding?: Encoding;
  /** The attachment's file name, extension included; see api/download-name.ts. */
  fileName: string;
  /** Started only for a GET, so HEAD and 304 run no query. */
  body(): DownloadBody;
  /** Keeps the bytes (before compression) as a file for the next requests of the same export. */
  record?: Recorder;
  /** Keeps the compressed bytes too, for the next requests asking the same encoding. */
  recordCompressed?: Recorder;
  /** The last stage before the response, made when the bytes start (http/export-limits.ts's watchdog). */
  watch?: () => NodeJS.ReadWriteStream;
}

export async function sendDownload(req: Request, res: Response, download: Download): Promise<void> {
  const headers = {
    'Content-Type': download.format.contentType,
    'Content-Disposition': `attachment; filename="${download.fileName}"`,
    ...(download.encoding && { 'Content-Encoding': download.encoding }),
  };
  if (req.method === 'HEAD') {
    res.status(200).set(headers).end();
    return;
  }
  try {
    // The first chunk is awaited before any header is set, so a failing query still becomes a
    // problem+json answer; a failure after that can only cut the stream short.
    const body = download.body();
    const chunks = ('rows' in body ? body.rows : body.bytes)[Symbol.asyncIterator]();
    const first = await chunks.next();
    res.status(200).set(headers);
    // Bytes are made up to 1 MB ahead of the socket, so encoding the next ones overlaps the
    // kernel sending the last ones (the default, 16 KB, left the encoder idle on every drain).
    const source = Readable.from(
      resume<unknown>(first, chunks),
      'rows' in body ? { objectMode: true } : { objectMode: false, highWaterMark: 1 << 20 },
    );
    const stages: NodeJS.ReadWriteStream[] = [];
    if ('rows' in body) stages.push(download.format.encoder(body.columns));
    if (download.record) stages.push(download.record.tap);
    if (download.encoding) stages.push(compressor(download.encoding));
    if (download.encoding && download.recordCompressed) stages.push(download.recordCompressed.tap);
    if (download.watch) stages.push(download.watch());
    await pipeline([source, ...stages, res]);
  } catch (error) {
    // Whatever was recorded is not the whole export: it is not kept.
    download.record?.abort();
    download.recordCompressed?.abort();
    // The client went away: pipeline has already stopped the query and given its connection back.
    if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
    throw error;
  }
}

/**
 * Sends an export already written to a file, by the kernel with Content-Length and Range. A
 * compressed answer is sent the same way once its compressed bytes are a file of their own
 * (`compressed`); until then the file is compressed on the fly, and `record` keeps what that
 * makes, for the next requests. Either way no query and no encoding of rows.
 */
export async function sendExportFile(
  req: Request,
  res: Response,
  download: Omit<Download, 'body' | 'record'>,
  file: ExportFile,
  { compressed = false, record }: { compressed?: boolean; record?: Recorder } = {},
): Promise<void> {
  const headers = {
    'Content-Type': download.format.contentType,
    'Content-Disposition': `attachment; filename="${download.fileName}"`,
    ...(download.encoding && { 'Content-Encoding': download.encoding }),
  };
  if (download.encoding && !compressed) {
    res.status(200).set(headers);
    if (req.method === 'HEAD') return void res.end();
    try {
      await pipeline([createReadStream(file.file), compressor(download.encoding), ...(record ? [record.tap] : []), res]);
    } catch (error) {
      record?.abort();
      if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
      throw error;
    }
    return;
  }
  // send (through res.sendFile) answers Range and If-Range against the ETag already set, and HEAD,
  // once the request's conditions say what RFC 9110 has them say.
  asRfc9110Asks(req, res, file.size);
  await new Promise<void>((resolve, reject) => {
    res.sendFile(file.file, { headers, acceptRanges: true, etag: false, lastModified: false, cacheControl: false, dotfiles: 'allow' }, (error) => {
      if (!error || (error as NodeJS.ErrnoException).code === 'ECONNABORTED' || res.headersSent) resolve();
      else reject(error);
    });
  });
}

/** The chunks again, first one included; stopping early stops the source too (its finally runs). */
async function* resume<T>(first: IteratorResult<T>, rest: AsyncIterator<T>): AsyncGenerator<T> {
  try {
    if (first.done) return;
    yield first.value;
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
  } finally {
    await rest.return?.();
  }
}
