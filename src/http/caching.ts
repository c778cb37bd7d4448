import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { COMMON_HEADERS } from './headers.js';

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
 * A rendered answer: the exact bytes sent, serialized once, with every header of its 200 and of
 * its 304 prepared as flat [name, value, ...] lists.
 */
export interface Rendered {
  etag: string;
  body: Buffer;
  headers: readonly string[];
  notModifiedHeaders: readonly string[];
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
}

export function render(
  body: Buffer,
  { contentType, cacheControl, etag = tagOf(body), vary, csp, headers: described = {} }: RenderOptions,
): Rendered {
  const notModifiedHeaders = [...COMMON_HEADERS, 'ETag', etag, 'Cache-Control', cacheControl];
  if (vary) notModifiedHeaders.push('Vary', vary);
  if (csp) notModifiedHeaders.push('Content-Security-Policy', csp);
  for (const [name, value] of Object.entries(described)) notModifiedHeaders.push(name, value);
  const headers = [...notModifiedHeaders, 'Content-Type', contentType, 'Content-Length', String(body.length)];
  return { etag, body, headers, notModifiedHeaders };
}

/**
 * Sends a rendered answer, or a 304 when the client's copy is current. Every header goes in one
 * writeHead call: when nothing set a header before (cached answers without rate limiting, the
 * hot path), node writes the prepared list as it is; otherwise it merges, ours winning.
 */
export function sendRendered(req: Request, res: Response, rendered: Rendered): void {
  if (isFresh(req.headers['if-none-match'], rendered.etag)) {
    res.writeHead(304, rendered.notModifiedHeaders as string[]).end();
    return;
  }
  res.writeHead(200, rendered.headers as string[]).end(req.method === 'HEAD' ? undefined : rendered.body);
}
