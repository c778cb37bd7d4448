/**
 * What an answer sent from a file (a kept export, a file of the docs page) reads of the request's
 * conditions. Express's sendFile (the `send` package) answers Range, If-Range and the
 * preconditions itself, but otherwise than RFC 9110 and the rest of the service:
 * - If-Match and If-Unmodified-Since are ignored, as by every other answer of the service (send
 *   would answer 412, and its 412 reached the client as a 404);
 * - a Range is read on GET only (RFC 9110 section 14.2: a HEAD's is ignored; send answered 206);
 * - a Range holding a range that ends before it starts (`bytes=5-2`) is not valid and is ignored,
 *   so the whole file is sent (send answered 416);
 * - a Range is answered only when If-Range, if any, is this answer's own tag, strongly (send
 *   takes a weak tag or a list holding it for a match);
 * - a suffix range longer than the file asks for the whole file (send refused it with 416).
 * Called before res.sendFile, with the answer's ETag already set.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export function asRfc9110Asks(req: IncomingMessage, res: ServerResponse, size: number): void {
  delete req.headers['if-match'];
  delete req.headers['if-unmodified-since'];
  const range = req.headers.range;
  if (range === undefined) return;
  const ifRange = req.headers['if-range'];
  if (req.method !== 'GET' || backwards(range) || (ifRange !== undefined && String(ifRange).trim() !== res.getHeader('ETag'))) {
    delete req.headers.range;
    return;
  }
  const suffix = /^bytes=\s*-(\d+)\s*$/.exec(range);
  if (suffix && Number(suffix[1]) >= size && size > 0) req.headers.range = 'bytes=0-';
}

/** A byte range whose last position comes before its first makes the whole Range header invalid. */
function backwards(range: string): boolean {
  return [...range.matchAll(/(\d+)\s*-\s*(\d+)/g)].some(([, first, last]) => Number(last) < Number(first));
}
