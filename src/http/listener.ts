/**
 * The HTTP server around the app, with the limits that protect a public service from slow and
 * malformed clients (docs/api.md, "Operating the service"): headers must arrive within 10 s, idle
 * keep-alive connections close after 5 s, a header block is at most 16 KB, and a request body is
 * never read. What Node's parser refuses gets a problem+json answer like every other error.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { problem, type HttpError } from '../domain/errors.js';
import { logger } from '../lib/log.js';
import { expressClasses } from './fast-path.js';
import { ALLOWED_METHODS, COMMON_HEADERS, DEFAULT_CSP } from './headers.js';
import { requestIdFor } from './request-id.js';
import { pathOf } from './url-path.js';

export interface Limits {
  /** A request whose headers are not complete by then is answered 408 and closed. */
  headersTimeoutMs: number;
  /** Idle keep-alive connections are closed after this. */
  keepAliveTimeoutMs: number;
  /** The whole request (line, headers, any body) must arrive within this; answering it may take longer. */
  requestTimeoutMs: number;
  /** Request line and headers together; past it, 431. */
  maxHeaderBytes: number;
}

const LIMITS: Limits = {
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  requestTimeoutMs: 30_000,
  maxHeaderBytes: 16 * 1024,
};

/** `log` takes the request log's line of the requests answered here, before the app (access-log.ts writes the others'). */
export function createHttpServer(app: Express, limits: Partial<Limits> = {}, log: Logger = logger): Server {
  const { headersTimeoutMs, keepAliveTimeoutMs, requestTimeoutMs, maxHeaderBytes } = { ...LIMITS, ...limits };
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    const host = req.headers.host;
    const hosts = host === undefined ? 0 : host.includes(',') ? hostLines(req) : 1;
    if ((hosts === 0 && req.httpVersionMajor === 1 && req.httpVersionMinor === 1) || hosts > 1) {
      const id = requestIdFor(req.headers['x-request-id'] as string | undefined);
      const error = problem.invalidRequest(hosts ? `an HTTP/1.1 request must name one Host, not ${hosts}` : 'an HTTP/1.1 request must name its Host');
      answerRaw(log, req.socket, error, { id, method: req.method, path: pathOf(req.url ?? '') });
      return;
    }
    // Only GET and HEAD are served and no body is ever read: rather than reading and discarding
    // one after the answer (what Node does to keep the connection), the connection is closed.
    if (hasBody(req)) res.shouldKeepAlive = false;
    app(req, res);
  };
  const server = createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: Math.max(requestTimeoutMs, headersTimeoutMs),
      keepAliveTimeout: keepAliveTimeoutMs,
      maxHeaderSize: maxHeaderBytes,
      // Node checks the two timeouts above only this often (30 s by default), which would let a
      // stuck client hold its connection three times longer than the limit says.
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(headersTimeoutMs / 4))),
      // Requests and responses born with Express's methods, so that none is re-prototyped (fast-path.ts).
      ...expressClasses(app),
      // Node's own refusal of an HTTP/1.1 request without Host is a bare 400; the check is made
      // above, with the service's problem document.
      requireHostHeader: false,
      // Node keeps the first of two Host lines and drops the other; joined, they show as a comma
      // in the value (other headers' duplicates are lists, joined by Node anyway), and a request
      // with two is refused above, as RFC 9112 (section 3.2) has a server do.
      joinDuplicateHeaders: true,
    },
    serve,
  );
  // An Expect other than 100-continue: Node would answer a bare 417 of its own. RFC 9110 lets a
  // server ignore an expectation it does not know, and a GET needs none: it is served as any other.
  server.on('checkExpectation', serve);
  server.on('clientError', (error: ParseError, socket: Socket) => answerClientError(log, error, socket));
  // A CONNECT never reaches the app (Node hands its socket over, and without this closes it unanswered).
  server.on('connect', (req: IncomingMessage, socket: Socket) =>
    answerRaw(log, socket, problem.methodNotAllowed('CONNECT', ALLOWED_METHODS), {
      id: requestIdFor(req.headers['x-request-id'] as string | undefined),
      method: 'CONNECT',
      path: req.url ?? '',
    }),
  );
  return server;
}

