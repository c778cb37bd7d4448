import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { HttpError, problem } from '../domain/errors.js';
import { notes } from './access-log.js';
import { setCommonHeaders } from './headers.js';
import { pathOf } from './url-path.js';

export { HttpError, PROBLEM_CODES, problem, type ParameterError, type ProblemCode } from '../domain/errors.js';

/** Sends an RFC 9457 problem document. */
export function sendProblem(res: Response, error: HttpError): void {
  // A tag, file name, encoding or date set before the failure (a download sent from its file)
  // describe the answer that was not sent; a problem, never compressed, must not carry them.
  for (const name of ['ETag', 'Content-Disposition', 'Content-Encoding', 'Last-Modified']) res.removeHeader(name);
  // The rate limiter's 429 is sent before the middleware that sets these on every other response.
  setCommonHeaders(res);
  if (error.headers) res.set(error.headers);
  // Sent as bytes so that Express does not append a charset: problem+json is UTF-8 by definition.
  res
    .status(error.status)
    .set({ 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store' })
    .send(Buffer.from(JSON.stringify(error.body())));
}

/**
 * A URL whose percent-escapes are not valid UTF-8 (`%E0%A4%A`, `%ZZ`) is refused as a whole,
 * before routing: otherwise a bad path would be a 404 and a bad query value an invalid parameter,
 * hiding that the client's encoding is what is broken.
 */
export const wellEncodedUrl: RequestHandler = (req, _res, next) => {
  // A CORS preflight is never refused: a browser that got a 400 for it reports a CORS failure,
  // and the page could not read the 400 of the request it asked for.
  if (req.method !== 'OPTIONS' && req.originalUrl.includes('%')) {
    try {
      decodeURIComponent(req.originalUrl);
    } catch {
      throw problem.badEncoding();
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
    // percent-encoded UTF-8, 416 and 404 and the like from sendFile.
    const status = typeof error?.status === 'number' ? error.status : 500;
    if (status === 400) {
      return sendProblem(res, problem.badEncoding());
    }
    if (status === 416) {
      // send has set Content-Range to `bytes */{size}`, as RFC 9110 asks of a 416.
      const size = /\/(\d+)$/.exec(String(res.getHeader('Content-Range') ?? ''))?.[1];
      return sendProblem(res, problem.invalidRequest(`the Range asked starts past the end of this download${size ? `, ${size} bytes` : ''}`, 416));
    }
    if (status > 400 && status < 500) {
      return sendProblem(res, problem.notFound(`no resource at ${safePath(req.originalUrl)}`));
    }
    notes(res).error = error;
    sendProblem(res, problem.internalError());
  };
}

const safePath = (url: string): string => pathOf(url).slice(0, 200);
