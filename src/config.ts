import { isIP } from 'node:net';
import { LOG_LEVELS } from './lib/log.js';
import { z } from 'zod';

const PORT_MESSAGE = 'must be an integer between 0 and 65535';
const port = z
  .string()
  .trim()
  .regex(/^\d{1,5}$/, { error: PORT_MESSAGE })
  .transform(Number)
  .pipe(z.number().max(65535, { error: PORT_MESSAGE }));
const nonNegativeInt = (what: string) =>
  z
    .string()
    .trim()
    .regex(/^\d{1,12}$/, { error: what })
    .transform(Number);
const positiveInt = (what: string) =>
  z
    .string()
    .trim()
    .regex(/^0*[1-9]\d{0,11}$/, { error: what })
    .transform(Number);

/** Node runs a timer set past 2^31 - 1 ms (about 24.8 days) after 1 ms, with a warning. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;
/**
 * A time the server sets a timer for, in `unitMs` units: from `least` to what Node's timers hold,
 * so that a value meant as "very long" is not run as 1 ms.
 */
const timerLength = (least: 0 | 1, unitMs: number, what: string) => {
  const most = Math.floor(LONGEST_TIMER_MS / unitMs);
  const error = `must be an integer from ${least} to ${most} (${what}; about 24.8 days at most, as Node's timers)`;
  return (least === 1 ? positiveInt : nonNegativeInt)(error).pipe(z.number().max(most, { error }));
};

/** Express's names for address ranges (proxy-addr), accepted in TRUST_PROXY's list. */
const PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, an address/prefix (CIDR) or one of PROXY_RANGES. */
function isProxyAddress(text: string): boolean {
  if (PROXY_RANGES.has(text)) return true;
  const [address = '', prefix, ...rest] = text.split('/');
  const kind = isIP(address);
  if (kind === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (kind === 4 ? 32 : 128));
}

/** Logged at startup when TRUST_PROXY=true: what it lets clients do, and what to give instead. */
export const TRUST_PROXY_TRUE =
  'TRUST_PROXY=true believes every X-Forwarded-For: any client can choose its address, and so its rate-limit budget; name the proxies instead (their addresses or CIDR ranges, such as 10.0.0.0/8 or loopback, or a hop count)';

/**
 * `TRUST_PROXY` names the proxies whose X-Forwarded-For is believed (docs/deploying.md): their
 * addresses or ranges (CIDR), or a hop count when every request is known to pass exactly that
 * many. `true` is Express's own value and is taken, but warned about at startup (TRUST_PROXY_TRUE):
 * it believes the left-most address, which is whatever the client wrote, so that a client picks
 * its own rate-limit budget (security review, finding 3).
 */
const trustProxy = z
  .string()
  .trim()
  .min(1)
  .transform((value, ctx): boolean | number | string[] => {
    if (/^false$/i.test(value)) return false;
    if (/^\d+$/.test(value)) return Number(value);
    if (/^true$/i.test(value)) return true;
    const list = value.split(',').map((item) => item.trim());
    const bad = list.find((item) => !isProxyAddress(item));
    if (bad !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a hop count or a comma-separated list of addresses, CIDR ranges or ${[...PROXY_RANGES].join(', ')}; ${JSON.stringify(bad)} is none of these`,
      });
      return z.NEVER;
    }
    return list;
  });

const url = (pattern: RegExp, what: string) =>
  z
    .string()
    .trim()
    .regex(pattern, { error: `must be ${what}` });

const EnvSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().trim().min(1).default('./data'),
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).optional(),
  RATE_LIMIT: nonNegativeInt('must be an integer >= 0 (requests per minute; 0 turns rate limiting off)').default(600),
  TRUST_PROXY: trustProxy.optional(),
  CACHE_MAX_AGE: nonNegativeInt('must be an integer >= 0 (seconds)').default(300),
  RESPONSE_CACHE_MB: nonNegativeInt('must be an integer >= 0 (megabytes; 0 turns the response cache off)').default(64),
  /** Whole exports kept as files, per drop (http/export-files.ts); unset: a folder of this process under TMPDIR. */
  EXPORT_CACHE_DIR: z.string().trim().min(1).optional(),
  EXPORT_CACHE_MB: nonNegativeInt('must be an integer >= 0 (megabytes of export files; 0 turns them off)').default(2048),
  /** Only a memory bound: overload is decided by QUEUE_WAIT_MS (docs/api.md#limits-and-load-shedding). */
  MAX_CONCURRENT_QUERIES: positiveInt('must be an integer >= 1 (queries running or waiting at once)').default(1000),
  QUERY_TIMEOUT_MS: timerLength(1, 1, 'milliseconds').default(5000),
  /** Full exports (docs/api.md#limits-and-load-shedding): per client per minute, with the rate limit on. */
  EXPORT_RATE_LIMIT: nonNegativeInt('must be an integer >= 0 (full exports per minute per client; 0: not limited)').default(0),
  EXPORTS_PER_CLIENT: nonNegativeInt('must be an integer >= 0 (full exports one client may run at once; 0: not limited)').default(0),
  /** Fewer than the pool's connections (4), so that exports never take them all. */
  EXPORTS_AT_ONCE: positiveInt('must be an integer >= 1 (full exports the server runs at once)').default(2),
  EXPORT_STALL_MS: timerLength(1, 1, 'milliseconds a download may make no progress').default(30_000),
  EXPORT_MAX_SECONDS: timerLength(1, 1000, 'seconds a full export may run').default(600),
  QUEUE_WAIT_MS: timerLength(1, 1, 'milliseconds a query may wait for a connection').default(1000),
  RATE_LIMIT_REDIS_URL: url(/^rediss?:\/\/\S+$/, 'a redis:// or rediss:// URL').optional(),
  API_KEYS_FILE: z.string().trim().min(1).optional(),
  DATA_URL: url(/^(s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/\S*)?|https?:\/\/\S+)$/, 'an s3://bucket/prefix/ or http(s):// URL').optional(),
  /** The most a DATA_URL drop's files may weigh together (src/data/remote.ts). */
  DATA_MAX_MB: positiveInt('must be an integer >= 1 (megabytes)').default(4096),
  DATA_POLL_SECONDS: timerLength(0, 1000, 'seconds; 0 looks for a new drop only on SIGHUP').default(60),
  /** Where every drop served is kept as a release (docs/api.md#releases); relative to the working directory. */
  RELEASES_DIR: z.string().trim().min(1).default('releases'),
  RELEASES_KEEP: positiveInt('must be an integer >= 1 (releases kept, the current one included)').default(20),
});

export type Config = Readonly<z.infer<typeof EnvSchema>>;

export class ConfigError extends Error {}

/** Parses the environment once; throws a ConfigError whose message is one line naming the variable. */
export function parseConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as in most shells' `VAR= command`.
  const present = Object.fromEntries(Object.keys(EnvSchema.shape).flatMap((key) => (env[key] ? [[key, env[key]]] : [])));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0]);
    throw new ConfigError(
      `invalid configuration: ${name}=${JSON.stringify(name.endsWith('_URL') ? withoutUserInfo(env[name] ?? '') : env[name])} ${issue.message}`,
    );
  }
  return Object.freeze(parsed.data);
}

/**
 * A URL as an error may show it: its user-info (`user:password@`) is cut, so that a mistyped
 * RATE_LIMIT_REDIS_URL never writes its password to the log. Cut up to the last `@`, scheme or
 * not: a password may hold `/`, `@` or spaces unescaped in a URL that is invalid anyway.
 */
export function withoutUserInfo(url: string): string {
  return url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?[\s\S]*@/, '$1');
}
