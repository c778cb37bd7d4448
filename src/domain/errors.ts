/**
 * The catalogue of the service's errors (docs/api.md#errors): each code with its status and when
 * it means, and one constructor each. Every problem the service answers is made here; http/
 * sends it (sendProblem, or raw on a socket Node's parser refused), responses.ts and the docs
 * list the codes from this table.
 */
import { STATUS_CODES } from 'node:http';

export const PROBLEMS = {
  invalid_parameter: { status: 400, when: 'a query parameter is repeated, empty or invalid' },
  unknown_parameter: { status: 400, when: 'a query parameter is not one of the endpoint' },
  invalid_request: { status: 400, when: 'the request itself is malformed (its URL, its headers)' },
  unauthorized: { status: 401, when: 'an X-API-Key that is malformed or not a known key' },
  not_found: { status: 404, when: 'nothing is served at this path' },
  unknown_release: { status: 404, when: 'a release that is not kept, or an Accept-Datetime before the first release kept' },
  method_not_allowed: { status: 405, when: 'a method other than GET, HEAD or OPTIONS' },
  sunset: { status: 410, when: 'a deprecated endpoint, parameter, field or format used after its sunset' },
  rate_limited: { status: 429, when: 'over the rate limit' },
  overloaded: { status: 503, when: 'the server is answering as many queries as it can' },
  query_timeout: { status: 503, when: 'the query took too long and was stopped' },
  data_unavailable: { status: 503, when: 'no data drop is served right now' },
  internal_error: { status: 500, when: 'the server failed; it shows no internals' },
} as const satisfies Record<string, { status: number; when: string }>;

export type ProblemCode = keyof typeof PROBLEMS;
export const PROBLEM_CODES = Object.keys(PROBLEMS) as [ProblemCode, ...ProblemCode[]];

export interface ParameterError {
  parameter: string;
  message: string;
}

/** Error's stack depth, set aside while a problem is made (withoutStack) and restored after. */
let stackTraceLimit = Error.stackTraceLimit;
const withoutStack = (message: string): string => {
  stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  return message;
};

/** The body of an RFC 9457 problem document, as sent. */
export interface ProblemBody {
  type: 'about:blank';
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  errors?: ParameterError[];
}

/**
 * The one error type of the service: a status, a stable `code`, and a message safe to show. Made by `problem`.
 * It is an answer, not a bug, and carries no stack: capturing one cost about 10 µs, more than the
 * rest of a refused request (a 429 of a burst). A 500's cause is logged with its own stack.
 */
export class HttpError extends Error {
  protected constructor(
    readonly status: number,
    readonly code: ProblemCode,
    readonly detail: string,
    readonly errors?: ParameterError[],
    /** Headers the problem needs, e.g. Retry-After on a 503. */
    readonly headers?: Record<string, string>,
  ) {
    super(withoutStack(detail));
    Error.stackTraceLimit = stackTraceLimit;
  }

  /** The problem document; its title is the HTTP status text. */
  body(): ProblemBody {
    const body: ProblemBody = {
      type: 'about:blank',
      title: STATUS_CODES[this.status] ?? 'Error',
      status: this.status,
      detail: this.detail,
      code: this.code,
    };
    if (this.errors) body.errors = this.errors;
    return body;
  }

  /** The 400 of a list of faulty parameters; kept for callers that name the code. */
  static badRequest(code: 'invalid_parameter' | 'unknown_parameter', errors: ParameterError[]): HttpError {
    // A parameter with no name (`?=5`) is named as such, not left as a blank at the start of the sentence.
    return HttpError.of(code, errors.map((e) => `${e.parameter === '' ? 'a parameter with no name' : e.parameter} ${e.message}`).join('; '), {
      errors,
    });
  }

  /** Used by the constructors below only (and ClientGone), so that each code keeps its status and no problem is built by hand. */
  static of(
    code: ProblemCode,
    detail: string,
    options: { errors?: ParameterError[]; headers?: Record<string, string>; status?: number } = {},
  ): HttpError {
    return new HttpError(options.status ?? PROBLEMS[code].status, code, detail, options.errors, options.headers);
  }
}

