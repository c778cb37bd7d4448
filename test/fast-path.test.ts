/**
 * Cached answers are sent before the Express router (src/http/fast-path.ts). Two apps over the same
 * drop, one with the fast path and one without, get the same requests in the same order, so that
 * their rate-limit counts agree; every answer must match header by header and byte by byte.
 */
import express, { type Express } from 'express';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { loadDrop } from '../src/data/drop.js';
import { Store } from '../src/data/store.js';
import { ENDPOINTS } from '../src/api/endpoints/index.js';
import { render } from '../src/http/caching.js';
import { errorHandler } from '../src/http/errors.js';
import { answerCachedFirst } from '../src/http/fast-path.js';
import { small } from './fixtures/small.js';
import { listen } from './helpers/app.js';
import { writeDrop } from './helpers/drop.js';
import { rawRequest, type Raw } from './helpers/raw.js';

/** One URL per endpoint, so that a new endpoint is compared too. */
const QUERIES: Record<string, string> = {
  '/budget/api/totals/': '?year=2023',
  '/budget/api/budget-categories/': '?type=resource',
  '/budget/api/expenses/': '?hierarchy=true',
  '/budget/api/resources/': '?limit=2&offset=1',
  '/budget/api/organization/': '',
  '/budget/api/organization/stats/': '?year=2024',
  '/budget/api/debt/': '?parent=null',
  '/budget/api/outstanding-debt/': '?year=last',
  '/budget/api/deficit/': '',
};
const URLS = ENDPOINTS.map((e) => `${e.path}${QUERIES[e.path] ?? ''}`);

interface Served {
  app: Express;
  store: Store;
  base: string;
  stop(): Promise<void>;
}

async function serve(dir: string, fastPath: boolean, rateLimit: string): Promise<Served> {
  const store = new Store();
  store.swap(await loadDrop(dir));
  const app = createApp({ config: parseConfig({ DATA_DIR: dir, RATE_LIMIT: rateLimit }), store, fastPath });
  const { base, stop } = await listen(app);
  return { app, store, base, stop };
}

/** Runs `test` against servers of the drop, with or without the fast path each, stopped and closed after. */
async function withServers(rateLimit: string, fastPaths: boolean[], test: (...served: Served[]) => Promise<void>): Promise<void> {
  const served = await Promise.all(fastPaths.map((fastPath) => serve(dir, fastPath, rateLimit)));
  try {
    await test(...served);
  } finally {
    await Promise.all(served.map((s) => s.stop()));
    for (const s of served) s.store.close();
  }
}

