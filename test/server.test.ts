/**
 * The process itself (README.md#configuration): fail fast on bad configuration or a bad drop, shut
 * down gracefully on SIGTERM/SIGINT, finishing in-flight requests, and reload the drop on SIGHUP
 * or when the DATA_DIR symlink is re-pointed (docs/data-drops.md#reloading).
 */
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type Config } from '../src/config.js';
import { small } from './fixtures/small.js';
import { writeDrop } from './helpers/drop.js';
import { listening, start } from './helpers/server.js';
import { flipSymlink as flip } from './helpers/symlink.js';

describe('startup', () => {
  it('stops with one clear line and a non-zero code on a non-numeric PORT', async () => {
    const { code, stderr } = await start({ PORT: 'eighty' }).exit;
    expect(code).not.toBe(0);
    expect(stderr.trim().split('\n')).toEqual(['budget-api: invalid configuration: PORT="eighty" must be an integer between 0 and 65535']);
  });
  it('stops with one clear line on a LOG_LEVEL pino does not know, not its stack trace', async () => {
    const { code, stderr } = await start({ LOG_LEVEL: 'loud' }).exit;
    expect(code).not.toBe(0);
    expect(stderr.trim().split('\n')).toEqual([
      'budget-api: invalid configuration: LOG_LEVEL="loud" must be one of fatal, error, warn, info, debug, trace, silent',
    ]);
  });
  it('takes an empty LOG_LEVEL for unset, as every variable', async () => {
    const server = start({ LOG_LEVEL: '' });
    await listening(server);
    server.child.kill('SIGTERM');
    expect((await server.exit).code).toBe(0);
  });
  it('never writes the password of a mistyped RATE_LIMIT_REDIS_URL to stderr', async () => {
    const { code, stderr } = await start({ RATE_LIMIT_REDIS_URL: 'redis//default:S3cretPass@redis:6379' }).exit;
    expect(code).not.toBe(0);
    expect(stderr).not.toContain('S3cretPass');
    expect(stderr.trim().split('\n')).toEqual([
      'budget-api: invalid configuration: RATE_LIMIT_REDIS_URL="redis:6379" must be a redis:// or rediss:// URL',
    ]);
  });
  it("takes TRUST_PROXY=true, Express's own value, and warns at startup that it lets a client choose its own address", async () => {
    const server = start({ TRUST_PROXY: 'true' });
    const port = await listening(server);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    server.child.kill('SIGTERM');
    const { code, stderr } = await server.exit;
    expect(code).toBe(0);
    expect(stderr).toMatch(/"level":40[^\n]*TRUST_PROXY=true believes every X-Forwarded-For: any client can choose its address/);
  });
  it("stops with one clear line on a QUEUE_WAIT_MS past Node's timers, which would run it as 1 ms", async () => {
    const { code, stderr } = await start({ QUEUE_WAIT_MS: '2147483648' }).exit;
    expect(code).not.toBe(0);
    expect(stderr.trim().split('\n')).toEqual([
      'budget-api: invalid configuration: QUEUE_WAIT_MS="2147483648" must be an integer from 1 to 2147483647 (milliseconds a query may wait for a connection; about 24.8 days at most, as Node\'s timers)',
    ]);
  });
  it.each([
    ['QUERY_TIMEOUT_MS', '2147483648', '2147483647'],
    ['EXPORT_STALL_MS', '2147483648', '2147483647'],
    ['EXPORT_MAX_SECONDS', '2147484', '2147483'],
    ['DATA_POLL_SECONDS', '2147484', '2147483'],
  ])("refuses %s=%s, a time past Node's timers, and takes %s", (name, over, most) => {
    expect(() => parseConfig({ [name]: over })).toThrow(
      new RegExp(`^invalid configuration: ${name}="${over}" must be an integer from [01] to ${most} `),
    );
    expect(parseConfig({ [name]: most })[name as keyof Config]).toBe(Number(most));
  });
  it('stops when DATA_DIR does not exist', async () => {
    const { code, stderr } = await start({ DATA_DIR: '/nonexistent/drop' }).exit;
    expect(code).not.toBe(0);
    expect(stderr).toContain('/nonexistent/drop');
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });
  it('stops on an invalid drop, naming the file, the rule and an offending row', async () => {
    const dir = await writeDrop({ ...small, deficit: [{ year: 1999, value: 5 }] });
    const { code, stderr } = await start({ DATA_DIR: dir }).exit;
    expect(code).not.toBe(0);
    expect(stderr.trim()).toBe('budget-api: deficit.parquet: every year must have a row in gdp.parquet; offending row: {"year":1999}');
  });
});

