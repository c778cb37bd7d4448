/** Rate limiting (docs/api.md#rate-limiting) with express-rate-limit: RATE_LIMIT requests per minute per client. */
import express from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { small } from './fixtures/small.js';
import { appFor, type TestApp } from './helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await appFor(small, { RATE_LIMIT: '3' });
});
afterAll(() => t.close());

describe('with RATE_LIMIT=3', () => {
  it('sends RateLimit and RateLimit-Policy headers, then a 429 problem with Retry-After', async () => {
    const agent = request(t.app);
    const first = await agent.get('/budget/api/totals/');
    expect(first.status).toBe(200);
    // pk: the first 12 hex digits of SHA-256("ip:127.0.0.1") (the budget's key), in base64.
    expect(first.headers['ratelimit-policy']).toBe('"3-in-1min"; q=3; w=60; pk=:NTA4Y2MwZmUyNjE4:');
    expect(first.headers.ratelimit).toMatch(/^"3-in-1min"; r=2; t=\d+/);
    await agent.get('/budget/api/totals/');
    await agent.get('/budget/api/totals/');
    const limited = await agent.get('/budget/api/deficit/');
    expect(limited.status).toBe(429);
    expect(limited.headers['content-type']).toBe('application/problem+json');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['access-control-allow-origin']).toBe('*');
    expect(limited.body).toMatchObject({ status: 429, code: 'rate_limited', title: 'Too Many Requests' });
  });

  it('never limits /healthz or /readyz, with or without the trailing slash', async () => {
    for (let i = 0; i < 5; i++) {
      for (const path of ['/healthz', '/readyz', '/healthz/', '/readyz/']) expect((await request(t.app).get(path)).status, path).toBe(200);
    }
  });

  it('never limits CORS preflights, nor counts them, even once the client is over its limit', async () => {
    const own = await appFor(small, { RATE_LIMIT: '2' });
    try {
      const agent = request(own.app);
      const preflights = [];
      for (let i = 0; i < 3; i++) preflights.push(await agent.options('/budget/api/totals/').set('Access-Control-Request-Method', 'GET'));
      expect(preflights.map((res) => res.status)).toEqual([204, 204, 204]);
      // A request not counted carries no RateLimit headers, as /healthz.
      expect(preflights.map((res) => res.headers.ratelimit)).toEqual([undefined, undefined, undefined]);
      // The preflights took nothing from the client's budget: its two requests are answered.
      expect((await agent.get('/budget/api/totals/')).headers.ratelimit).toMatch(/^"2-in-1min"; r=1;/);
      expect((await agent.get('/budget/api/totals/')).status).toBe(200);
      expect((await agent.get('/budget/api/totals/')).status).toBe(429);
      // Over the limit, a browser's preflight still passes, so that its page can read the 429 that follows.
      expect((await agent.options('/budget/api/totals/').set('Access-Control-Request-Method', 'GET')).status).toBe(204);
    } finally {
      await own.close();
    }
  });
});

describe('the RateLimit, RateLimit-Policy and Retry-After headers', () => {
  it('are byte for byte those express-rate-limit writes itself with standardHeaders draft-8, up to the 429 and through new windows', async () => {
    // RateLimit's t= counts seconds to the window's end: with the clock still, both say the same.
    vi.useFakeTimers({ toFake: ['Date'] });
    const ours = await appFor(small, { RATE_LIMIT: '2' });
    try {
      const reference = express();
      reference.use(
        rateLimit({
          windowMs: 60_000,
          limit: 2,
          standardHeaders: 'draft-8',
          legacyHeaders: false,
          identifier: '2-in-1min',
          keyGenerator: (req) => `ip:${ipKeyGenerator(req.socket.remoteAddress!)}`,
        }),
      );
      reference.get('/budget/api/totals/', (_req, res) => res.json([]));
      const headers = (res: request.Response) => [res.status, res.headers.ratelimit, res.headers['ratelimit-policy'], res.headers['retry-after']];
      const compare = async (times: number) => {
        for (let i = 0; i < times; i++) {
          const mine = await request(ours.app).get('/budget/api/totals/');
          const theirs = await request(reference).get('/budget/api/totals/');
          expect(headers(mine)).toEqual(headers(theirs));
        }
      };
      await compare(3);
      // Into the same minute, then past its end: a new window begins for both, and it ends too.
      vi.setSystemTime(Date.now() + 30_000);
      await compare(1);
      vi.setSystemTime(Date.now() + 31_000);
      await compare(3);
      vi.setSystemTime(Date.now() + 125_000);
      await compare(1);
    } finally {
      vi.useRealTimers();
      await ours.close();
    }
  });
});

