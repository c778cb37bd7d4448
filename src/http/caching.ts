import { createHash } from 'node:crypto';
import type { Request } from 'express';

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
