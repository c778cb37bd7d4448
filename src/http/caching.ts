import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Rendered } from './response-cache.js';

/**
 * An answer is fully determined by the drop, the decoded query parameters and the representation,
 * so the tag is derived from those, without hashing the body, and a matching If-None-Match is
 * answered before any query runs. The tag doubles as the response cache's key. Parameters keep
 * their order: paging links repeat them as given, so another order is another body.
 */
export function etagFor(fingerprint: string, path: string, url: string, variant = ''): string {
  const query = [...new URL(url, 'http://local').searchParams]
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  const digest = createHash('sha256').update(`${fingerprint}\n${path}\n${query}\n${variant}`).digest('base64url');
  return `"${digest.slice(0, 27)}"`;
}

/** RFC 9110 If-None-Match: weak comparison, a list of tags, or `*`. */
export function isFresh(req: Request, etag: string): boolean {
  const header = req.get('if-none-match');
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** A small answer sent whole (service endpoints, the docs page): its tag hashes its bytes. */
export function renderedBody(contentType: string, text: string): Rendered {
  const body = Buffer.from(text);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { etag, body, contentType };
}

/**
 * Sends a rendered answer, or a 304 when the client's copy is current, with node's own response
 * methods: the bytes and their headers are final, so Express's send (charset, freshness and
 * length handling) would only redo work.
 */
export function sendRendered(req: Request, res: Response, rendered: Rendered, cacheControl: string): void {
  res.setHeader('ETag', rendered.etag);
  res.setHeader('Cache-Control', cacheControl);
  if (isFresh(req, rendered.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.setHeader('Content-Type', rendered.contentType);
  res.setHeader('Content-Length', rendered.body.length);
  res.end(req.method === 'HEAD' ? undefined : rendered.body);
}
