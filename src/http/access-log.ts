/**
 * One JSON line per request, written when its response is done (or its connection gone): the
 * request id (also sent as X-Request-Id), method, path, status, duration, bytes sent and whether
 * the answer came from the response cache. Headers and the query string are never logged, so no
 * API key or other secret a client sends can end up in a log.
 */
import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { setFrontHeader } from './headers.js';
import { requestIdFor } from './request-id.js';
import { pathOf } from './url-path.js';

/** What handlers tell the log about a request, through res.locals. */
interface LogNotes {
  /** `hit`: answered from the response cache; `miss`: the query ran. Data endpoints only. */
  cache?: 'hit' | 'miss';
  /**
   * The deprecated things the request used (api/versioning.ts), so that operators can count who
   * still depends on them before their sunset.
   */
  deprecated?: string[];
  /** Why the server cut a download short (http/export-limits.ts): a stalled client, or too long. */
  cut?: string;
  /** A 5xx's cause, logged with its stack; the client only ever sees a generic problem. */
  error?: unknown;
}

export function notes(res: Response): LogNotes {
  return res.locals as LogNotes;
}

export function accessLog(logger: Logger): RequestHandler {
  // A request's line holds only the fields picked below, never a header: the logger's redaction,
  // which copies every object it checks (two thirds of the cost of a line, measured), is for the
  // other lines, and for the 5xx lines, whose error might hold anything.
  const requests = logger.child({}, { redact: [] });
  return (req, res, next) => {
    const id = requestIdFor(req.get('x-request-id'));
    setFrontHeader(res, 'X-Request-Id', id);
    const started = performance.now();
    const socket = req.socket;
    const writtenBefore = socket.bytesWritten;
    // `on`, not `once`: a response closes once, and once's wrapper is a closure more per request.
    res.on('close', () => {
      const { cache, error, deprecated, cut } = notes(res);
      // Every line has the same fields in the same order, those without a value undefined (pino
      // leaves them out): objects of one shape are cheaper to build and to serialize.
      const line = {
        id,
        method: req.method,
        path: pathOf(req.originalUrl),
        status: res.statusCode,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        bytes: socket.bytesWritten - writtenBefore,
        cache,
        cut,
        deprecated,
        // The client went away before the whole answer was sent.
        aborted: res.writableFinished ? undefined : true,
      };
      // Only a line with an error object needs the redacting logger; a 503 overloaded, of which an
      // overloaded server writes hundreds a second, is a line of picked fields like any other.
      if (error !== undefined) logger.error({ ...line, err: error }, 'request');
      else if (res.statusCode >= 500) requests.error(line, 'request');
      else requests.info(line, 'request');
    });
    next();
  };
}
