/** The response cache: an answer is rendered once per drop and query, and never outlives its drop. */
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { loadDrop } from '../src/data/drop.js';
import { small } from './fixtures/small.js';
import { appFor } from './helpers/app.js';
import { writeDrop } from './helpers/drop.js';

describe('the response cache', () => {
  it('never serves an answer of a replaced drop', async () => {
    const t = await appFor(small);
    try {
      const before = await request(t.app).get('/budget/api/deficit/');
      expect(before.body).toHaveLength(2);
      t.store.swap(await loadDrop(await writeDrop({ ...small, deficit: [{ year: 2024, value: 2 }] })));
      const after = await request(t.app).get('/budget/api/deficit/');
      expect(after.body).toEqual([
        { year: 2024, value: 2, percent: 25, published_percent: null, gdp: 8, stage: null, source_id: null, derived: false },
      ]);
      expect(after.headers.etag).not.toBe(before.headers.etag);
    } finally {
      t.close();
    }
  });

  it('answers a request still rendering when the drop is replaced, from the drop it started on', async () => {
    const t = await appFor(small);
    try {
      // Hold the query of the request below until the drop has been replaced.
      const lease = t.store.lease()!;
      const drop = lease.drop;
      lease.release();
      const query = drop.query.bind(drop);
      let started!: () => void;
      const inQuery = new Promise<void>((resolve) => (started = resolve));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      drop.query = async (name, params) => {
        started();
        await held;
        return query(name, params);
      };
      // A search is one of the answers still read from DuckDB at each request (the roll-ups are read at load).
      const inFlight = request(t.app)
        .get('/budget/api/organization/?search=agence')
        .then((res) => res);
      await inQuery;
      const added = { id: 4, name: 'Agence nouvelle', code: 'NEW' };
      t.store.swap(await loadDrop(await writeDrop({ ...small, organizations: [...small.organizations!, added] })));
      release();
      const res = await inFlight;
      expect(res.status).toBe(200);
      expect(res.body.results.map((o: { id: number }) => o.id)).toEqual([3]);
      // The next request renders on the new drop.
      expect((await request(t.app).get('/budget/api/organization/?search=agence')).body.results.map((o: { id: number }) => o.id)).toEqual([3, 4]);
    } finally {
      t.close();
    }
  });

  it('keys answers by the canonical query: parameters in any order', async () => {
    const t = await appFor(small);
    try {
      const first = await request(t.app).get('/budget/api/expenses/?year=2023&organization=1&limit=1');
      expect(first.body.next).toBe('/budget/api/expenses/?limit=1&offset=1&year=2023&organization=1');
      // With its DuckDB closed, the app can only answer from the cache: a query it has not cached fails.
      const lease = t.store.lease()!;
      lease.drop.retire();
      lease.release();
      expect((await request(t.app).get('/budget/api/expenses/?year=2024&limit=1')).status).toBe(500);
      for (const url of [
        '/budget/api/expenses/?organization=1&year=2023&limit=1',
        '/budget/api/expenses/?limit=1&organization=1&year=2023',
        '/budget/api/expenses?year=2023&limit=1&organization=1',
      ]) {
        const again = await request(t.app).get(url);
        expect(again.status, url).toBe(200);
        expect(again.headers.etag, url).toBe(first.headers.etag);
        expect(again.text, url).toBe(first.text);
      }
    } finally {
      t.close();
    }
  });

  it('keys answers by the parsed values: a year list in any order, with repeats or leading zeros, and any case of a stage', async () => {
    const t = await appFor(small);
    try {
      const first = await request(t.app).get('/budget/api/expenses/?year=2023,2024&stage=amended&limit=1');
      expect(first.status).toBe(200);
      expect(first.body.next).toBe('/budget/api/expenses/?limit=1&offset=1&year=2023%2C2024&stage=amended');
      // With its DuckDB closed, the app can only answer from the cache.
      const lease = t.store.lease()!;
      lease.drop.retire();
      lease.release();
      for (const url of [
        '/budget/api/expenses/?year=2024,2023,2023&stage=amended&limit=1',
        '/budget/api/expenses/?year=02023,2024&stage=AMENDED&limit=1',
        '/budget/api/expenses/?year=2023..2024&stage=Amended&limit=01',
      ]) {
        const again = await request(t.app).get(url);
        expect(again.status, url).toBe(200);
        expect(again.headers.etag, url).toBe(first.headers.etag);
        expect(again.text, url).toBe(first.text);
      }
      // Another year set is another query.
      expect((await request(t.app).get('/budget/api/expenses/?year=2023,2025&stage=amended&limit=1')).status).toBe(500);
    } finally {
      t.close();
    }
  });

  it('gives the same query the same tag before anything is cached, and another value another tag', async () => {
    const t = await appFor(small, { RESPONSE_CACHE_MB: '0' });
    try {
      const tag = async (url: string) => (await request(t.app).get(url)).headers.etag;
      const etag = await tag('/budget/api/debt/?year=2023&parent=null');
      expect(await tag('/budget/api/debt/?parent=null&year=2023')).toBe(etag);
      expect(await tag('/budget/api/debt/?parent=null&format=json&year=2023')).toBe(etag);
      expect(await tag('/budget/api/debt/?parent=null&year=2022')).not.toBe(etag);
      expect((await request(t.app).get('/budget/api/debt/?parent=null&year=2023').set('If-None-Match', etag!)).status).toBe(304);
    } finally {
      t.close();
    }
  });

  it('answers the same bytes from the cache as when rendered, and can be turned off', async () => {
    const on = await appFor(small);
    const off = await appFor(small, { RESPONSE_CACHE_MB: '0' });
    try {
      const first = await request(on.app).get('/budget/api/expenses/?hierarchy=true');
      const cached = await request(on.app).get('/budget/api/expenses/?hierarchy=true');
      const uncached = await request(off.app).get('/budget/api/expenses/?hierarchy=true');
      expect(cached.text).toBe(first.text);
      expect(uncached.text).toBe(first.text);
      const { date: _d1, 'x-request-id': _id1, ...firstHeaders } = first.headers;
      const { date: _d2, 'x-request-id': _id2, ...cachedHeaders } = cached.headers;
      expect(cachedHeaders).toEqual(firstHeaders);
      expect(cachedHeaders).toMatchObject({
        'content-type': 'application/json; charset=utf-8',
        'access-control-allow-origin': '*',
        'x-content-type-options': 'nosniff',
        vary: 'Accept, Accept-Encoding',
      });
      const notModified = await request(on.app).get('/budget/api/expenses/?hierarchy=true').set('If-None-Match', first.headers.etag!);
      expect(notModified.status).toBe(304);
      expect(notModified.headers).toMatchObject({ etag: first.headers.etag, vary: 'Accept, Accept-Encoding', 'access-control-allow-origin': '*' });
    } finally {
      on.close();
      off.close();
    }
  });

  it("answers curl's, a browser's and fetch's JSON requests from one rendered answer", async () => {
    const t = await appFor(small);
    let queries = 0;
    const lease = t.store.lease.bind(t.store);
    t.store.lease = (signal) => {
      const held = lease(signal);
      if (!held) return held;
      const query = held.query;
      const counted: typeof query = (...args) => (queries++, query(...args));
      return { ...held, query: counted };
    };
    try {
      const accepts = [undefined, '*/*', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'application/json'];
      const bodies = [];
      for (const accept of accepts) {
        const req = request(t.app).get('/budget/api/organization/?search=min');
        bodies.push((await (accept ? req.set('Accept', accept) : req)).text);
      }
      expect(new Set(bodies).size).toBe(1);
      expect(queries).toBe(1);
    } finally {
      t.close();
    }
  });

  it('answers a URL it has seen by the Accept of each request: JSON, then CSV, then JSON again', async () => {
    const t = await appFor(small);
    try {
      const json = await request(t.app).get('/budget/api/deficit/');
      const again = await request(t.app).get('/budget/api/deficit/');
      const csv = await request(t.app).get('/budget/api/deficit/').set('Accept', 'text/csv');
      const jsonAfter = await request(t.app).get('/budget/api/deficit/');
      expect([json.type, again.type, csv.type, jsonAfter.type]).toEqual(['application/json', 'application/json', 'text/csv', 'application/json']);
      expect(jsonAfter.text).toBe(json.text);
      expect(jsonAfter.headers.etag).toBe(json.headers.etag);
      expect(csv.headers.etag).not.toBe(json.headers.etag);
    } finally {
      t.close();
    }
  });

  it('finds the cached answer of a very long spelling of a query as of a short one', async () => {
    const t = await appFor(small);
    let queries = 0;
    const lease = t.store.lease.bind(t.store);
    t.store.lease = (signal) => {
      const held = lease(signal);
      if (!held) return held;
      const query = held.query;
      const counted: typeof query = (...args) => (queries++, query(...args));
      return { ...held, query: counted };
    };
    try {
      const short = await request(t.app).get('/budget/api/organization/?search=min&year=2023');
      const long = await request(t.app).get(`/budget/api/organization/?search=min&year=${'2023,'.repeat(300)}2023`);
      const longAgain = await request(t.app).get(`/budget/api/organization/?search=min&year=${'2023,'.repeat(300)}2023`);
      expect([short.status, long.status, longAgain.status]).toEqual([200, 200, 200]);
      expect(long.text).toBe(short.text);
      expect(longAgain.text).toBe(short.text);
      expect(queries).toBe(1);
    } finally {
      t.close();
    }
  });
});
