/**
 * The one handler every data endpoint runs: validate the query and pick the variant, choose the
 * format, take a lease on the served drop, answer 304 when the client's copy is current, otherwise
 * answer: JSON rendered whole (and cached), any other format as a streamed download.
 */
import type { RequestHandler, Response } from 'express';
import type { Lease } from '../data/lease.js';
import { ClientGone, type Store } from '../data/store.js';
import type { Bound, Endpoint } from './endpoints/index.js';
import { ENDPOINTS } from './endpoints/index.js';
import { sendDownload, sendExportFile, type DownloadBody } from '../formats/download.js';
import { copyExport, type CopyExport } from '../formats/copy-export.js';
import { scratchDir } from '../data/lockdown.js';
import { SMALL_EXPORT_ROWS } from '../data/export-sql.js';
import type { ExportFiles, WriteExport } from '../http/export-files.js';
import type { ExportLimits } from '../http/export-limits.js';
import { fileName } from './download-name.js';
import type { DownloadFormat } from '../formats/format.js';
import { negotiate } from '../formats/negotiate.js';
import { FORMATS } from '../formats/registry.js';
import type { Table } from '../formats/table.js';
import { notes } from '../http/access-log.js';
import { pathOf } from '../http/url-path.js';
import { answerKey, canonicalQuery, keyButDrop, representation, type CanonicalQuery } from '../http/canonical-query.js';
import { freshTag, isCompressible, render, sendRendered, tagOf, type Rendered } from '../http/caching.js';
import { encodedTag, negotiateEncoding } from '../http/encoding.js';
import { problem, type HttpError } from '../domain/errors.js';
import type { CachedLookup } from '../http/fast-path.js';
import { DEFAULT_CSP } from '../http/headers.js';
import type { ResponseCache } from '../http/response-cache.js';
import { jsonText } from '../domain/json.js';
import { envelope, isWholeExport, linkHeader, type Envelope, type Page } from './paging.js';
import { IMMUTABLE, RELEASES_PATH, acceptDatetime, mementoDatetime, originalOf, permalink, releasePath, unknownRelease } from './releases.js';
import { spellings } from './routes.js';
import { selectFields } from './fields-selection.js';
import { canonicalValues } from './params.js';
import { memo } from '../lib/memo.js';
import { deprecationHeaders, pastSunset, usedBy, type Used } from './versioning.js';

export function dataUnavailable(): HttpError {
  return problem.dataUnavailable();
}

const VARY = 'Accept, Accept-Encoding';

/** How many request lines (with their Accept) cachedLookup remembers the key of. */
const REQUESTS_REMEMBERED = 10_000;
const REMEMBERED_LENGTH = 1_000;

/** The order parameters are keyed in: the endpoint's. */
const orderOf = (endpoint: Endpoint) => Object.keys(endpoint.query.shape);
/** Each endpoint's canonical values (params.ts), made once. */
const normalizerOf = memo((endpoint: Endpoint) => canonicalValues(endpoint.query));

/**
 * The answer already rendered for a request, if any: the hot path, before any routing, validation
 * or query. Only valid requests are ever cached, so validation, negotiation and the tag were done
 * when the answer was rendered; an invalid query's key (a repeated or unknown parameter, a bad
 * format) never names an entry.
 */
