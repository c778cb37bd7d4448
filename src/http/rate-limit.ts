import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { HttpError } from './errors.js';

/**
 * `perMinute` requests per client IP per minute, with IETF draft-8 headers. CORS preflights and
 * the `unlimited` paths (the health checks, from routes.ts) are not counted.
 */
export function rateLimiter(perMinute: number, unlimited: readonly string[]): RequestHandler {
  const exempt = new Set(unlimited);
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    skip: (req) => req.method === 'OPTIONS' || exempt.has(req.path),
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
