import type { RequestHandler, Response } from 'express';

export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';

/**
 * Headers every response carries, errors and 304s included: any origin may read this public data.
 * A flat [name, value, ...] list, the form writeHead takes fastest (see sendRendered).
 */
export const COMMON_HEADERS: readonly string[] = [
  'Access-Control-Allow-Origin',
  '*',
  'Access-Control-Expose-Headers',
  'ETag, Link, RateLimit, RateLimit-Policy, Retry-After, Content-Disposition',
  'X-Content-Type-Options',
  'nosniff',
];

export function setCommonHeaders(res: Response): void {
  for (let i = 0; i < COMMON_HEADERS.length; i += 2) res.setHeader(COMMON_HEADERS[i]!, COMMON_HEADERS[i + 1]!);
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