export function cachedLookup(store: Store, cache: ResponseCache, endpoints: readonly Endpoint[] = ENDPOINTS): CachedLookup {
  const byPath = new Map(
    endpoints.flatMap((e) =>
      spellings(e.path).map((path) => [path, { path: e.path, paged: e.paged, order: orderOf(e), normalize: normalizerOf(e) }] as const),
    ),
  );
  // A request's key but for the drop, remembered per request line and Accept: parsing and
  // spelling a query canonically costs more than the rest of a cache hit's lookup, and a hot URL
  // is asked again and again by clients that send the same Accept. Past 10,000 the memory starts
  // afresh (memo), so URLs a client makes up cannot grow it.
  const computeKey = (request: string): string | null => {
    const newline = request.indexOf('\n');
    const url = newline < 0 ? request : request.slice(0, newline);
    const accept = newline < 0 ? undefined : request.slice(newline + 1);
    const endpoint = byPath.get(pathOf(url));
    if (!endpoint) return null;
    const query = canonicalQuery(url, endpoint.order, endpoint.normalize);
    const format = query.format ?? negotiate(accept, undefined);
    return keyButDrop(endpoint.path, query, representation(format, namedOnPage(endpoint, query)));
  };
  const remembered = memo(computeKey, REQUESTS_REMEMBERED);
  // Long ones are not remembered, so that the memory holds 10,000 short strings at most.
  const keyOf = (request: string) => (request.length <= REMEMBERED_LENGTH ? remembered(request) : computeKey(request));
  return (method, url, accept) => {
    if (method !== 'GET' && method !== 'HEAD') return undefined;
    const drop = store.served;
    if (!drop) return undefined;
    // A URL never holds a line break (node's parser refuses one), so the two cannot run together.
    const key = keyOf(accept === undefined ? url : `${url}\n${accept}`);
    return key === null ? undefined : cache.get(drop.fingerprint + key);
  };
}

/**
 * Cached answers inside Express, registered after the rate limiter so that they are limited too;
 * anything not in the cache goes on to the routes. With the fast path (http/fast-path.ts) a hit
 * is answered before Express already; this is the same answer on the Express path.
 */
export function cachedAnswers(lookup: CachedLookup): RequestHandler {
  return (req, res, next) => {
    // A Memento request (Accept-Datetime) may be answered from another release than the cached answer's.
    const cached = req.headers['accept-datetime'] === undefined ? lookup(req.method, req.originalUrl, req.headers.accept) : undefined;
    if (!cached) return next();
    notes(res).cache = 'hit';
    sendRendered(req, res, cached);
  };
}

/**
 * Header sets merged, later ones winning, but for Link: a page's next and previous, a deprecation
 * and a Memento's original are all links of one answer, so their values are joined into one list
 * (RFC 8288), never one put in place of another.
 */
function joinLinks(...sets: Readonly<Record<string, string>>[]): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const set of sets) {
    for (const [name, value] of Object.entries(set)) merged[name] = name === 'Link' && merged.Link ? `${merged.Link}, ${value}` : value;
  }
  return merged;
}

export interface HandlerOptions {
  /** The clock deprecations' sunsets are read against; a test sets its own. */
  now?: () => Date;
  /** Whole exports kept as files (http/export-files.ts); without it every export is streamed. */
  exportFiles?: ExportFiles;
  /** What full exports may cost (http/export-limits.ts); without it they are not limited. */
  exportLimits?: ExportLimits;
  /** The endpoint's permalink route, /budget/api/releases/{version}/... (docs/api.md#releases). */
  atRelease?: boolean;
}

