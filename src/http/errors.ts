import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { notes } from './access-log.js';
import { setCommonHeaders } from './headers.js';

/** The stable codes of docs/api.md#errors; responses.ts documents them in OpenAPI from this list. */
export const PROBLEM_CODES = [
  'invalid_parameter',
  'unknown_parameter',
  'invalid_request',
  'unauthorized',
  'not_found',
  'unknown_release',
  'method_not_allowed',
  'sunset',
  'rate_limited',
  'overloaded',
  'query_timeout',
  'data_unavailable',
  'internal_error',
] as const;

export type ProblemCode = (typeof PROBLEM_CODES)[number];

export interface ParameterError {
  parameter: string;
  message: string;
}

/** The one error type of the service: a status, a stable `code`, and a message safe to show. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ProblemCode,
    readonly detail: string,
    readonly errors?: ParameterError[],
    /** Headers the problem needs, e.g. Retry-After on a 503. */
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
  }

  static badRequest(code: 'invalid_parameter' | 'unknown_parameter', errors: ParameterError[]): HttpError {
    const detail = errors.map((e) => `${e.parameter} ${e.message}`).join('; ');
    return new HttpError(400, code, detail, errors);
  }
}

/** Sends an RFC 9457 problem document. */
export function sendProblem(res: Response, error: HttpError): void {
  const body: Record<string, unknown> = {
    type: 'about:blank',
    title: STATUS_CODES[error.status] ?? 'Error',
    status: error.status,
    detail: error.detail,
    code: error.code,
  };
  if (error.errors) body.errors = error.errors;
  // A tag set before the failure names the answer that was not sent; a problem must not carry it.
  res.removeHeader('ETag');
  // The rate limiter's 429 is sent before the middleware that sets these on every other response.
  setCommonHeaders(res);
  if (error.headers) res.set(error.headers);
  // Sent as bytes so that Express does not append a charset: problem+json is UTF-8 by definition.
  res
    .status(error.status)
    .set({ 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store' })
    .send(Buffer.from(JSON.stringify(body)));
}

/**
 * A URL whose percent-escapes are not valid UTF-8 (`%E0%A4%A`, `%ZZ`) is refused as a whole,
 * before routing: otherwise a bad path would be a 404 and a bad query value an invalid parameter,
 * hiding that the client's encoding is what is broken.
 */
export const wellEncodedUrl: RequestHandler = (req, _res, next) => {
  if (req.originalUrl.includes('%')) {
    try {
      decodeURIComponent(req.originalUrl);
    } catch {
      throw new HttpError(400, 'invalid_request', 'the URL is not valid percent-encoded UTF-8');
    }
  }
  next();
};

/**
 * Registered last. Anything that is not an HttpError is a bug: the client gets a generic 500,
 * because DuckDB's messages contain SQL and file paths, and the access log gets the error.
 */
export function errorHandler(): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (res.headersSent) {
      // A download that failed midway: the client must see a cut connection, not a short file.
      notes(res).error = error;
      res.destroy();
      return;
    }
    if (error instanceof HttpError) return sendProblem(res, error);
    // Express's own 4xx errors carry a status: 400 when a path segment is not valid
    // percent-encoded UTF-8, 404 and the like from sendFile.
    const status = typeof error?.status === 'number' ? error.status : 500;
    if (status === 400) {
      return sendProblem(res, new HttpError(400, 'invalid_request', 'the URL is not valid percent-encoded UTF-8'));
    }
    if (status > 400 && status < 500) {
      return sendProblem(res, new HttpError(404, 'not_found', `no resource at ${safePath(req.originalUrl)}`));
    }
    notes(res).error = error;
    sendProblem(res, new HttpError(500, 'internal_error', 'the server failed to answer this request; it has been logged'));
  };
}

const safePath = (url: string): string => url.split('?')[0]!.slice(0, 200);
