/**
 * Compression of answers (docs/api.md, "Compression"): gzip and brotli, chosen by the client's
 * Accept-Encoding with its q-values honoured and brotli preferred when both weigh the same.
 * Rendered answers are compressed once, when rendered (caching.ts); streamed CSV downloads are
 * compressed on the fly (formats/download.ts). Arrow and Parquet are sent as they are: they are
 * binary, and Parquet is compressed inside already.
 */
import Negotiator from 'negotiator';
import { memo } from '../lib/memo.js';
import type { Transform } from 'node:stream';
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync } from 'node:zlib';

export type Encoding = 'br' | 'gzip';
/** In the order preferred when the client weighs them the same. */
export const ENCODINGS: readonly Encoding[] = ['br', 'gzip'];

/** Below this, the bytes saved do not pay for the client's work or for the headers' size. */
export const MIN_COMPRESSED_BYTES = 1024;

/**
 * A quality that answers a miss fast: brotli 11 is ~50x slower than 4 for ~10% fewer bytes, and a
 * cached answer is rendered on a request's path.
 */
const BROTLI_QUALITY = 4;
const GZIP_LEVEL = 6;

const brotliOptions = (size?: number) => ({
  params: {
    [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    ...(size !== undefined && { [constants.BROTLI_PARAM_SIZE_HINT]: size }),
  },
});

export function compress(body: Buffer, encoding: Encoding): Buffer {
  return encoding === 'br' ? brotliCompressSync(body, brotliOptions(body.length)) : gzipSync(body, { level: GZIP_LEVEL });
}

/** A compressing stream, for downloads whose size is not known in advance. */
export function compressor(encoding: Encoding): Transform {
  return encoding === 'br' ? createBrotliCompress(brotliOptions()) : createGzip({ level: GZIP_LEVEL });
}

/** The validator of a compressed answer: its identity tag with `-br` or `-gzip` inside the quotes. */
export function encodedTag(etag: string, encoding: Encoding): string {
  return `${etag.slice(0, -1)}-${encoding}"`;
}

/**
 * Clients send few distinct Accept-Encoding values (each browser one), so the choice is kept per
 * value, for 256 values at most.
 */
const chosen = memo((header: string): Encoding | undefined => {
  const best = preferredEncoding(new Negotiator({ headers: { 'accept-encoding': header } }));
  return best === 'br' || best === 'gzip' ? best : undefined;
}, 256);

/** The encoding to send, or undefined for the bytes as they are (identity). */
export function negotiateEncoding(header: string | undefined): Encoding | undefined {
  return header ? chosen(header) : undefined;
}

/** negotiator 1.x takes the order to prefer among equal weights; its published types predate that. */
const preferredEncoding = (negotiator: Negotiator): string | undefined =>
  (negotiator.encoding as unknown as (available: string[], options: { preferred: string[] }) => string | undefined).call(
    negotiator,
    ['identity', ...ENCODINGS],
    { preferred: [...ENCODINGS] },
  );
