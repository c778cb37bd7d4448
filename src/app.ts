/**
 * createApp builds the Express app over a Store; server.ts does the listening. Middleware order:
 * the front (request log, URL check, API key, rate limiting), cached answers, common headers, the
 * routes, then 404 and the error handler, registered last. Cached answers are also answered
 * before Express, after the same front (http/fast-path.ts).
 */
import express, { type Express, type RequestHandler } from 'express';
import type { Config } from './config.js';
import type { Store } from './data/store.js';
import { DOCS_CSP, DOCS_PAGE, DOCS_SCRIPT, swaggerUiAsset } from './api/docs.js';
import { ENDPOINTS, type Endpoint } from './api/endpoints/index.js';
import { API_VERSION, changelogText } from './api/versioning.js';
import { EMBED_CSP, EMBED_PAGES, EXPLORER_ASSETS_PATH, EXPLORER_CSP, EXPLORER_PAGES, loadExplorer } from './api/explorer.js';
import { FORMATS, FORMAT_NAMES } from './formats/registry.js';
import { render, sendRendered, type Rendered } from './http/caching.js';
import { accessLog } from './http/access-log.js';
import { problem } from './domain/errors.js';
import { errorHandler, wellEncodedUrl } from './http/errors.js';
import { asRfc9110Asks } from './http/file-conditions.js';
import { answerCachedFirst } from './http/fast-path.js';
import { ALLOWED_METHODS, commonHeaders, preflight } from './http/headers.js';
import { apiKeyCheck, refuseUnknownKey, type ApiKeys } from './http/api-keys.js';
import { rateLimiter, socketAddressUnlessProxied, type SharedCounts } from './http/rate-limit.js';
import { ResponseCache } from './http/response-cache.js';
import { ExportLimits } from './http/export-limits.js';
import type { ExportFiles } from './http/export-files.js';
import { logger } from './lib/log.js';
import { openApiDocument } from './api/openapi.js';
import { fieldsAnswer } from './api/fields.js';
import { cachedAnswers, cachedLookup, dataUnavailable, endpointHandler } from './api/pipeline.js';
import { parseQuery } from './api/params.js';
import { SERVICE_ROUTES, spellings, type ServiceRoute } from './api/routes.js';
import { atomFeed, releaseList, releaseRoute } from './api/releases.js';
import type { Logger } from 'pino';
import { z } from 'zod';

export interface AppOptions {
  config: Config;
  store: Store;
  /** Rate-limit counts shared through Redis (RATE_LIMIT_REDIS_URL); in memory when absent. */
  counts?: SharedCounts;
  /** The keys of API_KEYS_FILE; without them every X-API-Key is unknown. */
  apiKeys?: ApiKeys;
  /** Where the request log goes; the process's logger (stderr) by default. */
  log?: Logger;
  /** Cached answers before the Express router (http/fast-path.ts); off only to compare both paths in tests. */
  fastPath?: boolean;
  /** The data endpoints served: every one the API has, unless a test describes its own. */
  endpoints?: readonly Endpoint[];
  /** The clock that deprecations' sunsets are read against; a test sets its own. */
  now?: () => Date;
  /** Whole exports kept as files; server.ts gives the folder of EXPORT_CACHE_DIR. Without it, every export is streamed. */
  exportFiles?: ExportFiles;
}

const noParameters = z.object({});
const JSON_TYPE = FORMATS.json.contentType;
const DOCS_PATH = SERVICE_ROUTES.docs.path;
/** The service routes marked not rate limited (the health checks), in both spellings. */
const UNLIMITED_PATHS = Object.values(SERVICE_ROUTES)
  .filter((route) => !route.rateLimited)
  .flatMap((route) => spellings(route.path));