export function endpointHandler(
  endpoint: Endpoint,
  store: Store,
  cacheControl: string,
  cache: ResponseCache,
  { now = () => new Date(), exportFiles, exportLimits, atRelease = false }: HandlerOptions = {},
): RequestHandler {
  const order = orderOf(endpoint);
  const normalize = normalizerOf(endpoint);
  return async (req, res) => {
    // The same URL answers JSON, CSV, Arrow or Parquet depending on Accept, compressed or not
    // depending on Accept-Encoding, and from an older release with Accept-Datetime: caches must key on them.
    res.setHeader('Vary', store.releases && !atRelease ? VARY_DATETIME : VARY);
    let lease: Lease | null = null;
    let endExport: (() => void) | undefined;
    try {
      const version = atRelease ? String(req.params.version) : undefined;
      if (version !== undefined && !isKept(store, version)) throw unknownRelease(`no release "${version.slice(0, 100)}" is kept`);
      const bound = endpoint.bind(req.originalUrl);
      const formatName = negotiate(req.headers.accept, bound.format);
      const used = deprecatedUse(endpoint, bound, req.originalUrl, formatName);
      if (used.length > 0) {
        notes(res).deprecated = used.map((u) => u.what);
        const gone = pastSunset(used, now());
        if (gone) throw gone;
      }
      const query = canonicalQuery(req.originalUrl, order, normalize);
      const source = await sourceOf(req.get('Accept-Datetime'), endpoint, store, version, query, formatName, cacheControl, hangUp(res));
      lease = source.lease;
      if (!lease) throw dataUnavailable();
      res.setHeader('Vary', source.vary);
      // The format as the paging links keep it: only when the request named it.
      const namedFormat = namedOnPage(endpoint, query) ? formatName : undefined;
      const key = answerKey(lease.drop.data.fingerprint, source.base, query, representation(formatName, namedFormat !== undefined) + source.variant);
      const etag = tagOf(key);
      const headers = joinLinks(await bound.headers(lease), deprecationHeaders(used), source.headers);
      const format = FORMATS[formatName];
      const encoding = isCompressible(format.contentType) ? negotiateEncoding(req.headers['accept-encoding']) : undefined;
      const fresh = freshTag(req.headers['if-none-match'], etag, encoding);
      if (fresh) {
        res
          .set({ ETag: fresh, 'Cache-Control': source.cacheControl, ...headers })
          .status(304)
          .end();
        return;
      }
      if (!format.download) {
        notes(res).cache = 'hit';
        // An answer that used something deprecated is never cached: each use is logged, and a
        // sunset is checked against the clock of each request.
        const renderOnce = (key: string, rendering: () => Promise<Rendered>) => (used.length > 0 ? rendering() : cache.getOrRender(key, rendering));
        const answering = lease;
        const rendered = await renderShared(res, () =>
          renderOnce(key, async () => {
            notes(res).cache = 'miss';
            const body = await jsonBody(endpoint, bound, query, answering, source.base, namedFormat);
            const link = endpoint.paged ? linkHeader(body as Envelope) : undefined;
            return render(Buffer.from(jsonText(body)), {
              contentType: format.contentType,
              cacheControl: source.cacheControl,
              etag,
              vary: source.vary,
              csp: DEFAULT_CSP,
              headers: link ? joinLinks(headers, { Link: link }) : headers,
            });
          }),
        );
        return sendRendered(req, res, rendered);
      }
      // A whole export is the same bytes for every request of this drop: sent from its file once
      // one request has written it (docs/performance.md#full-exports).
      const wholeExport = Boolean(bound.exportAll) && isWholeExport(pagingOf(bound));
      // A page links to its neighbours as the JSON answer does, so its items are read first.
      const page = endpoint.paged && !wholeExport ? ((await bound.answer(lease)) as Page) : undefined;
      const link = page && linkHeader(envelope(source.base, query.pairs, page, pagingOf(bound), namedFormat));
      // A download is streamed: compressed on the fly when asked, whatever its size.
      res.set({
        ETag: encoding ? encodedTag(etag, encoding) : etag,
        'Cache-Control': source.cacheControl,
        ...(link ? joinLinks(headers, { Link: link }) : headers),
      });
      const { table } = bound;
      const download = { format, encoding, fileName: fileName(endpoint.path, bound.params, format) };
      // Only the current release's: the files are removed at every swap.
      const whole = exportFiles && source.current && wholeExport;
      const fingerprint = lease.drop.data.fingerprint;
      const file = whole ? await exportFiles.find(fingerprint, key) : undefined;
      // Kept as a file by the request that makes them: the bytes, and their compressed bytes too.
      const recordAs = (fileKey: string | undefined) =>
        whole && fileKey && req.method === 'GET' ? exportFiles.recorder(fingerprint, fileKey) : undefined;
      const compressedKey = encoding && `${key} ${encoding}`;
      if (file && exportFiles) {
        notes(res).cache = 'hit';
        lease.release();
        const compressed = compressedKey ? await exportFiles.find(fingerprint, compressedKey) : undefined;
        return await sendExportFile(req, res, download, compressed ?? file, {
          compressed: compressed !== undefined,
          record: compressed ? undefined : recordAs(compressedKey),
        });
      }
      // A full export made from DuckDB holds a connection while it runs: it has its own budget.
      const limited = exportLimits && wholeExport && req.method === 'GET' ? exportLimits : undefined;
      endExport = await limited?.enter(req, res);
      const answering = lease;
      const watch = limited && (() => limited.watchdog(res));
      // Written by DuckDB itself where the format can be, read as it is written, then kept.
      const copy =
        whole && req.method === 'GET'
          ? await copyOf(bound, answering, format, table, exportFiles.copyAbove ?? format.copy?.writesAbove ?? SMALL_EXPORT_ROWS)
          : undefined;
      if (copy && exportFiles) {
        const bytes = exportFiles.written(fingerprint, key, await scratchDir(), copyWriter(answering, copy));
        return await sendDownload(req, res, { ...download, body: () => ({ bytes }), recordCompressed: recordAs(compressedKey), watch });
      }
      await sendDownload(req, res, {
        ...download,
        body: () => downloadBody(bound, answering, format, table, page),
        record: recordAs(key),
        recordCompressed: recordAs(compressedKey),
        watch,
      });
    } finally {
      endExport?.();
      lease?.release();
    }
  };
}