describe('warm-up', () => {
  it('runs first requests before it listens, leaving no trace a client could see: no log line, no export file, a full rate-limit budget', async () => {
    const exportFiles = mkdtempSync(path.join(tmpdir(), 'budget-exports-'));
    const server = start({ DATA_DIR: await writeDrop(small), RATE_LIMIT: '5', EXPORT_CACHE_DIR: exportFiles });
    const port = await listening(server);
    const res = await fetch(`http://127.0.0.1:${port}/budget/api/expenses/?format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit')).toMatch(/; r=4; /);
    await res.arrayBuffer();
    // The warm-up's own folder of export files is gone; the served one holds only the client's export.
    expect(existsSync(path.join(tmpdir(), `budget-warm-up-${server.child.pid}`))).toBe(false);
    server.child.kill('SIGTERM');
    const { code, stderr } = await server.exit;
    expect(code).toBe(0);
    const lines = stderr
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; requests?: number; path?: string });
    const messages = lines.map((line) => line.msg);
    expect(messages.indexOf('warmed up')).toBeGreaterThan(messages.indexOf('data drop loaded'));
    expect(messages.indexOf('warmed up')).toBeLessThan(messages.indexOf('listening'));
    expect(lines.find((line) => line.msg === 'warmed up')!.requests).toBeGreaterThan(20);
    expect(messages).not.toContain('warm-up requests failed');
    expect(lines.filter((line) => line.msg === 'request').map((line) => line.path)).toEqual(['/budget/api/expenses/']);
  });
});

describe('shutdown', () => {
  let dir: string;
  beforeAll(async () => {
    // Enough lines that the hierarchy query below is still running when the signal arrives.
    dir = await writeDrop({
      ...small,
      expenses: {
        sql: `SELECT i AS id, 2000 + i % 50 AS year, (i % 997)::DECIMAL(18,3) AS amount, [11, 12, 13, 20][i % 4 + 1] AS category_id,
                     1 + i % 3 AS organization_id, false AS complementary FROM range(1, 3000001) AS r(i)`,
      },
    });
  }, 120_000);
  afterAll(() => undefined);

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'on %s finishes the request in flight, then exits 0',
    async (signal) => {
      const server = start({ DATA_DIR: dir });
      const port = await listening(server);
      const inFlight = fetch(`http://127.0.0.1:${port}/budget/api/expenses/?hierarchy=true&limit=1000`);
      await new Promise((resolve) => setTimeout(resolve, 30));
      server.child.kill(signal);
      const res = await inFlight;
      expect(res.status).toBe(200);
      expect((await res.json()).count).toBe(75);
      const { code } = await server.exit;
      expect(code).toBe(0);
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    },
    60_000,
  );

  it('on SIGTERM writes the log line of every request answered before it, then exits 0', async () => {
    const server = start({ DATA_DIR: await writeDrop(small) });
    const port = await listening(server);
    // More lines than the log gathers before a write (4 KB), signalled well within its 200 ms.
    for (let i = 0; i < 60; i++) expect((await fetch(`http://127.0.0.1:${port}/budget/api/deficit/?year=${2016 + (i % 10)}`)).status).toBe(200);
    server.child.kill('SIGTERM');
    const { code, stderr } = await server.exit;
    expect(code).toBe(0);
    const requests = stderr.split('\n').filter((line) => line.includes('"msg":"request"'));
    expect(requests).toHaveLength(60);
  });

  it('writes no warning to its log while it sends full exports (Node warns past ten listeners on a response)', async () => {
    const server = start({ DATA_DIR: await writeDrop(small) });
    const port = await listening(server);
    for (const format of ['arrow', 'csv', 'parquet']) {
      expect((await fetch(`http://127.0.0.1:${port}/budget/api/expenses/?format=${format}&year=2023`)).status).toBe(200);
    }
    server.child.kill('SIGTERM');
    const { code, stderr } = await server.exit;
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/Warning/);
  });

  it('on SIGTERM answers /readyz with 503 at once, finishes a download still in flight, then exits 0', async () => {
    const server = start({ DATA_DIR: dir });
    const port = await listening(server);
    // Ten years of 60,000 lines as CSV (30 MB), held open by a client that does not read yet: more
    // than the sockets' buffers hold, so the response cannot be finished before the client reads.
    const download = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(`http://127.0.0.1:${port}/budget/api/expenses/?format=csv&year=2001..2010`, resolve).on('error', reject),
    );
    download.pause();
    expect(download.statusCode).toBe(200);

    const stopping = new Promise<void>((resolve) => server.child.stderr!.on('data', (chunk) => String(chunk).includes('shutting down') && resolve()));
    server.child.kill('SIGTERM');
    await stopping;
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({
      status: 503,
      code: 'data_unavailable',
      detail: 'no data drop is served right now (none is loaded yet, or the server is shutting down); try again shortly',
    });
    // Still alive, and every other request is still answered while the download runs.
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

    let text = '';
    download.setEncoding('utf8');
    download.on('data', (chunk) => (text += chunk));
    download.resume();
    await new Promise((resolve) => download.on('end', resolve));
    expect(text.trimEnd().split('\r\n')).toHaveLength(600_001);
    const { code } = await server.exit;
    expect(code).toBe(0);
  }, 60_000);
});