export function createApp({
  config,
  store,
  counts,
  apiKeys,
  log = logger,
  fastPath = true,
  endpoints = ENDPOINTS,
  now,
  exportFiles,
}: AppOptions): Express {
  const app = express();
  // Paths are case-sensitive, as URLs are (RFC 3986): /BUDGET/API/TOTALS/ is no resource, rather
  // than a second URL, with its own cache entries, for every spelling of each one.
  app.set('case sensitive routing', true);
  app.disable('x-powered-by');
  app.set('etag', false);
  if (config.TRUST_PROXY !== undefined) app.set('trust proxy', config.TRUST_PROXY);
  socketAddressUnlessProxied(app);

  // `front`: what every request goes through before any answer, cached ones included; the fast
  // path (http/fast-path.ts) runs the very same list. The access log comes first, so that every
  // request is logged and carries X-Request-Id. An API key is checked before the limiter, which
  // counts a keyed request against its key; the health checks ask for no key, as they are never
  // limited. The rate limiter goes before cached answers, so that they are limited too. Cached
  // answers come right after `front`, before any other header is set, so that they are sent with
  // one writeHead merge (see sendRendered); the error handler adds the common headers to the
  // rate limiter's 429.
  const unlimited = new Set(UNLIMITED_PATHS);
  const front: RequestHandler[] = [accessLog(log), wellEncodedUrl, apiKeyCheck(apiKeys, (path) => unlimited.has(path))];
  if (config.RATE_LIMIT > 0 || apiKeys) front.push(rateLimiter({ perMinute: config.RATE_LIMIT, counts, unlimited: UNLIMITED_PATHS }));
  front.push(refuseUnknownKey);
  const onError = errorHandler();
  const cache = new ResponseCache(config.RESPONSE_CACHE_MB * 2 ** 20);
  store.onSwap(() => cache.clear());
  store.onSwap(() => {
    const served = store.served;
    if (served) void exportFiles?.keepOnly(served.fingerprint);
  });
  const lookup = cachedLookup(store, cache, endpoints);
  if (fastPath) answerCachedFirst(app, front, onError, lookup);
  app.use(front);
  // The fast path has already answered every cached request: looking again would only miss again.
  if (!fastPath) app.use(cachedAnswers(lookup));
  app.use(commonHeaders);
  // A CORS preflight is answered 204 whatever its path, before any route: a browser reads the
  // answer of its request (a 404, or a 400 for a path the router cannot decode) only if the
  // preflight before it succeeded.
  app.use((req, res, next) => (req.method === 'OPTIONS' ? preflight(req, res, next) : next()));

  const route = (path: string, handler: RequestHandler) => {
    // Routing is not strict: '/x' also serves '/x/', with no redirect.
    app
      .route(path === '/' ? path : path.replace(/\/$/, ''))
      .get(handler)
      .all(methodNotAllowed);
  };
  const cacheControl = `public, max-age=${config.CACHE_MAX_AGE}`;
  const json = (body: unknown) => render(Buffer.from(JSON.stringify(body)), { contentType: JSON_TYPE, cacheControl });
  /** A service endpoint: takes no parameters, and answers what `answer` renders. */
  const serviceRoute = (path: string, answer: (res: express.Response) => Rendered) =>
    route(path, (req, res) => {
      parseQuery(req.originalUrl, noParameters);
      sendRendered(req, res, answer(res));
    });

  // Data endpoints first: they take nearly all the traffic, and Express tries routes in order.
  // The per-minute and per-client budgets are rate limits an operator may add (off by default, and
  // with RATE_LIMIT=0); the server's turns and the cuts protect the connections, and always apply.
  const limited = config.RATE_LIMIT > 0;
  const exportLimits = new ExportLimits({
    perMinute: limited ? config.EXPORT_RATE_LIMIT : 0,
    perClient: limited && config.EXPORTS_PER_CLIENT > 0 ? config.EXPORTS_PER_CLIENT : Infinity,
    atOnce: config.EXPORTS_AT_ONCE,
    waitMs: config.QUEUE_WAIT_MS,
    stallMs: config.EXPORT_STALL_MS,
    maxMs: config.EXPORT_MAX_SECONDS * 1000,
  });
  for (const endpoint of endpoints) route(endpoint.path, endpointHandler(endpoint, store, cacheControl, cache, { now, exportFiles, exportLimits }));
  // Every data endpoint as answered by one release (docs/api.md#releases).
  for (const endpoint of endpoints) {
    route(releaseRoute(endpoint.path), endpointHandler(endpoint, store, cacheControl, cache, { now, exportLimits, atRelease: true }));
  }

  // Answers that never change are rendered once; the OpenAPI document once per drop, when first asked for.
  const healthy = json({ status: 'ok' });
  const indexAnswer = json(index(endpoints));
  // Per drop: its definitions describe the fields (docs/api.md#what-every-figure-means).
  let openApi: { for: unknown; answer: Rendered } | undefined;
  const text = (route: ServiceRoute) => `${route.representation.mediaType}; charset=utf-8`;
  const docsPage = render(Buffer.from(DOCS_PAGE), { contentType: text(SERVICE_ROUTES.docs), cacheControl });
  const changelogAnswer = render(Buffer.from(changelogText()), { contentType: text(SERVICE_ROUTES.changelog), cacheControl });
  const docsScript = render(Buffer.from(DOCS_SCRIPT), { contentType: 'text/javascript; charset=utf-8', cacheControl });

  // One answer per service route of the table in routes.ts; a route added there must be answered here.
  const answers: Record<keyof typeof SERVICE_ROUTES, (res: express.Response) => Rendered> = {
    index: () => indexAnswer,
    meta: () => {
      if (!store.served) throw dataUnavailable();
      return json({ ...meta(store), rate_limit: rateLimitStatus(config, counts) });
    },
    fields: () => {
      if (!store.served) throw dataUnavailable();
      return json(fieldsAnswer(endpoints, store.served.manifest));
    },
    openapi: () => {
      const manifest = store.served?.manifest;
      if (openApi === undefined || openApi.for !== manifest) {
        openApi = { for: manifest, answer: json(openApiDocument(endpoints, manifest?.definitions)) };
      }
      return openApi.answer;
    },
    changelog: () => changelogAnswer,
    releases: () => json(releaseList(store.releases, store.served?.manifest.version)),
    releasesFeed: () =>
      render(Buffer.from(atomFeed(store.releases, store.served?.manifest.version)), {
        contentType: text(SERVICE_ROUTES.releasesFeed),
        cacheControl,
      }),
    docs: (res) => {
      res.set('Content-Security-Policy', DOCS_CSP);
      return docsPage;
    },
    healthz: () => healthy,
    readyz: () => {
      if (!store.ready) throw dataUnavailable();
      if (store.shuttingDown) throw dataUnavailable();
      const stuck = store.stuckFor;
      if (stuck > 0) throw problem.poolHeld(stuck);
      return json({ status: 'ready', version: store.served?.manifest.version });
    },
  };
  for (const [name, { path }] of Object.entries(SERVICE_ROUTES)) serviceRoute(path, answers[name as keyof typeof SERVICE_ROUTES]);
  route(`${DOCS_PATH}init.js`, (req, res) => sendRendered(req, res, docsScript));
  route(`${DOCS_PATH}:asset`, (req, res, next) => {
    const asset = swaggerUiAsset(String(req.params.asset));
    if (!asset) throw problem.notFound(`no resource at ${req.path.slice(0, 200)}; the docs are at ${DOCS_PATH}`);
    // sendFile sets the Content-Type from the extension (nosniff needs it right) and answers
    // If-None-Match against the ETag set here with a 304.
    res.set('ETag', asset.etag);
    asRfc9110Asks(req, res, asset.size);
    res.sendFile(asset.file, { maxAge: config.CACHE_MAX_AGE * 1000 }, (error) => error && next(error));
  });

  // The explorer page (see docs/api.md), when it has been built.
  const explorer = loadExplorer(cacheControl);
  const notBuilt = () => problem.notFound(`the explorer page is not built (npm run build); the API index is at ${SERVICE_ROUTES.index.path}`);
  for (const path of EXPLORER_PAGES) {
    route(path, (req, res) => {
      if (!explorer) throw notBuilt();
      res.set('Content-Security-Policy', EXPLORER_CSP);
      sendRendered(req, res, explorer.page);
    });
  }
  for (const path of EMBED_PAGES) {
    route(path, (req, res) => {
      if (!explorer) throw notBuilt();
      res.removeHeader('X-Frame-Options');
      res.set('Content-Security-Policy', EMBED_CSP);
      sendRendered(req, res, explorer.embed);
    });
  }
  route(`${EXPLORER_ASSETS_PATH}:asset`, (req, res) => {
    const asset = explorer?.asset(String(req.params.asset));
    if (!asset) throw problem.notFound(`no resource at ${req.path.slice(0, 200)}; the explorer is at /`);
    sendRendered(req, res, asset);
  });

  app.use((req) => {
    throw problem.notFound(`no resource at ${req.path.slice(0, 200)}; the index is at ${SERVICE_ROUTES.index.path}`);
  });
  app.use(onError);
  return app;
}

