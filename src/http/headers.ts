import type { RequestHandler } from 'express';

export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
const EXPOSED_HEADERS = 'ETag, Link, RateLimit, RateLimit-Policy, Retry-After, Content-Disposition';

/** Headers every response carries, errors and 304s included: any origin may read this public data. */
export const commonHeaders: RequestHandler = (_req, res, next) => {
  // setHeader rather than res.set: this runs on every request, and the values need no coercion.
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  res.setHeader('X-Content-Type-Options', 'nosniff');
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
