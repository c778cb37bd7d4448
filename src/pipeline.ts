/**
 * The one handler every data endpoint runs: validate the query, take a lease on the served drop,
 * answer 304 when the client's copy is current, otherwise query, shape and send.
 */
import type { RequestHandler } from 'express';
import type { Config } from './config.js';
import type { Store } from './data/store.js';
import type { Endpoint, Page } from './endpoints.js';
import { etagFor, isFresh } from './http/caching.js';
import { HttpError } from './http/errors.js';
import { envelope } from './http/paging.js';
import { parseQuery } from './params.js';

export function dataUnavailable(): HttpError {
  return new HttpError(503, 'data_unavailable', 'no data drop is loaded yet; try again shortly');
}

export function endpointHandler(endpoint: Endpoint, store: Store, config: Config): RequestHandler {
  return async (req, res) => {
    const params = parseQuery(req.originalUrl, endpoint.query);
    const lease = store.lease();
    if (!lease) throw dataUnavailable();
    try {
      const etag = etagFor(lease.drop.data.fingerprint, endpoint.path, req.originalUrl);
      res.set({ ETag: etag, 'Cache-Control': `public, max-age=${config.CACHE_MAX_AGE}` });
      if (isFresh(req, etag)) {
        res.status(304).end();
        return;
      }
      const answer = await endpoint.answer(params, lease);
      const body = endpoint.paged
        ? pagedBody(endpoint.path, req.originalUrl, answer as Page, params as { limit?: number; offset?: number })
        : answer;
      res.type('application/json; charset=utf-8').send(JSON.stringify(body));
    } finally {
      lease.release();
    }
  };
}

function pagedBody(path: string, url: string, page: Page, { limit = 100, offset = 0 }: { limit?: number; offset?: number }) {
  return envelope(path, url, page.count, page.items, limit, offset);
}
