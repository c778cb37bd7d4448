import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { HttpError } from './errors.js';

const UNLIMITED = new Set(['/healthz', '/healthz/', '/readyz', '/readyz/']);

/** `perMinute` requests per client IP per minute, with IETF draft-8 headers. */
export function rateLimiter(perMinute: number): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    skip: (req) => req.method === 'OPTIONS' || UNLIMITED.has(req.path),
    handler: (_req, res, next) => {
      const retryAfter = res.get('Retry-After');
      next(
        new HttpError(
          429,
          'rate_limited',
          `too many requests: the limit is ${perMinute} per minute${retryAfter ? `; retry after ${retryAfter} s` : ''}`,
        ),
      );
    },
  });
}
