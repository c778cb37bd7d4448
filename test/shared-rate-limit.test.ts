/**
 * RATE_LIMIT_REDIS_URL: replicas keep their rate-limit counts in one Redis, so a client has one
 * budget whichever replica answers; without Redis each replica counts on its own and says so.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../src/lib/log.js';
import { small } from './fixtures/small.js';
import { appServing, type TestApp } from './helpers/app.js';
import { writeDrop } from './helpers/drop.js';
import { eventually, redisMissing, startRedis, type RedisServer } from './helpers/redis.js';
import { freePort } from './helpers/server.js';

if (redisMissing) console.warn(`skipping the shared rate limit tests: ${redisMissing}`);

describe.skipIf(redisMissing)('with RATE_LIMIT_REDIS_URL and RATE_LIMIT=5, two replicas', () => {
  let redis: RedisServer | undefined;
  let port: number;
  let a: TestApp;
  let b: TestApp;

  // /meta/ is rate limited too: each look at it comes from another client (TRUST_PROXY=loopback
  // takes the address from X-Forwarded-For), so that looking does not spend the budget under test.
  let looker = 0;
  const rateLimit = async (t: TestApp) =>
    (
      await request(t.app)
        .get('/budget/api/meta/')
        .set('X-Forwarded-For', `198.51.100.${++looker % 250}`)
    ).body.rate_limit;
  const connected = (t: TestApp) => async () => (await rateLimit(t)).redis === 'connected';
  /** The request's status and the remaining count from its RateLimit header. */
  const hit = async (t: TestApp) => {
    const res = await request(t.app).get('/budget/api/deficit/');
    return `${res.status} r=${/r=(\d+)/.exec(res.headers.ratelimit ?? '')?.[1]}`;
  };

  beforeAll(async () => {
    // Both replicas start while Redis is down: they must serve all the same.
    port = await freePort();
    const dir = await writeDrop(small);
    const env = { RATE_LIMIT: '5', TRUST_PROXY: 'loopback', RATE_LIMIT_REDIS_URL: `redis://127.0.0.1:${port}` };
    a = await appServing(dir, env);
    b = await appServing(dir, env);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it('serve on their own counts while Redis is unreachable at start, and /meta/ says so', async () => {
    expect(await rateLimit(a)).toEqual({ limit: 5, store: 'memory', redis: 'unavailable' });
    expect((await request(a.app).get('/budget/api/totals/')).status).toBe(200);
  });

  it('move their counts to Redis once it is up, and /meta/ says so', async () => {
    redis = await startRedis(port);
    await eventually(connected(a), 10_000, 'replica A to connect');
    await eventually(connected(b), 10_000, 'replica B to connect');
    expect(await rateLimit(b)).toEqual({ limit: 5, store: 'redis', redis: 'connected' });
  });

  it('refuse a client its 6th request in the minute whichever replica it reaches', async () => {
    const answers = [await hit(a), await hit(b), await hit(a), await hit(b), await hit(a), await hit(b), await hit(a)];
    expect(answers).toEqual(['200 r=4', '200 r=3', '200 r=2', '200 r=1', '200 r=0', '429 r=0', '429 r=0']);
  });

  it('keep serving on per-replica counts when Redis stops mid-way', async () => {
    await redis!.stop();
    // The first request after the stop may be the one that finds Redis gone: it is still answered.
    const first = await request(a.app).get('/budget/api/totals/');
    expect(first.status).toBe(200);
    await eventually(async () => (await rateLimit(a)).redis === 'unavailable', 10_000, 'replica A to notice');
    expect(await rateLimit(a)).toEqual({ limit: 5, store: 'memory', redis: 'unavailable' });
    // Each replica now counts alone, from what it counted in its own memory before Redis came:
    // A had answered this client once (the first test) and once just above; B never had.
    await eventually(async () => (await rateLimit(b)).redis === 'unavailable', 10_000, 'replica B to notice');
    expect([await hit(a), await hit(b)]).toEqual(['200 r=2', '200 r=4']);
  });

  it('share one budget again once Redis is back', async () => {
    redis = await startRedis(port);
    await eventually(connected(a), 10_000, 'replica A to reconnect');
    await eventually(connected(b), 10_000, 'replica B to reconnect');
    // The restarted Redis kept nothing (no persistence): the client starts a fresh shared window.
    expect([await hit(b), await hit(a), await hit(b)]).toEqual(['200 r=4', '200 r=3', '200 r=2']);
  });
});

describe.skipIf(redisMissing)('with RATE_LIMIT_REDIS_URL, a Redis that stalls without closing its connection', () => {
  let redis: RedisServer;
  let t: TestApp;
  const rateLimit = async () => (await request(t.app).get('/budget/api/meta/')).body.rate_limit;

  beforeAll(async () => {
    redis = await startRedis();
    t = await appServing(await writeDrop(small), { RATE_LIMIT: '1000', RATE_LIMIT_REDIS_URL: redis.url });
    await eventually(async () => (await rateLimit()).redis === 'connected', 10_000, 'the replica to connect');
  });
  afterAll(async () => {
    await t?.close();
    await redis?.stop();
  });

  it('at start, answering nothing, is said in the log within 5 s, and the replica serves', async () => {
    const silent = await startRedis();
    silent.pause();
    const warned = vi.spyOn(logger, 'warn');
    const started = await appServing(await writeDrop(small), { RATE_LIMIT: '1000', RATE_LIMIT_REDIS_URL: silent.url });
    try {
      expect((await request(started.app).get('/budget/api/totals/')).status).toBe(200);
      await eventually(
        async () =>
          warned.mock.calls.some((call) => call.at(-1) === 'Redis is unavailable: rate limit counts are kept in this process until it returns'),
        8_000,
        'the log line',
      );
    } finally {
      warned.mockRestore();
      await started.close();
      await silent.stop();
    }
  }, 20_000);
  it('is left for the counts in memory, said in the log and /meta/, and taken back once it answers again', async () => {
    // The log's own calls, watched (and still made).
    const warned = vi.spyOn(logger, 'warn');
    redis.pause();
    // A count waits at most 500 ms for Redis: the request is answered all the same.
    expect((await request(t.app).get('/budget/api/totals/')).status).toBe(200);
    expect(await rateLimit()).toMatchObject({ store: 'memory', redis: 'unavailable' });
    expect(warned.mock.calls.map((call) => call.at(-1))).toContain(
      'Redis is unavailable: rate limit counts are kept in this process until it returns',
    );
    warned.mockRestore();
    redis.resume();
    await eventually(async () => (await rateLimit()).redis === 'connected', 10_000, 'the replica to go back to Redis');
  });
});
