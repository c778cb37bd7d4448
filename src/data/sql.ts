import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { memo } from '../lib/memo.js';

/** The folder holding package.json, whether running from src/ (tsx) or dist/ (built). */
export function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

const SQL_DIR = path.join(projectRoot(), 'sql');
const cache = new Map<string, Promise<string>>();

/** Reads `sql/<name>.sql` once. Names are fixed in code, never taken from a request. */
export function readSql(name: string): Promise<string> {
  let text = cache.get(name);
  if (!text) {
    text = readFile(path.join(SQL_DIR, `${name}.sql`), 'utf8');
    cache.set(name, text);
  }
  return text;
}

/**
 * A filter line of a query: `AND ($name::TYPE IS NULL OR ...)`, the whole line, which holds when
 * $name is NULL. Such a line is how a query writes a filter that a request may leave out.
 */
const OPTIONAL_FILTER = /^\s*AND \(\$(\w+)::[A-Z0-9_[\]]+ IS NULL OR .*\)\s*$/;

/**
 * A query's statement for the parameters a request leaves NULL, and the parameters it binds. Each
 * is made once, so one object stands for one statement (a cache of prepared statements keys by it).
 */
export interface Variant {
  sql: string;
  params: ReadonlySet<string>;
}

/**
 * The statement of `sql` without its optional filter lines (OPTIONAL_FILTER) whose parameter is
 * NULL: the same rows, since each such line holds then. DuckDB plans a statement with parameters
 * again at every run, and every condition costs planning: a page of lines without its five
 * unused filters planned in 0.42-0.50 ms instead of 0.73-1.04 (docs/performance.md). Each
 * variant is made once.
 */
export function variantsOf(sql: string): (params: Readonly<Record<string, unknown>>) => Variant {
  const lines = sql.split('\n');
  const filters = lines.flatMap((line, at) => {
    const name = OPTIONAL_FILTER.exec(line)?.[1];
    return name === undefined || !enclosedToTheEnd(line) ? [] : [{ at, name }];
  });
  // By which filters are left out: '-' for each one left out, '+' for each one kept.
  const made = memo((key: string): Variant => {
    const dropped = new Set(filters.filter((_, i) => key[i] === '-').map(({ at }) => at));
    const kept = lines.filter((_, at) => !dropped.has(at));
    // Parameters named in comments (a file's header lists them all) are not bound.
    const code = kept.map((line) => line.replace(/--.*$/, '')).join('\n');
    return { sql: kept.join('\n'), params: new Set([...code.matchAll(/\$(\w+)/g)].map(([, name]) => name!)) };
  });
  return (params) => {
    let key = '';
    for (const { name } of filters) key += params[name] === null || params[name] === undefined ? '-' : '+';
    return made(key);
  };
}

/**
 * Whether the parenthesis after a filter line's AND closes at the line's end, so that the line
 * is one condition (`AND (a IS NULL OR b)`), not one followed by more (`AND (a IS NULL OR b) OR c`).
 */
function enclosedToTheEnd(line: string): boolean {
  const text = line.trimEnd();
  let depth = 0;
  let quoted = false;
  for (let i = text.indexOf('('); i < text.length; i++) {
    const c = text[i];
    if (c === "'") quoted = !quoted;
    else if (!quoted && c === '(') depth++;
    else if (!quoted && c === ')' && --depth === 0) return i === text.length - 1;
  }
  return false;
}

const variantsOfQuery = memo((name: string) => readSql(name).then(variantsOf));

/** The variant of `sql/<name>.sql` for these parameters (variantsOf). */
export async function variantOf(name: string, params: Readonly<Record<string, unknown>>): Promise<Variant> {
  return (await variantsOfQuery(name))(params);
}