let dir: string;
beforeAll(async () => {
  dir = await writeDrop(small);
  // RateLimit's t= counts seconds to the window's end: with the clock still, both apps say the same.
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterAll(() => vi.useRealTimers());

/** Everything but Date, which moves with the clock, in the order and spelling sent. */
const comparable = (res: Raw) => ({
  status: res.status,
  headers: res.rawHeaders.flatMap((value, i, all) => (i % 2 === 0 && value.toLowerCase() !== 'date' ? [[value, all[i + 1]]] : [])),
  body: res.body.toString('base64'),
});

describe('cached answers before the Express router', () => {
  let fast: Served;
  let slow: Served;
  beforeAll(async () => {
    fast = await serve(dir, true, '1000');
    slow = await serve(dir, false, '1000');
  });
  afterAll(async () => {
    await Promise.all([fast.stop(), slow.stop()]);
    fast.store.close();
    slow.store.close();
  });

  /** The same request to both apps; the answers, side by side. */
  async function both(url: string, asked: Record<string, string> = {}, method = 'GET') {
    // The client's own request id is echoed; a generated one would differ.
    const headers = { 'X-Request-Id': 'compare-1', ...asked };
    const a = await rawRequest(`${fast.base}${url}`, headers, method);
    const b = await rawRequest(`${slow.base}${url}`, headers, method);
    return [comparable(a), comparable(b), a] as const;
  }

  describe.each([
    ['no Accept-Encoding', {}],
    ['Accept-Encoding: gzip, deflate, br', { 'Accept-Encoding': 'gzip, deflate, br' }],
  ])('with %s', (_name, encoding) => {
    it.each(URLS)('answers %s the same as Express, for 200, HEAD and 304, rate limit headers included', async (url) => {
      // The first request renders and caches the answer on both apps; the next ones are hits.
      const [firstFast, firstSlow] = await both(url, encoding);
      expect(firstFast).toEqual(firstSlow);
      const routed = vi.spyOn(fast.app.router as unknown as { handle(...args: unknown[]): void }, 'handle');
      try {
        const [got, expected, raw] = await both(url, encoding);
        expect(got.status).toBe(200);
        expect(got).toEqual(expected);
        expect(got.headers.map(([name]) => name)).toEqual(
          expect.arrayContaining(['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'ETag', 'Vary', 'Content-Security-Policy']),
        );

        const [head, expectedHead] = await both(url, encoding, 'HEAD');
        expect(head).toEqual(expectedHead);
        expect(head.body).toBe('');

        const [notModified, expectedNotModified] = await both(url, { ...encoding, 'If-None-Match': String(raw.headers.etag) });
        expect(notModified.status).toBe(304);
        expect(notModified).toEqual(expectedNotModified);
        // The app with the fast path never routed these three.
        expect(routed).not.toHaveBeenCalled();
      } finally {
        routed.mockRestore();
      }
    });
  });

  it('leaves misses, errors, downloads and the docs to Express, which answers them as before', async () => {
    for (const url of [
      '/budget/api/totals/?year=1999',
      '/budget/api/totals/?years=2020',
      '/budget/api/deficit/?format=csv',
      '/budget/api/',
      '/nowhere',
    ]) {
      const [got, expected] = await both(url);
      expect(got).toEqual(expected);
    }
  });
});

/** Requests written on one connection at once (HTTP/1.1 pipelining); the answers as they came, in order. */
async function pipelined(base: string, paths: string[]): Promise<{ status: number; id: string; body: string }[]> {
  const { hostname, port } = new URL(base);
  const socket = connect(Number(port), hostname);
  const requests = paths.map((path, i) => {
    const last = i === paths.length - 1;
    return `GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nX-Request-Id: asked-${i}\r\n${last ? 'Connection: close\r\n' : ''}\r\n`;
  });
  socket.end(requests.join(''));
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  let wire = Buffer.concat(chunks);
  const answers: { status: number; id: string; body: string }[] = [];
  while (wire.length > 0) {
    const end = wire.indexOf('\r\n\r\n');
    const head = wire.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1]);
    answers.push({
      status: Number(head.slice(9, 12)),
      id: /\r\nx-request-id: (\S+)/i.exec(head)?.[1] ?? '',
      body: wire.subarray(end + 4, end + 4 + length).toString(),
    });
    wire = wire.subarray(end + 4 + length);
  }
  return answers;
}

describe('cached answers among other requests on one connection', () => {
  it('are sent in the order the requests were asked, before and after misses and errors', async () => {
    await withServers('1000', [true, true], async (served, other) => {
      const hit = '/budget/api/totals/?year=2023';
      const otherHit = '/budget/api/deficit/';
      const miss = '/budget/api/organization/stats/?year=2024';
      const expected = await Promise.all([hit, otherHit, miss].map(async (url) => (await rawRequest(`${other.base}${url}`)).body.toString()));
      // Only the two hits are in the cache of the server asked.
      for (const url of [hit, otherHit]) await rawRequest(`${served.base}${url}`);

      const answers = await pipelined(served.base, [hit, miss, otherHit, '/nowhere', hit]);
      expect(answers.map((a) => [a.id, a.status])).toEqual([
        ['asked-0', 200],
        ['asked-1', 200],
        ['asked-2', 200],
        ['asked-3', 404],
        ['asked-4', 200],
      ]);
      expect([answers[0]!.body, answers[1]!.body, answers[2]!.body, answers[4]!.body]).toEqual([expected[0], expected[2], expected[1], expected[0]]);
    });
  });
});

describe('the rate limit on the fast path', () => {
  it('counts cached answers and refuses past the limit exactly as Express does', async () => {
    await withServers('3', [true, false], async (fast, slow) => {
      const url = '/budget/api/totals/?year=2023';
      for (let i = 0; i < 4; i++) {
        const a = comparable(await rawRequest(`${fast.base}${url}`, { 'X-Request-Id': `limit-${i}` }));
        const b = comparable(await rawRequest(`${slow.base}${url}`, { 'X-Request-Id': `limit-${i}` }));
        expect(a).toEqual(b);
        expect(a.status).toBe(i < 3 ? 200 : 429);
        expect(a.headers.find(([name]) => name === 'RateLimit')?.[1]).toBe(`"3-in-1min"; r=${Math.max(0, 2 - i)}; t=60`);
      }
    });
  });
});

describe('a cached answer that cannot be written', () => {
  it('is answered by the error handler, and the answers of its turn are sent as usual', async () => {
    const app = express();
    const good = render(Buffer.from('{"ok":true}'), { contentType: 'application/json', cacheControl: 'no-store' });
    // node refuses to write a header value with a line break (writeHead throws).
    const unwritable = render(Buffer.from('{}'), { contentType: 'application/json', cacheControl: 'no-store', headers: { 'X-Broken': 'a\nb' } });
    answerCachedFirst(app, [], errorHandler(), (_method, url) => (url === '/unwritable' ? unwritable : url === '/good' ? good : undefined));
    const { base, stop } = await listen(app);
    try {
      // Pipelined in one write: both are handled in one turn, so written in one burst.
      const answers = await pipelined(base, ['/unwritable', '/good']);
      expect(answers.map((a) => a.status)).toEqual([500, 200]);
      expect(answers[1]!.body).toBe('{"ok":true}');
    } finally {
      await stop();
    }
  });
});