/** How many Host lines the request has: a comma in the value is one line or several joined. */
function hostLines(req: IncomingMessage): number {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'host') count += 1;
  return count;
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Node's parser refused the request (bad request line, raw bytes in the URL, headers too large or
 * too slow): Node's own answer would be a bare status line, so a problem document is written on
 * the socket, and the connection closed, since what follows on it cannot be trusted.
 */
function answerClientError(log: Logger, error: ParseError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  answerRaw(log, socket, refusal(error), readAsFarAsParsed(error.rawPacket));
}

/** Who asked, as far as the request's bytes say: its X-Request-Id (when well-formed) and its request line. */
interface Asker {
  id: string;
  method?: string;
  path?: string;
}

/** The id, method and path of a request Node could not parse, from the bytes it had read (none for a 408 may). */
function readAsFarAsParsed(packet: Buffer | undefined): Asker {
  const text = packet?.toString('latin1') ?? '';
  const given = /\nx-request-id:[ \t]*([^\r\n]*)/i.exec(text)?.[1]?.trim();
  const [method, target] = (text.split('\n', 1)[0] ?? '').split(' ');
  return { id: requestIdFor(given || undefined), method: method || undefined, path: target ? pathOf(target).slice(0, 200) : undefined };
}

/**
 * Writes a problem on a socket that has no response object, closes it, and logs the request's
 * line as the request log does (access-log.ts), with the client's own id when it sent one.
 */
function answerRaw(log: Logger, socket: Socket, error: HttpError, asker: Asker): void {
  const head = asker.method === 'HEAD';
  const text = rawProblem(error, asker.id, head);
  socket.end(text);
  // No duration: when the request began is not known here (a 408's began before its timeout).
  log.info({ id: asker.id, method: asker.method, path: asker.path, status: error.status, bytes: Buffer.byteLength(text) }, 'request');
}

/** A request line as HTTP/1.1 writes one, whatever its method: `FOO /path HTTP/1.1`. */
const REQUEST_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ \S+ HTTP\/1\.[01]\r?$/;

/** What Node's parser gives the clientError listener: the bytes it read, when it read any. */
type ParseError = NodeJS.ErrnoException & { rawPacket?: Buffer };

function refusal(error: ParseError): HttpError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return problem.invalidRequest('the request line and headers are larger than 16 KB', 431);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return problem.invalidRequest('the request did not arrive in time', 408);
    case 'HPE_INVALID_URL':
      return problem.invalidRequest('the request is not valid HTTP/1.1 (a URL must be ASCII: percent-encode other characters)');
    case 'HPE_INVALID_METHOD': {
      // A well-formed request with a method Node does not know (FOO, or get: methods are
      // case-sensitive) is a method this service does not answer, as POST is.
      const line = error.rawPacket?.toString('latin1').split('\n', 1)[0] ?? '';
      if (REQUEST_LINE.test(line)) return problem.methodNotAllowed(line.slice(0, Math.min(line.indexOf(' '), 32)), ALLOWED_METHODS);
      return problem.invalidRequest('the request is not valid HTTP/1.1');
    }
    default:
      return problem.invalidRequest('the request is not valid HTTP/1.1');
  }
}

/** A whole HTTP/1.1 response, headers included, for a socket that has no response object; to a HEAD, without its body. */
function rawProblem(error: HttpError, id: string, head = false): string {
  const { status, title } = error.body();
  const body = JSON.stringify(error.body());
  const headers = [
    // RFC 9110 section 6.6.1: a server with a clock sends Date on every 2xx, 3xx and 4xx; node
    // adds it to the answers it writes, not to these.
    'Date',
    new Date().toUTCString(),
    ...COMMON_HEADERS,
    ...(error.code === 'method_not_allowed' ? ['Allow', ALLOWED_METHODS] : []),
    'Content-Security-Policy',
    DEFAULT_CSP,
    'X-Request-Id',
    id,
    'Content-Type',
    'application/problem+json',
    'Content-Length',
    String(Buffer.byteLength(body)),
    'Cache-Control',
    'no-store',
    'Connection',
    'close',
  ];
  let lines = `HTTP/1.1 ${status} ${title}\r\n`;
  for (let i = 0; i < headers.length; i += 2) lines += `${headers[i]}: ${headers[i + 1]}\r\n`;
  return `${lines}\r\n${head ? '' : body}`;
}
