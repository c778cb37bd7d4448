/**
 * The one handler every data endpoint runs: validate the query, choose the representation, take a
 * lease on the served drop, answer 304 when the client's copy is current, otherwise query, shape
 * and send as JSON, CSV or Arrow.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Lease, Store } from './data/store.js';
import { ENDPOINTS, TREE_TABLE, pageBounds, type Endpoint, type Page } from './endpoints/index.js';
import { fileName, sendDownload } from './formats/download.js';
import { FORMATS, negotiate, type Format } from './formats/negotiate.js';
import type { FlatRow } from './formats/table.js';
import { etagFor, isFresh, render, sendRendered } from './http/caching.js';
import type { ResponseCache } from './http/response-cache.js';
import { HttpError } from './http/errors.js';
import { envelope } from './http/paging.js';
import { jsonText } from './json.js';
import { parseQuery } from './params.js';

export function dataUnavailable(): HttpError {
  return new HttpError(503, 'data_unavailable', 'no data drop is loaded yet; try again shortly');
}

/** The parameters every data endpoint may receive, as far as the pipeline needs to know them. */
type Common = Record<string, unknown> & {
  format?: Format;
  limit?: number;
  offset?: number;
  hierarchy?: boolean;
};

/**
 * Answers already rendered, served before any routing, validation or query: the hot path. Only
 * valid requests are ever cached, so validation, negotiation and the tag were done when the
 * answer was rendered. Registered after the rate limiter, so cached answers are limited too;
 * anything not in the cache goes on to the routes.
 */
export function cachedAnswers(store: Store, cache: ResponseCache): RequestHandler {
  const byPath = new Map(ENDPOINTS.flatMap((e) => [[e.path, e] as const, [e.path.slice(0, -1), e] as const]));
  return (req, res, next) => {
    const endpoint = req.method === 'GET' || req.method === 'HEAD' ? byPath.get(req.path) : undefined;
    const drop = store.served;
    const cached = endpoint && drop && cache.get(answerKey(drop.fingerprint, endpoint.path, req));
    if (!cached) return next();
    sendRendered(req, res, cached);
  };
}

export function endpointHandler(endpoint: Endpoint, store: Store, cacheControl: string, cache: ResponseCache): RequestHandler {
  return async (req, res) => {
    // The same URL answers JSON, CSV or Arrow depending on Accept: caches must key on it.
    res.setHeader('Vary', 'Accept');
    const lease = store.lease();
    try {
      const params = parseQuery(req.originalUrl, endpoint.query) as Common;
      const format = negotiate(req, params.format);
      if (!lease) throw dataUnavailable();
      const etag = etagFor(lease.drop.data.fingerprint, endpoint.path, req.originalUrl, format);
      res.set({ ETag: etag, 'Cache-Control': cacheControl });
      if (isFresh(req, etag)) {
        res.status(304).end();
        return;
      }
      if (format === 'json') {
        const key = answerKey(lease.drop.data.fingerprint, endpoint.path, req);
        const rendered = await cache.getOrRender(key, async () => {
          const answer = await endpoint.answer(params, lease);
          const body = endpoint.paged ? pagedBody(endpoint.path, req.originalUrl, answer as Page, params) : answer;
          return render(Buffer.from(jsonText(body)), {
            contentType: FORMATS.json.contentType,
            cacheControl,
            etag,
            vary: 'Accept',
          });
        });
        return sendRendered(req, res, rendered);
      }
      const table = endpoint.hierarchy && params.hierarchy ? TREE_TABLE : endpoint.table;
      await sendDownload(req, res, {
        format,
        columns: table.columns,
        fileName: fileName(endpoint.path, params, format),
        rows: () => downloadRows(endpoint, params, lease, (item) => table.rows(item)),
      });
    } finally {
      lease?.release();
    }
  };
}

/**
 * The request as the client spelled its query, with the representation its Accept header asks
 * for (browsers, curl and fetch all send different Accept lists for JSON), on one drop. Two
 * spellings of the same query get two entries with the same ETag, which is harmless; the drop's
 * fingerprint keeps a request still finishing on a replaced drop from filling the new drop's cache.
 */
function answerKey(fingerprint: string, path: string, req: Request): string {
  const url = req.originalUrl;
  const query = url.includes('?') ? url.slice(url.indexOf('?')) : '';
  return `${fingerprint}\n${path}\n${query}\n${negotiate(req, undefined)}`;
}

/**
 * A paged endpoint without limit and offset exports every matching row (contract section 5);
 * otherwise the download holds exactly the items the JSON answer would, flattened.
 */
function downloadRows(
  endpoint: Endpoint,
  params: Common,
  lease: Lease,
  flatten: (item: unknown) => FlatRow[],
): AsyncIterable<FlatRow[]> {
  if (endpoint.exportAll && params.limit === undefined && params.offset === undefined) {
    return endpoint.exportAll(params, lease);
  }
  return (async function* () {
    const answer = await endpoint.answer(params, lease);
    yield (Array.isArray(answer) ? answer : answer.items).flatMap(flatten);
  })();
}

function pagedBody(path: string, url: string, page: Page, params: Common) {
  const { limit, offset } = pageBounds(params);
  return envelope(path, url, page.count, page.items, limit, offset);
}