const VARY_DATETIME = `${VARY}, Accept-Datetime`;

/** Whether a paged answer's links keep `format`: the request named it (api/paging.ts envelope). */
const namedOnPage = (endpoint: Pick<Endpoint, 'paged'>, query: CanonicalQuery): boolean => endpoint.paged && query.format !== undefined;

/** Which data answers a request, and what the answer says of it (docs/api.md#releases). */
interface Source {
  lease: Lease | null;
  /** The release being served: its answers are the current ones. */
  current: boolean;
  /** The path the answer's paging links and cache key use: the endpoint's, or its permalink's. */
  base: string;
  cacheControl: string;
  vary: string;
  headers: Record<string, string>;
  /** Tells apart answers of one path with other headers (a Memento answer and the permalink's). */
  variant: string;
}

/** A version this process can answer: the one served (kept, or being copied), or one kept. */
function isKept(store: Store, version: string): boolean {
  return store.served?.manifest.version === version || store.releases?.get(version) !== undefined;
}

async function sourceOf(
  datetime: string | undefined,
  endpoint: Endpoint,
  store: Store,
  version: string | undefined,
  query: CanonicalQuery,
  formatName: string,
  cacheControl: string,
  signal: AbortSignal,
): Promise<Source> {
  const { releases } = store;
  const gone = (name: string) => unknownRelease(`release "${name.slice(0, 100)}" is no longer kept`);
  if (version !== undefined) {
    const lease = releases ? await releases.lease(version, signal) : store.lease(signal);
    if (!lease || lease.drop.data.manifest.version !== version) {
      lease?.release();
      throw gone(version);
    }
    const release = releases?.get(version);
    const headers: Record<string, string> = release ? { 'Memento-Datetime': mementoDatetime(release) } : {};
    return { lease, current: false, base: releasePath(version, endpoint.path), cacheControl: IMMUTABLE, vary: VARY, headers, variant: '' };
  }
  if (!releases) return { lease: store.lease(signal), current: true, base: endpoint.path, cacheControl, vary: VARY, headers: {}, variant: '' };
  if (datetime !== undefined) {
    const instant = acceptDatetime(datetime);
    const release = releases.at(instant);
    if (!release) throw unknownRelease(`no release kept was served at ${instant.toUTCString()}`);
    const lease = await releases.lease(release.version, signal);
    if (!lease) throw gone(release.version);
    return {
      lease,
      current: false,
      base: releasePath(release.version, endpoint.path),
      cacheControl,
      vary: VARY_DATETIME,
      headers: {
        'Memento-Datetime': mementoDatetime(release),
        'Content-Location': permalink(release.version, endpoint.path, query, formatName, namedOnPage(endpoint, query)),
        Link: `<${originalOf(endpoint.path, query)}>; rel="original timegate", <${RELEASES_PATH}>; rel="timemap"`,
      },
      variant: '@memento',
    };
  }
  const lease = store.lease(signal);
  const headers: Record<string, string> = lease
    ? { 'Content-Location': permalink(lease.drop.data.manifest.version, endpoint.path, query, formatName, namedOnPage(endpoint, query)) }
    : {};
  return { lease, current: true, base: endpoint.path, cacheControl, vary: VARY_DATETIME, headers, variant: '' };
}