describe('reload of the running process', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'budget-server-reload-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const children: ChildProcess[] = [];
  afterAll(() => children.forEach((child) => child.kill('SIGTERM')));

  const metaOf = async (port: number) => (await fetch(`http://127.0.0.1:${port}/budget/api/meta/`)).json();
  async function versionEventually(port: number, version: string, ms = 10_000): Promise<string> {
    const deadline = Date.now() + ms;
    let seen = '';
    while (Date.now() < deadline) {
      seen = (await metaOf(port)).version;
      if (seen === version) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return seen;
  }
  async function serve(dataDir: string): Promise<{ child: ChildProcess; port: number }> {
    const server = start({ DATA_DIR: dataDir });
    children.push(server.child);
    return { child: server.child, port: await listening(server) };
  }

  it('reloads the drop on SIGHUP', async () => {
    // DATA_DIR sits below a symlink that is re-pointed: a change the file watch cannot see (it
    // watches DATA_DIR and its parent), so only the signal can make the server notice it.
    for (const [generation, version] of [
      ['gen1', 'A'],
      ['gen2', 'B'],
    ] as const) {
      mkdirSync(path.join(root, generation, 'drop'), { recursive: true });
      const data = version === 'A' ? small : { ...small, deficit: [] };
      await writeDrop(data, { dir: path.join(root, generation, 'drop'), version });
    }
    symlinkSync(path.join(root, 'gen1'), path.join(root, 'generation'));
    const { child, port } = await serve(path.join(root, 'generation', 'drop'));
    expect((await metaOf(port)).version).toBe('A');

    flip(path.join(root, 'generation'), path.join(root, 'gen2'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await metaOf(port)).version).toBe('A');

    child.kill('SIGHUP');
    expect(await versionEventually(port, 'B')).toBe('B');
    expect((await metaOf(port)).last_reload).toMatchObject({ status: 'ok', reason: null, version: 'B' });
    expect(await (await fetch(`http://127.0.0.1:${port}/budget/api/deficit/`)).json()).toEqual([]);
  }, 60_000);

  it('serves the new drop when the DATA_DIR symlink is flipped, and keeps watching the new target', async () => {
    const dropA = await writeDrop(small, { version: 'A' });
    const dropB = await writeDrop({ ...small, deficit: [] }, { version: 'B' });
    const link = path.join(root, 'current');
    symlinkSync(dropA, link);
    const { port } = await serve(link);
    expect((await metaOf(port)).version).toBe('A');

    flip(link, dropB);
    expect(await versionEventually(port, 'B')).toBe('B');
    expect(await (await fetch(`http://127.0.0.1:${port}/budget/api/deficit/`)).json()).toEqual([]);

    // A drop rewritten in place in the new target is noticed too: the watch followed the flip.
    await writeDrop(small, { dir: dropB, version: 'B, rewritten' });
    expect(await versionEventually(port, 'B, rewritten')).toBe('B, rewritten');
    expect(await (await fetch(`http://127.0.0.1:${port}/budget/api/deficit/`)).json()).toHaveLength(2);
  }, 60_000);
});
