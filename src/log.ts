import { pino } from 'pino';

/** JSON lines on stderr, so stdout stays free and a platform's log collector can parse them. */
export const logger = pino(
  { level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info') },
  pino.destination(2),
);
