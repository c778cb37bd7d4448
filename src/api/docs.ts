/**
 * The docs page at /budget/api/docs/: Swagger UI over the OpenAPI document, served entirely from
 * this service (the swagger-ui-dist package in node_modules; no CDN), so it works offline, behind
 * firewalls, and under a strict Content-Security-Policy.
 */
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { tagOf } from '../http/caching.js';
import { SERVICE_ROUTES } from './routes.js';
import { API_VERSION, CHANGELOG_PATH, MINIMUM_NOTICE_MONTHS } from './versioning.js';

const DOCS_PATH = SERVICE_ROUTES.docs.path;
const OPENAPI_PATH = SERVICE_ROUTES.openapi.path;

/** swagger-ui-dist's folder. Only its package.json is resolved: its main module loads the whole bundle into Node. */
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const SWAGGER_UI_VERSION = (JSON.parse(readFileSync(path.join(SWAGGER_UI_DIR, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * The files of swagger-ui-dist the page uses, each with its absolute path and an ETag from the
 * package's version (the app turns Express's own tags off); nothing else in that folder is served
 * (its index.html points at a demo API).
 */
const ASSETS = new Map(
  ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png'].map((name) => [
    name,
    {
      file: path.join(SWAGGER_UI_DIR, name),
      etag: tagOf(`swagger-ui-dist@${SWAGGER_UI_VERSION}/${name}`),
      size: statSync(path.join(SWAGGER_UI_DIR, name)).size,
    },
  ]),
);

/** A swagger-ui-dist asset the page uses, or undefined for any other name. */
export function swaggerUiAsset(name: string): { file: string; etag: string; size: number } | undefined {
  return ASSETS.get(name);
}

/** Scripts and styles come from this origin only; Swagger UI sets inline styles, and its icons are data: URLs. */
export const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'self'";

// Asset URLs are absolute: the page is served at /budget/api/docs and /budget/api/docs/ alike,
// and a relative URL would resolve differently from each.
export const DOCS_PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Public Budget Data Service — API documentation</title>
    <link rel="stylesheet" href="${DOCS_PATH}swagger-ui.css">
    <link rel="icon" type="image/png" href="${DOCS_PATH}favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${DOCS_PATH}favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <noscript>This page needs JavaScript. The API is described by <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
    <p id="data-terms" style="font-family: sans-serif; margin: 1em 20px;">
      <strong>The data:</strong> licence <span id="data-license">(see <a href="/budget/api/meta/">/budget/api/meta/</a>)</span>;
      amounts in <span id="data-units">the data drop's units</span>.
      The licence shown below is the software's, not the data's.
    </p>
    <p id="how-to-cite" style="font-family: sans-serif; margin: 1em 20px;">
      <strong>How to cite a figure:</strong> every data answer carries a <code>Content-Location</code>
      header, its permalink <code>/budget/api/releases/{version}/…</code>, which answers the same bytes
      for ever, whatever drop is served later. Cite that URL, with the release's version and the date you
      read it. The releases are listed at <a href="/budget/api/releases/">/budget/api/releases/</a> (also
      as an <a href="/budget/api/releases/feed.atom">Atom feed</a>); an <code>Accept-Datetime</code>
      header asks for the figures as they were served at a past instant (Memento, RFC 7089).
    </p>
    <p id="api-version" style="font-family: sans-serif; margin: 1em 20px;">
      <strong>Versions:</strong> API ${API_VERSION}; what each version changed is in the
      <a href="${CHANGELOG_PATH}">changelog</a>. Within a major version changes are additive only: ignore fields
      you do not know. Something deprecated stays served for at least ${MINIMUM_NOTICE_MONTHS} months and says so in
      its answers (<code>Deprecation</code>, <code>Sunset</code> and <code>Link</code> headers).
    </p>
    <div id="swagger-ui"></div>
    <script src="${DOCS_PATH}swagger-ui-bundle.js"></script>
    <script src="${DOCS_PATH}init.js"></script>
  </body>
</html>
`;

/**
 * Starts Swagger UI, and fills in the data's licence and units from /budget/api/meta/ (they change
 * with the drop, which the page, rendered once, does not); a file of its own rather than an inline
 * script, so the CSP can forbid inline scripts.
 */
export const DOCS_SCRIPT = `fetch('/budget/api/meta/')
  .then((res) => (res.ok ? res.json() : null))
  .then((meta) => {
    if (!meta) return;
    document.getElementById('data-license').textContent = meta.license || 'not stated by the data drop';
    const units = meta.units;
    document.getElementById('data-units').textContent = units
      ? units.name + ' (one unit is ' + units.scale.toLocaleString('en') + ' ' + units.currency + ')'
      : "the data drop's units (not stated)";
  })
  .catch(() => {});
window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_PATH)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  displayRequestDuration: true,
  defaultModelsExpandDepth: 0,
});
`;
