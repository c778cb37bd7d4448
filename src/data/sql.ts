import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
