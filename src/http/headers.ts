import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
import helmet from 'helmet';

export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';

/** Where the fast path gathers the headers `front` sets on a cached answer (fast-path.ts). */
interface EarlyHeaders {
  earlyHeaders?: string[];
}

/**
 * Sets a header that the middleware every request goes through (`front`: request id, rate limit)
 * adds. On a cached answer the fast path gathers these in a list that goes before the prepared
 * one in a single writeHead: a header stored with setHeader first makes node merge the whole
 * prepared list header by header (remove, validate, append), about as costly as the rest of the
 * fast path's own work. Anywhere else it is res.setHeader.
 */
export function setFrontHeader(res: ServerResponse, name: string, value: string): void {
  const early = (res as ServerResponse & { locals?: EarlyHeaders }).locals?.earlyHeaders;
  if (early) early.push(name, value);
  else res.setHeader(name, value);
}

/**
 * The security headers helmet chooses (HSTS, X-Frame-Options, Referrer-Policy, ...). They never
 * vary per request, so helmet is run once here and its headers join the prepared list of every
 * answer, which keeps cached answers to one writeHead (see sendRendered). The resource policy is
 * `cross-origin` because this data is meant to be read from any site.
 */
function helmetHeaders(): string[] {
  const headers: string[] = [];
  const res = { setHeader: (name: string, value: string) => headers.push(name, value), removeHeader: () => undefined };
  helmet({ contentSecurityPolicy: false, crossOriginResourcePolicy: { policy: 'cross-origin' } })(
    {} as IncomingMessage,
    res as unknown as ServerResponse,
    () => undefined,
  );
  return headers;
}

/**
 * Headers every response carries, errors and 304s included: any origin may read this public data.
 * A flat [name, value, ...] list, the form writeHead takes fastest (see sendRendered).
 */
export const COMMON_HEADERS: readonly string[] = [
  'Access-Control-Allow-Origin',
  '*',
  'Access-Control-Expose-Headers',
  // Every header a script may need that CORS does not let it read by default: the cache's, the
  // paging links, the limits, a download's name and its ranges (a resumed download), the request
  // id, the measure, a permalink and its date (releases), the deprecation notices, and what a 405
  // allows and a 401 asks for.
  'ETag, Link, RateLimit, RateLimit-Policy, Retry-After, Content-Disposition, Accept-Ranges, Content-Range, X-Request-Id, Budget-Measure, Content-Location, Memento-Datetime, Deprecation, Sunset, Allow, WWW-Authenticate',
  ...helmetHeaders(), // X-Content-Type-Options: nosniff among them
];

/**
 * The Content-Security-Policy of everything but pages: JSON and downloads load nothing. A route
 * that serves a page sets its own after commonHeaders, which replaces this one.
 */
export const DEFAULT_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export function setCommonHeaders(res: Response): void {
  for (let i = 0; i < COMMON_HEADERS.length; i += 2) res.setHeader(COMMON_HEADERS[i]!, COMMON_HEADERS[i + 1]!);
  res.setHeader('Content-Security-Policy', DEFAULT_CSP);
}

export const commonHeaders: RequestHandler = (_req, res, next) => {
  setCommonHeaders(res);
  next();
};

/** CORS preflight: the API is read-only, so GET and HEAD with any request header are allowed. */
export const preflight: RequestHandler = (req, res) => {
  res.set({
    'Access-Control-Allow-Methods': ALLOWED_METHODS,
    'Access-Control-Allow-Headers': req.get('access-control-request-headers') ?? '*',
    'Access-Control-Max-Age': '86400',
    Allow: ALLOWED_METHODS,
  });
  res.status(204).end();
};
