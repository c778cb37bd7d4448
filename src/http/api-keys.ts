/**
 * API keys (API_KEYS_FILE): a client that sends `X-API-Key` with a known key gets that key's own
 * per-minute budget instead of its IP's. The file holds only SHA-256 hashes of the keys, so
 * reading it does not reveal them; `budget-data keys add` makes a key and stores its hash.
 * See docs/api.md for the file's format.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import type { RequestHandler } from 'express';
import { z } from 'zod';
import { logger } from '../lib/log.js';
import { problem, type HttpError } from '../domain/errors.js';

export interface ApiKey {
  /** Shown in RateLimit-Policy and in logs; the key itself never is. */
  name: string;
  /** Requests per minute. */
  limit: number;
}

const API_KEY_HEADER = 'X-API-Key';
const KEY_NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** What a key may look like: the keys `keys add` makes are `bdk_` and 43 base64url characters. */
const KEY_SHAPE = /^[A-Za-z0-9._~+/=-]{16,256}$/;

const KeyFileSchema = z.object({
  keys: z.array(
    z.object({
      name: z.string().regex(KEY_NAME, { error: 'must be 1-64 characters of A-Z a-z 0-9 . _ -' }),
      sha256: z.string().regex(/^[0-9a-f]{64}$/i, { error: "must be the key's SHA-256, 64 hex digits" }),
      limit: z.number().int().min(1, { error: 'must be an integer >= 1 (requests per minute)' }),
      created_at: z.string().optional(),
    }),
  ),
});
type KeyFile = z.infer<typeof KeyFileSchema>;

interface StoredKey extends ApiKey {
  hash: Buffer;
}

export class ApiKeysError extends Error {}
/** The name asked for is taken: the command line must name another (the CLI's exit code 2). */
export class KeyNameTaken extends ApiKeysError {}

export class ApiKeys {
  private keys: StoredKey[] = [];

  private constructor(readonly file: string) {}

  /** Reads the file; an unreadable or invalid file throws an ApiKeysError with a one-line message. */
  static async load(file: string): Promise<ApiKeys> {
    const keys = new ApiKeys(file);
    keys.keys = await readKeys(file);
    return keys;
  }

  get size(): number {
    return this.keys.length;
  }

  /** Re-reads the file (on SIGHUP). A bad file keeps the keys already loaded, and says so in the log. */
  async reload(): Promise<void> {
    try {
      this.keys = await readKeys(this.file);
      logger.info({ file: this.file, keys: this.keys.length }, 'API keys reloaded');
    } catch (error) {
      logger.error(
        { file: this.file, reason: (error as Error).message, keys: this.keys.length },
        'API keys file rejected; keeping the keys already loaded',
      );
    }
  }

  /**
   * The key whose hash matches. Every stored hash is compared, in constant time, whether or not
   * one already matched, so that the time taken tells nothing about the keys.
   */
  find(presented: string): ApiKey | undefined {
    const hash = sha256(presented);
    let found: StoredKey | undefined;
    for (const key of this.keys) if (timingSafeEqual(hash, key.hash) && !found) found = key;
    return found && { name: found.name, limit: found.limit };
  }
}

/**
 * Sets res.locals.apiKey for a request with a known key; a request with an unknown or malformed
 * key gets a 401 rather than silently the anonymous limit. Without API_KEYS_FILE no key is known.
 * The 401 is sent by refuseUnknownKey, after the rate limiter has counted the request against
 * the client's address: guessing keys costs a guesser its own budget (security review, finding 9).
 */
export function apiKeyCheck(keys: ApiKeys | undefined, exempt: (path: string) => boolean): RequestHandler {
  return (req, res, next) => {
    const presented = req.get(API_KEY_HEADER);
    if (presented === undefined || req.method === 'OPTIONS' || exempt(req.path)) return next();
    if (!KEY_SHAPE.test(presented)) {
      res.locals.apiKeyRefusal = unauthorized(`${API_KEY_HEADER} is malformed: a key is 16-256 characters with no spaces or commas`);
      return next();
    }
    const key = keys?.find(presented);
    if (key) res.locals.apiKey = key;
    else res.locals.apiKeyRefusal = unauthorized(`${API_KEY_HEADER} is not a known key`);
    next();
  };
}

/** The 401 of a request whose key apiKeyCheck did not know, once the limiter has counted it. */
export const refuseUnknownKey: RequestHandler = (_req, res, next) => {
  const refusal = res.locals.apiKeyRefusal as HttpError | undefined;
  if (refusal) throw refusal;
  next();
};

function unauthorized(detail: string): HttpError {
  return problem.unauthorized(detail, `ApiKey header="${API_KEY_HEADER}"`);
}

/** What is wrong with a key's name, if anything. */
export function keyNameProblem(name: string): string | undefined {
  return KEY_NAME.test(name) ? undefined : `the key's name must be 1-64 characters of A-Z a-z 0-9 . _ -, not "${name}"`;
}

/**
 * Adds a key named `name` to `file` (created when missing) and returns the new key: the only time
 * it is ever seen, since the file keeps its hash alone.
 */
export async function addKey(file: string, name: string, limit: number, now = new Date()): Promise<string> {
  const wrongName = keyNameProblem(name);
  if (wrongName) throw new ApiKeysError(wrongName);
  let content: KeyFile = { keys: [] };
  try {
    content = parseKeys(file, await readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (content.keys.some((k) => k.name === name)) throw new KeyNameTaken(`${file} already has a key named "${name}"`);
  const key = `bdk_${randomBytes(32).toString('base64url')}`;
  content.keys.push({ name, sha256: sha256(key).toString('hex'), limit, created_at: now.toISOString() });
  // Written under a temporary name, then renamed: a server re-reading on SIGHUP never sees half a file.
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
  return key;
}

async function readKeys(file: string): Promise<StoredKey[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ApiKeysError(`cannot read API_KEYS_FILE ${file}: ${(error as Error).message}`);
  }
  const seen = new Set<string>();
  return parseKeys(file, text).keys.map((k) => {
    if (seen.has(k.name)) throw new ApiKeysError(`${file}: two keys are named "${k.name}"`);
    seen.add(k.name);
    return { name: k.name, limit: k.limit, hash: Buffer.from(k.sha256, 'hex') };
  });
}

function parseKeys(file: string, text: string): KeyFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ApiKeysError(`${file} is not JSON: ${(error as Error).message}`);
  }
  const parsed = KeyFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ApiKeysError(`${file}: ${issue.path.join('.') || 'the file'} ${issue.message}`);
  }
  return parsed.data;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
