import { pino } from 'pino';

/**
 * JSON lines on stderr, so stdout stays free and a platform's log collector can parse them. The
 * request log (http/access-log.ts) picks its fields and never logs headers; the redaction is there
 * for any other line that logs a request or its headers, so that a client's secret never lands in a log.
 */
export const logger = pino(
  {
    level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info'),
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
  // Lines are gathered up to 12 KB before one write (under load a write per request line cost as
  // much as the rest of a cached answer; 12 KB writes cost a file less than half as much per line
  // as 4 KB ones, and sonic-boom wants less than its 16 KB maxWrite), and written at least every
  // 200 ms, so that a quiet server's
  // lines show promptly. pino writes what is left when the process exits, SIGTERM's graceful
  // shutdown included (test/server.test.ts); a crash that kills the process outright may lose the
  // last 200 ms.
  pino.destination({ dest: 2, minLength: 12_288, periodicFlush: 200 }),
);
