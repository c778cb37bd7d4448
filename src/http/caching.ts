import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { COMMON_HEADERS } from './headers.js';
import { ENCODINGS, MIN_COMPRESSED_BYTES, compress, encodedTag, negotiateEncoding, type Encoding } from './encoding.js';

/**
 * The one shape of every tag the service sends: a quoted, shortened sha256. A data answer is fully
 * determined by the drop, the canonical query and the representation, so its tag is a hash of
 * those (http/canonical-query.ts answerKey), not of the body, and a matching If-None-Match is
 * answered before any query runs.
 */
export function tagOf(data: string | Buffer): string {
  return `"${createHash('sha256').update(data).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110 If-None-Match: weak comparison, a list of tags, or `*`. */
export function isFresh(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * Which of an answer's tags If-None-Match names, if any: the tag of the encoding chosen for this
 * request, or the identity tag. A client holding the uncompressed bytes has the same content, so
 * it gets a 304 too; this is also the only check possible before a query runs, when whether the
 * answer will be big enough to compress is not known yet (pipeline.ts).
 */
export function freshTag(header: string | undefined, etag: string, encoding: Encoding | undefined): string | undefined {
  if (!header) return undefined;
  if (encoding && isFresh(header, encodedTag(etag, encoding))) return encodedTag(etag, encoding);
  return isFresh(header, etag) ? etag : undefined;
}

/** One representation of an answer: its bytes and every header of its 200 and of its 304, as flat [name, value, ...] lists. */
interface Representation {
  etag: string;
  body: Buffer;
  headers: readonly string[];
  notModifiedHeaders: readonly string[];
}

/**
 * A rendered answer: the exact bytes sent, serialized once, and, when it is text big enough to be
 * worth it, compressed once with every encoding (never per request).
 */
export interface Rendered extends Representation {
  encoded: Partial<Record<Encoding, Representation>>;
  /** Every byte held, for the response cache's accounting. */
  size: number;
}

interface RenderOptions {
  contentType: string;
  cacheControl: string;
  /** The tag; by default a hash of the bytes. */
  etag?: string;
  /** Request headers that choose the representation (data endpoints: Accept). */
  vary?: string;
  /**
   * A Content-Security-Policy to send with it. Answers sent before any middleware (cached data
   * answers) need it here; others get the default from commonHeaders, or their route's own.
   */
  csp?: string;
  /** Headers that describe the answer (Budget-Measure, Link), on its 200 and its 304. */
  headers?: Readonly<Record<string, string>>;
  /** Common headers this answer must not carry (the embed page: X-Frame-Options). */
  without?: readonly string[];
}

/** Content types sent compressed when asked: JSON, CSV, HTML, JavaScript, CSS, SVG. */
const COMPRESSIBLE = /^(application\/(json|problem\+json|javascript)|text\/|image\/svg\+xml)/;

export function isCompressible(contentType: string): boolean {
  return COMPRESSIBLE.test(contentType);
}

export function render(
  body: Buffer,
  { contentType, cacheControl, etag = tagOf(body), vary, csp, headers: described = {}, without = [] }: RenderOptions,
): Rendered {
  const compressed = isCompressible(contentType) && body.length >= MIN_COMPRESSED_BYTES;
  // Data answers always say they vary by Accept-Encoding (their 304 may come before the body is known).
  const varyBy = compressed && !vary?.includes('Accept-Encoding') ? [vary, 'Accept-Encoding'].filter(Boolean).join(', ') : vary;
  const representation = (bytes: Buffer, tag: string, encoding?: Encoding): Representation => {
    const common = without.length
      ? COMMON_HEADERS.flatMap((value, i) => (i % 2 === 0 && !without.includes(value) ? [value, COMMON_HEADERS[i + 1]!] : []))
      : COMMON_HEADERS;
    const notModifiedHeaders = [...common, 'ETag', tag, 'Cache-Control', cacheControl];
    if (varyBy) notModifiedHeaders.push('Vary', varyBy);
    if (csp) notModifiedHeaders.push('Content-Security-Policy', csp);
    for (const [name, value] of Object.entries(described)) notModifiedHeaders.push(name, value);
    const headers = [...notModifiedHeaders, 'Content-Type', contentType];
    if (encoding) headers.push('Content-Encoding', encoding);
    headers.push('Content-Length', String(bytes.length));
    return { etag: tag, body: bytes, headers, notModifiedHeaders };
  };
  const encoded: Rendered['encoded'] = {};
  let size = body.length;
  if (compressed) {
    for (const encoding of ENCODINGS) {
      const bytes = compress(body, encoding);
      size += bytes.length;
      encoded[encoding] = representation(bytes, encodedTag(etag, encoding), encoding);
    }
  }
  return { ...representation(body, etag), encoded, size };
}

/**
 * Sends a rendered answer, or a 304 when the client's copy is current (freshTag). Every header goes
 * in one writeHead call: when nothing set a header before, node writes the prepared list as it is;
 * otherwise it merges, ours winning. `early`: headers gathered before (the fast path's front
 * headers, never one of the prepared list's names), sent first, as node would send stored ones.
 */
export function sendRendered(req: IncomingMessage, res: ServerResponse, rendered: Rendered, early?: readonly string[]): void {
  const encoding = negotiateEncoding(req.headers['accept-encoding']);
  const chosen = (encoding && rendered.encoded[encoding]) || rendered;
  const ifNoneMatch = req.headers['if-none-match'];
  const withEarly = (headers: readonly string[]) => (early?.length ? [...early, ...headers] : headers) as string[];
  if (ifNoneMatch) {
    const matched = chosen !== rendered && isFresh(ifNoneMatch, chosen.etag) ? chosen : isFresh(ifNoneMatch, rendered.etag) ? rendered : undefined;
    if (matched) {
      res.writeHead(304, withEarly(matched.notModifiedHeaders)).end();
      return;
    }
  }
  res.writeHead(200, withEarly(chosen.headers)).end(req.method === 'HEAD' ? undefined : chosen.body);
}