const methodNotAllowed: RequestHandler = (req, res) => {
  res.set('Allow', ALLOWED_METHODS);
  throw problem.methodNotAllowed(req.method, ALLOWED_METHODS);
};

function index(endpoints: readonly Endpoint[]) {
  const { openapi, docs, healthz, readyz } = SERVICE_ROUTES;
  return {
    name: 'Public Budget Data Service',
    description: 'Read-only data on the state budget: totals, categories, expenses, resources, organizations, debt and deficit.',
    api_version: API_VERSION,
    documentation: { openapi: openapi.path, docs: docs.path, changelog: SERVICE_ROUTES.changelog.path },
    endpoints: [
      ...endpoints.map((e) => ({
        path: e.path,
        summary: e.summary,
        parameters: Object.keys(e.query.shape),
        paged: e.paged,
        formats: [...FORMAT_NAMES],
      })),
      ...Object.values(SERVICE_ROUTES)
        .filter((route) => route.inIndex)
        .map((route) => ({
          path: route.path,
          summary: route.summary,
          parameters: [],
          paged: false,
          formats: [route.representation.format],
        })),
    ],
    health: { live: healthz.path, ready: readyz.path },
  };
}

/** Where the counts are kept right now: a replica whose Redis is unavailable limits on its own. */
function rateLimitStatus(config: Config, counts: SharedCounts | undefined) {
  return { limit: config.RATE_LIMIT, ...(counts?.status() ?? { store: 'memory', redis: null }) };
}

