import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { SERVICE_ROUTES, spellings } from '../routes.js';
import { HttpError } from './errors.js';

/** The service routes marked not rate limited (the health checks), in both spellings. */
const UNLIMITED = new Set(
  Object.values(SERVICE_ROUTES)
    .filter((route) => !route.rateLimited)
    .flatMap((route) => spellings(route.path)),
);

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