describe('with RATE_LIMIT=0', () => {
  it('does not limit at all, nor send RateLimit headers', async () => {
    const open = await appFor(small, { RATE_LIMIT: '0' });
    try {
      for (let i = 0; i < 10; i++) expect((await request(open.app).get('/budget/api/deficit/')).status).toBe(200);
      expect((await request(open.app).get('/budget/api/deficit/')).headers.ratelimit).toBeUndefined();
    } finally {
      open.close();
    }
  });
});

describe('whose budget a request counts against', () => {
  it('counts every request from one address together, whatever X-Forwarded-For says, when no proxy is trusted', async () => {
    const t1 = await appFor(small, { RATE_LIMIT: '2' });
    try {
      await request(t1.app).get('/budget/api/totals/').set('X-Forwarded-For', '203.0.113.1');
      const second = await request(t1.app).get('/budget/api/totals/').set('X-Forwarded-For', '203.0.113.2');
      expect(second.headers.ratelimit).toMatch(/^"2-in-1min"; r=0;/);
      expect((await request(t1.app).get('/budget/api/totals/').set('X-Forwarded-For', '203.0.113.3')).status).toBe(429);
    } finally {
      t1.close();
    }
  });
  it('gives each client behind a trusted proxy its own budget (TRUST_PROXY names the proxy)', async () => {
    const t1 = await appFor(small, { RATE_LIMIT: '2', TRUST_PROXY: '127.0.0.1' });
    try {
      for (const client of ['203.0.113.1', '203.0.113.2', '2001:db8::1']) {
        const res = await request(t1.app).get('/budget/api/totals/').set('X-Forwarded-For', client);
        expect(res.headers.ratelimit).toMatch(/^"2-in-1min"; r=1;/);
      }
      // Two IPv6 addresses of one /56 are one client.
      const same = await request(t1.app).get('/budget/api/totals/').set('X-Forwarded-For', '2001:db8:0:ff::2');
      expect(same.headers.ratelimit).toMatch(/^"2-in-1min"; r=0;/);
    } finally {
      t1.close();
    }
  });
  it("takes TRUST_PROXY=true as Express does: the left-most X-Forwarded-For address is the client's", async () => {
    const t1 = await appFor(small, { RATE_LIMIT: '1', TRUST_PROXY: 'true' });
    try {
      for (const client of ['203.0.113.1', '203.0.113.2']) {
        expect((await request(t1.app).get('/budget/api/totals/').set('X-Forwarded-For', `${client}, 10.0.0.1`)).status).toBe(200);
      }
      expect((await request(t1.app).get('/budget/api/totals/').set('X-Forwarded-For', '203.0.113.1')).status).toBe(429);
    } finally {
      t1.close();
    }
  });
  it('believes X-Forwarded-For only from the proxies TRUST_PROXY names', async () => {
    // The request comes from 127.0.0.1, which is not the proxy named: its header is ignored.
    const t1 = await appFor(small, { RATE_LIMIT: '2', TRUST_PROXY: '10.0.0.0/8, fd00::/8' });
    try {
      await request(t1.app).get('/budget/api/totals/').set('X-Forwarded-For', '203.0.113.1');
      expect((await request(t1.app).get('/budget/api/totals/').set('X-Forwarded-For', '203.0.113.2')).headers.ratelimit).toMatch(/r=0;/);
      expect((await request(t1.app).get('/budget/api/totals/').set('X-Forwarded-For', '203.0.113.3')).status).toBe(429);
    } finally {
      t1.close();
    }
  });
  it('takes the address the trusted proxy saw, not what the client wrote before it, from an appending proxy', async () => {
    const t1 = await appFor(small, { RATE_LIMIT: '2', TRUST_PROXY: 'loopback' });
    try {
      // An appending proxy (nginx's $proxy_add_x_forwarded_for) adds the address it saw, 198.51.100.7.
      for (const forged of ['203.0.113.1', '203.0.113.2']) {
        await request(t1.app).get('/budget/api/totals/').set('X-Forwarded-For', `${forged}, 198.51.100.7`);
      }
      expect((await request(t1.app).get('/budget/api/totals/').set('X-Forwarded-For', '203.0.113.3, 198.51.100.7')).status).toBe(429);
    } finally {
      t1.close();
    }
  });
});
