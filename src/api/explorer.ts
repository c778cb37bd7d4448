/**
 * The budget explorer page at `/` and `/budget/`: built from web/explorer/ into dist/explorer/
 * by `npm run build` (scripts/build-explorer.ts), and served from memory here. Its script and
 * stylesheet carry a content hash in their names, so browsers may keep them for a year; the page
 * itself is cached like any other answer, so a new build reaches readers within CACHE_MAX_AGE.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { render, type Rendered } from '../http/caching.js';
import { projectRoot } from '../data/sql.js';

/** Where the built files are served; the build writes these URLs into the page. */
export const EXPLORER_ASSETS_PATH = '/budget/explorer/';
export const EXPLORER_PAGES = ['/', '/budget/'];
export const EXPLORER_DIR = path.join(projectRoot(), 'dist', 'explorer');

/** Everything from this origin, nothing inline: the page has no inline script or style. */
export const EXPLORER_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'";

/** One chart alone, for newspapers' iframes (docs/api.md#embedding-a-chart). */
export const EMBED_PAGES = ['/budget/embed/'];
/** The explorer's policy, except that any site may frame this page (and only this page). */
export const EMBED_CSP = EXPLORER_CSP.replace("frame-ancestors 'self'", 'frame-ancestors *');

const IMMUTABLE = 'public, max-age=31536000, immutable';
const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export interface Explorer {
  page: Rendered;
  /** The page of one chart alone (embed.html). */
  embed: Rendered;
  /** A built asset by its hashed file name, or undefined for any other name. */
  asset(name: string): Rendered | undefined;
}

/** The built page, read once; undefined when it has not been built (`npm run build`). */
export function loadExplorer(cacheControl: string, dir = EXPLORER_DIR): Explorer | undefined {
  const index = path.join(dir, 'index.html');
  if (!existsSync(index)) return undefined;
  const page = render(readFileSync(index), { contentType: 'text/html; charset=utf-8', cacheControl });
  // Any site may frame the embed page: its policy says so, and it drops X-Frame-Options, which
  // would forbid what frame-ancestors allows in browsers that read both.
  const embed = render(readFileSync(path.join(dir, 'embed.html')), {
    contentType: 'text/html; charset=utf-8',
    cacheControl,
    csp: EMBED_CSP,
    without: ['X-Frame-Options'],
  });
  const assets = new Map<string, Rendered>();
  for (const name of readdirSync(dir)) {
    const contentType = TYPES[path.extname(name)];
    if (contentType) assets.set(name, render(readFileSync(path.join(dir, name)), { contentType, cacheControl: IMMUTABLE }));
  }
  return { page, embed, asset: (name) => assets.get(name) };
}