/** Aborts when the client hangs up before its answer is sent, so that its queries leave the queue. */
function hangUp(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * The cache renders a key once for every request asking it at the same time, on the first one's
 * lease: when that client hung up while its query waited, the others render it again.
 */
async function renderShared(res: Response, render: () => Promise<Rendered>): Promise<Rendered> {
  for (;;) {
    try {
      return await render();
    } catch (error) {
      if (!(error instanceof ClientGone) || res.closed) throw error;
    }
  }
}

/** What a request used of its endpoint's deprecated parts. */
function deprecatedUse(endpoint: Endpoint, bound: Bound, url: string, format: string): Used[] {
  if (!endpoint.deprecations) return [];
  const fields = bound.params.fields;
  return usedBy(endpoint.deprecations, {
    given: new URL(url, 'http://local').searchParams.keys(),
    format,
    fields: Array.isArray(fields) ? fields.map(String) : undefined,
  });
}

async function jsonBody(endpoint: Endpoint, bound: Bound, query: CanonicalQuery, lease: Lease, base: string, format?: string): Promise<unknown> {
  const answer = await bound.answer(lease);
  const fields = bound.params.fields as string[] | undefined;
  if (!endpoint.paged) return selectFields(answer as unknown[], fields);
  const page = answer as Page;
  return envelope(base, query.pairs, { ...page, items: selectFields(page.items, fields) }, pagingOf(bound), format);
}

/** limit and offset as parsed (only paged endpoints have them). */
function pagingOf({ params }: Bound): { limit?: number; offset?: number } {
  const number = (value: unknown) => (typeof value === 'number' ? value : undefined);
  return { limit: number(params.limit), offset: number(params.offset) };
}

/**
 * A whole export as DuckDB is to write it, when the format and the endpoint's export let it
 * (formats/copy-export.ts) and it may have more than `above` lines. A small CSV (one year's, say)
 * is made in JS: COPY sorts and writes all of it before its first byte, where JS sends the first
 * chunk as soon as the query has run (one year's CSV of a 1M-line drop: first byte 54-56 ms
 * median, 69 ms at most, against 75-78 ms and up to 163 ms; the whole 148-159 ms against 131-143 ms).
 * A format may say otherwise (CopyWriter.writesAbove: Parquet, whose bytes come at the end anyway).
 */
async function copyOf(bound: Bound, lease: Lease, format: DownloadFormat, table: Table, above: number): Promise<CopyExport | undefined> {
  if (!format.copy || !bound.exportAll) return undefined;
  const whole = bound.exportAll(lease);
  if (!('sql' in whole) || (whole.rowsAtMost ?? Infinity) <= above) return undefined;
  return copyExport({ ...whole, columns: table.columns }, format.copy);
}

/**
 * What writes a whole export with DuckDB's COPY. The writing takes a lease of its own: it outlives
 * the request that started it when another one reads the same file, and the drop must not be
 * closed under it after a swap.
 */
function copyWriter(lease: Lease, copy: CopyExport): WriteExport {
  return async (part, stop) => {
    const writing = lease.drop.lease();
    try {
      const copyTo = (file: string) => writing.copy(copy.sql, copy.params, file, copy.options, stop);
      await (copy.rewrite ? copy.rewrite(copyTo, part) : copyTo(part));
    } finally {
      writing.release();
    }
  };
}

/**
 * A paged endpoint without limit and offset exports every matching row (docs/api.md#full-exports),
 * made by the format from DuckDB's results when the endpoint gives a query for it; otherwise the
 * download holds exactly the items the JSON answer would (`page`, when already read), flattened.
 */
function downloadBody(bound: Bound, lease: Lease, format: DownloadFormat, table: Table, page?: Page): DownloadBody {
  if (bound.exportAll && isWholeExport(pagingOf(bound))) {
    const whole = bound.exportAll(lease);
    if ('sql' in whole) return { bytes: format.fromQuery({ ...whole, lease, columns: table.columns }) };
    return { rows: whole, columns: table.columns };
  }
  const rows = (async function* () {
    const answer = page ?? (await bound.answer(lease));
    yield (Array.isArray(answer) ? answer : answer.items).flatMap((item) => table.rows(item));
  })();
  return { rows, columns: table.columns };
}
