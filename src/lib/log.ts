import { pino, type DestinationStream } from 'pino';

/** Lines are gathered up to this many characters before one write. */
const BATCH = 12_288;
/** ... and written at least this often, so that a quiet server's lines show promptly. */
const FLUSH_EVERY_MS = 200;

/**
 * Lines gathered in memory and handed to `out` a batch at a time. Under load a write per request
 * line cost as much as the rest of a cached answer, and 12 KB writes cost a file less than half
 * as much per line as 4 KB ones. sonic-boom (pino's destination) could gather them itself
 * (minLength), but it measures its whole pending string on every write, flattening it first: about
 * 1.6 µs a line at 12 KB, measured, where gathering here costs 0.1 µs.
 *
 * `out` writes synchronously, one write per batch (node writes process.stderr to pipes and files
 * synchronously too), so what is pending is written out when the process exits: SIGTERM's graceful
 * shutdown loses no line (test/server.test.ts); a crash that kills the process outright may lose
 * the last 200 ms.
 */
export function batchedLines(out: ReturnType<typeof pino.destination>): DestinationStream & { flush(callback?: (error?: Error) => void): void } {
  let pending = '';
  const writePending = () => {
    if (pending === '') return;
    const batch = pending;
    pending = '';
    out.write(batch);
  };
  setInterval(writePending, FLUSH_EVERY_MS).unref();
  process.on('exit', writePending);
  return {
    write(line: string) {
      pending += line;
      if (pending.length >= BATCH) writePending();
    },
    // pino's logger.flush() ends here.
    flush(callback?: (error?: Error) => void) {
      writePending();
      out.flush(callback);
    },
  };
}

/** pino's levels, which LOG_LEVEL may name (config.ts refuses any other value, in one line). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * LOG_LEVEL when it names a level; unset or empty, the default. Any other value is left to
 * config.ts to refuse: the logger is made when this module loads, before the configuration is
 * read, and pino would throw a stack trace at it.
 */
function logLevel(asked: string | undefined): string {
  if (asked && (LOG_LEVELS as readonly string[]).includes(asked)) return asked;
  return process.env.NODE_ENV === 'test' ? 'silent' : 'info';
}

/**
 * JSON lines on stderr, so stdout stays free and a platform's log collector can parse them. The
 * request log (http/access-log.ts) picks its fields and never logs headers; the redaction is there
 * for any other line that logs a request or its headers, so that a client's secret never lands in a log.
 */
export const logger = pino(
  {
    level: logLevel(process.env.LOG_LEVEL),
    redact: {
      paths: [
        'headers["x-api-key"]',
        'headers.authorization',
        'headers.cookie',
        '*.headers["x-api-key"]',
        '*.headers.authorization',
        '*.headers.cookie',
        'apiKey',
        '*.apiKey',
      ],
      censor: '[redacted]',
    },
  },
  batchedLines(pino.destination({ dest: 2, sync: true })),
);
