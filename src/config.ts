import { z } from 'zod';

const PORT_MESSAGE = 'must be an integer between 0 and 65535';
const port = z
  .string()
  .trim()
  .regex(/^\d{1,5}$/, { error: PORT_MESSAGE })
  .transform(Number)
  .pipe(z.number().max(65535, { error: PORT_MESSAGE }));
const nonNegativeInt = (what: string) => z.string().trim().regex(/^\d{1,12}$/, { error: what }).transform(Number);
const positiveInt = (what: string) => z.string().trim().regex(/^0*[1-9]\d{0,11}$/, { error: what }).transform(Number);

/** `TRUST_PROXY` takes what Express's `trust proxy` setting takes: a boolean, a hop count, or addresses. */
const trustProxy = z
  .string()
  .trim()
  .min(1)
  .transform((value): boolean | number | string => {
    if (/^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
    if (/^\d+$/.test(value)) return Number(value);
    return value;
  });

const url = (pattern: RegExp, what: string) => z.string().trim().regex(pattern, { error: `must be ${what}` });

const EnvSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().trim().min(1).default('./data'),
  RATE_LIMIT: nonNegativeInt('must be an integer >= 0 (requests per minute; 0 turns rate limiting off)').default(600),
  TRUST_PROXY: trustProxy.optional(),
  CACHE_MAX_AGE: nonNegativeInt('must be an integer >= 0 (seconds)').default(300),
  RESPONSE_CACHE_MB: nonNegativeInt('must be an integer >= 0 (megabytes; 0 turns the response cache off)').default(64),
  /** Unset: twice the connection pool (see Store). */
  MAX_CONCURRENT_QUERIES: positiveInt('must be an integer >= 1 (queries running or waiting at once)').optional(),
  QUERY_TIMEOUT_MS: positiveInt('must be an integer >= 1 (milliseconds)').default(5000),
  RATE_LIMIT_REDIS_URL: url(/^rediss?:\/\/\S+$/, 'a redis:// or rediss:// URL').optional(),
  API_KEYS_FILE: z.string().trim().min(1).optional(),
  DATA_URL: url(/^(s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/\S*)?|https?:\/\/\S+)$/, 'an s3://bucket/prefix/ or http(s):// URL').optional(),
  DATA_POLL_SECONDS: nonNegativeInt('must be an integer >= 0 (seconds; 0 looks for a new drop only on SIGHUP)').default(60),
  /** Where every drop served is kept as a release (docs/api.md#releases); relative to the working directory. */
  RELEASES_DIR: z.string().trim().min(1).default('releases'),
  RELEASES_KEEP: positiveInt('must be an integer >= 1 (releases kept, the current one included)').default(20),
});

export type Config = Readonly<z.infer<typeof EnvSchema>>;

export class ConfigError extends Error {}

/** Parses the environment once; throws a ConfigError whose message is one line naming the variable. */
export function parseConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as in most shells' `VAR= command`.
  const present = Object.fromEntries(
    Object.keys(EnvSchema.shape).flatMap((key) => (env[key] ? [[key, env[key]]] : [])),
  );
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0]);
    throw new ConfigError(`invalid configuration: ${name}=${JSON.stringify(env[name])} ${issue.message}`);
  }
  return Object.freeze(parsed.data);
}