function meta(store: Store) {
  const drop = store.served!;
  const { manifest } = drop;
  return {
    api_version: API_VERSION,
    version: manifest.version,
    description: manifest.description,
    created_at: manifest.created_at,
    source: manifest.source ?? null,
    license: manifest.license ?? null,
    loaded_at: drop.loadedAt.toISOString(),
    fingerprint: drop.fingerprint,
    files: Object.fromEntries(Object.entries(manifest.files).map(([name, file]) => [name, { rows: file.rows }])),
    years: drop.years,
    coverage: drop.coverage,
    gaps: drop.gaps,
    units: manifest.units ?? null,
    stages: manifest.stages ?? null,
    known_gaps: manifest.known_gaps ?? [],
    last_reload: store.lastReload,
    ...lastChange(store, manifest.version),
  };
}

/**
 * What the last swap changed; before this process's first swap, what the release being served
 * changed against the release before it, so that a restart onto a new drop (a container
 * redeployed) tells what /releases/ tells of it (docs/api.md#service-endpoints).
 */
function lastChange(store: Store, version: string) {
  const swapped = store.replacedVersion !== null;
  const change = swapped ? store.lastChange : (store.releases?.get(version)?.changes ?? null);
  return {
    previous_version: swapped ? store.replacedVersion : (change?.previous_version ?? null),
    changes: change && {
      tables: change.tables,
      years_with_moved_totals: change.years_with_moved_totals,
      drop_json: change.drop_json,
      notes: change.notes,
    },
  };
}
