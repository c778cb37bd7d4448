/**
 * Cached answers before the Express router. A cache hit is a lookup and a write, yet walking
 * Express's router for it costs more than both; so a GET or HEAD whose answer the response cache
 * already holds is answered here, in the same process and server, and every other request (misses,
 * errors, downloads, docs, preflights) goes to Express as before.
 *
 * Identical answers by construction: the same `front` middleware that Express runs first (rate
 * limiting, and whatever else every request must go through) runs here too, on a request and
 * response prepared as Express prepares them, and the answer is written by the same sendRendered
 * from the same prepared header lists. An error in `front` (a 429) goes to the app's own error
 * handler. test/fast-path.test.ts compares both paths header by header.
 *
 * Measured (docs/performance.md): what made Express slow for a cached answer was mostly not its
 * router but Object.setPrototypeOf on every request and response (Express gives them its methods
 * that way), which sends V8's property lookups on them down slow paths: a bare node:http server
 * doing only that runs at about half its speed. So the server (listener.ts) is made with
 * request and response classes born with Express's methods (expressClasses), and the fast path
 * changes prototypes only for requests that come some other way (supertest, app.listen).
 */
import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { IncomingMessage, ServerResponse } from 'node:http';
import { notes } from './access-log.js';
import { sendRendered, type Rendered } from './caching.js';

/** The cached answer to a request, if any, from what the request line and its Accept say. */
export type CachedLookup = (method: string, url: string, accept: string | undefined) => Rendered | undefined;

type Handle = (req: IncomingMessage, res: ServerResponse, callback?: NextFunction) => void;

/**
 * Express runs `app.handle` for every request, however the app is served (app.listen,
 * http.createServer(app), supertest); cached answers are taken before it.
 */
export function answerCachedFirst(app: Express, front: readonly RequestHandler[], onError: ErrorRequestHandler, lookup: CachedLookup): void {
  const target = app as unknown as ExpressInternals;
  const expressHandle = target.handle.bind(app);
  const classes = expressClasses(app);
  // An error from `front` (a 429), or from writing the answer: the app's own error handler answers it.
  const fail: Fail = (error, request, response, early) => {
    if (!response.headersSent) for (let i = 0; i < early.length; i += 2) response.setHeader(early[i]!, early[i + 1]!);
    onError(error, request, response, (unhandled?: unknown) => {
      // Express's final handler would answer a bare 500; the error handler never gets here.
      if (unhandled !== undefined && !response.headersSent) response.writeHead(500).end();
    });
  };
  const sendAtEndOfTurn = answeredInBursts(fail);
  target.handle = (req, res, callback) => {
    // A Memento request (Accept-Datetime) may be answered from another release than the cached answer's.
    const cached =
      req.url?.charCodeAt(0) === 47 /* '/' */ && req.headers['accept-datetime'] === undefined
        ? lookup(req.method!, req.url, req.headers.accept)
        : undefined;
    if (!cached) return expressHandle(req, res, callback);
    // What Express's app.handle and its router set on every request before the first middleware.
    const request = req as Request;
    const response = res as Response;
    request.res = response;
    response.req = request;
    if (!(req instanceof classes.IncomingMessage)) Object.setPrototypeOf(req, target.request);
    if (!(res instanceof classes.ServerResponse)) Object.setPrototypeOf(res, target.response);
    response.locals ??= Object.create(null);
    // The headers `front` sets (request id, rate limit) are gathered here rather than stored, and
    // written with the prepared list in one writeHead (headers.ts setFrontHeader).
    const early: string[] = [];
    response.locals.earlyHeaders = early;
    request.baseUrl = '';
    request.originalUrl = req.url!;
    request.params = {};
    runFront(front, request, response, (error) => {
      response.locals.earlyHeaders = undefined;
      if (error === undefined) {
        notes(response).cache = 'hit';
        return sendAtEndOfTurn({ request, response, cached, early });
      }
      fail(error, request, response, early);
    });
  };
}

type Fail = (error: unknown, request: Request, response: Response, early: readonly string[]) => void;

interface Unsent {
  request: Request;
  response: Response;
  cached: Rendered;
  early: string[];
}

/**
 * Cache hits are written together once the event loop has handled every request it read in this
 * turn (setImmediate runs right after the poll phase), not one by one as each is handled. A client
 * waiting for its answer is asleep, and the write that wakes it is the costliest part of a cache
 * hit: on this 2-core machine, waking a client on the same machine cost the server 16 µs an answer
 * of its 50-60 (perf, docs/performance.md). Written in a burst, the answers find their readers
 * awake after the first: a cache hit cost a third less CPU and the server answered a third to a
 * half more requests a second, on Node.js 20 and 24 alike. What an answer waits for is the other
 * requests of its turn, a few µs each; pipelined requests still go out in order (node queues a
 * connection's responses).
 */
function answeredInBursts(fail: Fail): (answer: Unsent) => void {
  const unsent: Unsent[] = [];
  const sendAll = () => {
    for (const { request, response, cached, early } of unsent.splice(0)) {
      // A client gone in the meantime has had its response closed (and logged) already.
      if (response.destroyed) continue;
      // One answer that cannot be written must not keep the others of its turn from theirs.
      try {
        sendRendered(request, response, cached, early);
      } catch (error) {
        fail(error, request, response, early);
      }
    }
  };
  return (answer) => {
    if (unsent.push(answer) === 1) setImmediate(sendAll);
  };
}

/** Runs middleware in order, as the router does: each calls next() to go on, next(error) to stop. */
function runFront(front: readonly RequestHandler[], req: Request, res: Response, done: (error?: unknown) => void): void {
  let at = 0;
  const next: NextFunction = (error?: unknown) => {
    if (error !== undefined && error !== 'route' && error !== 'router') return done(error);
    const middleware = front[at++];
    if (!middleware) return done();
    try {
      // A middleware's rejected promise is passed on as Express 5's router does.
      const result = middleware(req, res, next) as unknown;
      if (result instanceof Promise) result.catch((rejected: unknown) => next(rejected ?? new Error('Rejected promise')));
    } catch (thrown) {
      done(thrown);
    }
  };
  next();
}

interface ExpressInternals {
  handle: Handle;
  request: object;
  response: object;
}

const classesOf = new WeakMap<Express, { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse }>();

/**
 * Request and response classes whose prototypes are the app's own request and response objects,
 * for node:http's createServer options: requests and responses are born with Express's methods.
 */
export function expressClasses(app: Express): { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse } {
  const classes = classesOf.get(app);
  if (!classes) {
    const { request, response } = app as unknown as ExpressInternals;
    class ExpressRequest extends IncomingMessage {}
    Object.setPrototypeOf(ExpressRequest.prototype, request);
    class ExpressResponse extends ServerResponse {}
    Object.setPrototypeOf(ExpressResponse.prototype, response);
    // node's typings make ServerResponse generic in its request; the class is only ever given ours.
    const made = { IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse as unknown as typeof ServerResponse };
    classesOf.set(app, made);
    return made;
  }
  return classes;
}
