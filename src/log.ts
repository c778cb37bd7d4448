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
      paths: ['headers["x-api-key"]', 'headers.authorization', 'headers.cookie', '*.headers["x-api-key"]', '*.headers.authorization', '*.headers.cookie', 'apiKey', '*.apiKey'],
      censor: '[redacted]',
    },
  },
  pino.destination(2),
);