/** A query withdrawn from the queue because its client hung up: nobody reads this answer (pipeline.ts tells it apart). */
export class ClientGone extends HttpError {
  constructor() {
    super(PROBLEMS.overloaded.status, 'overloaded', 'the client closed the connection before its query could start');
  }
}

const listed = (code: 'invalid_parameter' | 'unknown_parameter', errors: ParameterError[]) => HttpError.badRequest(code, errors);

/** One constructor per code of the catalogue. */
export const problem = {
  /** Each faulty parameter with what is wrong with it. */
  invalidParameters: (errors: ParameterError[]) => listed('invalid_parameter', errors),
  /** One parameter whose value the drop or the other parameters cannot serve. */
  invalidParameter: (parameter: string, message: string) => listed('invalid_parameter', [{ parameter, message }]),
  /** The unknown parameters named, and how many more were not (a URL of thousands of names gets a short answer). */
  unknownParameters: (errors: ParameterError[], more = 0) => {
    const named = listed('unknown_parameter', errors);
    if (more === 0) return named;
    return HttpError.of('unknown_parameter', `${named.detail}; and ${more} more unknown ${more === 1 ? 'parameter' : 'parameters'}`, { errors });
  },
  /** 400 by default; 408 and 431 when Node's parser gave up on the request's head. */
  invalidRequest: (detail: string, status: 400 | 408 | 416 | 431 = 400) => HttpError.of('invalid_request', detail, { status }),
  badEncoding: () => HttpError.of('invalid_request', 'the URL is not valid percent-encoded UTF-8'),
  unauthorized: (detail: string, challenge: string) => HttpError.of('unauthorized', detail, { headers: { 'WWW-Authenticate': challenge } }),
  notFound: (detail: string) => HttpError.of('not_found', detail),
  methodNotAllowed: (method: string, allowed: string) => HttpError.of('method_not_allowed', `${method} is not allowed here; use ${allowed}`),
  /** `detail` names what was withdrawn, when, and what replaces it. */
  sunset: (detail: string) => HttpError.of('sunset', detail),
  rateLimited: (detail: string) => HttpError.of('rate_limited', detail),
  overloaded: (detail = 'the server is answering as many queries as it can; retry in a second') =>
    HttpError.of('overloaded', detail, { headers: { 'Retry-After': '1' } }),
  /** Full exports (http/export-limits.ts): a client past its own budget, per minute or at once. */
  tooManyExports: (detail: string, retryAfterSeconds: number) =>
    HttpError.of('rate_limited', detail, { headers: { 'Retry-After': String(retryAfterSeconds) } }),
  /** Full exports: the server made as many at once as it may for longer than one may wait. */
  exportsBusy: (waitedMs: number) =>
    HttpError.of('overloaded', `the server was making as many full exports as it may for ${waitedMs} ms; retry in a few seconds`, {
      headers: { 'Retry-After': '5' },
    }),
  /** /readyz: every pooled connection held past what a query may take (store.ts stuckFor). */
  poolHeld: (ms: number) =>
    HttpError.of('overloaded', `every database connection has been held for ${Math.round(ms)} ms; none can serve a query`, {
      headers: { 'Retry-After': '5' },
    }),
  clientGone: () => new ClientGone(),
  queryTimeout: (timeoutMs: number) =>
    HttpError.of('query_timeout', `the query took longer than ${timeoutMs} ms and was stopped; narrow it (a year, a page) or retry later`),
  dataUnavailable: () =>
    HttpError.of('data_unavailable', 'no data drop is served right now (none is loaded yet, or the server is shutting down); try again shortly'),
  /** docs/api.md#releases: `detail` says which release; the answer says where the releases are. */
  unknownRelease: (detail: string, index: string) => HttpError.of('unknown_release', detail, { headers: { Link: `<${index}>; rel="index"` } }),
  /** An older release whose files could not be loaded (releases.ts). */
  releaseUnreadable: (version: string) => HttpError.of('data_unavailable', `release ${version} could not be read from its files; try again later`),
  internalError: () => HttpError.of('internal_error', 'the server failed to answer this request; it has been logged'),
};
