/**
 * The one handler every data endpoint runs: validate the query, choose the representation, take a
 * lease on the served drop, answer 304 when the client's copy is current, otherwise query, shape
 * and send as JSON, CSV or Arrow.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Config } from './config.js';
import type { Lease, Store } from './data/store.js';
import { TREE_TABLE, type Endpoint, type Page } from './endpoints.js';
import { fileName, sendDownload } from './formats/download.js';
import { negotiate, type Format } from './formats/negotiate.js';
import type { FlatRow } from './formats/table.js';
import { etagFor, isFresh } from './http/caching.js';
import type { ResponseCache } from './http/response-cache.js';
import { HttpError } from './http/errors.js';
import { envelope } from './http/paging.js';
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

export function endpointHandler(endpoint: Endpoint, store: Store, config: Config, cache: ResponseCache): RequestHandler {
  return async (req, res) => {
    // The same URL answers JSON, CSV or Arrow depending on Accept: caches must key on it.
    res.vary('Accept');
    const params = parseQuery(req.originalUrl, endpoint.query) as Common;
    const format = negotiate(req, params.format);
    const lease = store.lease();
    if (!lease) throw dataUnavailable();
    try {
      const etag = etagFor(lease.drop.data.fingerprint, endpoint.path, req.originalUrl, format);
      res.set({ ETag: etag, 'Cache-Control': `public, max-age=${config.CACHE_MAX_AGE}` });
      if (isFresh(req, etag)) {
        res.status(304).end();
        return;
      }
      if (format === 'json') return await sendJsonAnswer(req, res, endpoint, params, lease, cache, etag);
      const table = endpoint.hierarchy && params.hierarchy ? TREE_TABLE : endpoint.table;
      await sendDownload(req, res, {
        format,
        columns: table.columns,
        fileName: fileName(endpoint.path, params, format),
        rows: () => downloadRows(endpoint, params, lease, (item) => table.rows(item)),
      });
    } finally {
      lease.release();
    }
  };
}

/** JSON answers are serialized once and kept in the response cache under their ETag. */
async function sendJsonAnswer(
  req: Request,
  res: Response,
  endpoint: Endpoint,
  params: Common,
  lease: Lease,
  cache: ResponseCache,
  etag: string,
) {
  const rendered = await cache.get(etag, async () => {
    const answer = await endpoint.answer(params, lease);
    const body = endpoint.paged ? pagedBody(endpoint.path, req.originalUrl, answer as Page, params) : answer;
    return { body: Buffer.from(JSON.stringify(body)), contentType: 'application/json; charset=utf-8' };
  });
  res.set('Content-Type', rendered.contentType).send(rendered.body);
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

function pagedBody(path: string, url: string, page: Page, { limit = 100, offset = 0 }: Common) {
  return envelope(path, url, page.count, page.items, limit, offset);
}
