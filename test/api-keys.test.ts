/**
 * API keys (API_KEYS_FILE, X-API-Key): a known key has its own budget and limit, named in
 * RateLimit-Policy; an unknown or malformed key is refused with a 401; keys never reach a log.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { appServing, type TestApp } from './helpers/app.js';
import { cli } from './helpers/cli.js';
import { writeDrop } from './helpers/drop.js';
import { listening, start } from './helpers/server.js';

const root = mkdtempSync(path.join(tmpdir(), 'budget-keys-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('budget-data keys add', () => {
  it('prints a new key once and stores only its hash, name and limit', async () => {
    const file = path.join(root, 'cli-keys.json');
    const added = await cli('keys', 'add', 'newsroom', '--limit', '6000', '--file', file);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^bdk_[A-Za-z0-9_-]{43}\n$/);
    const key = added.stdout.trim();
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(key);
    expect(JSON.parse(text).keys).toEqual([{ name: 'newsroom', sha256: sha256(key), limit: 6000, created_at: expect.any(String) }]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses a second key of the same name, and a missing --limit, with exit code 2', async () => {
    const file = path.join(root, 'twice.json');
    expect((await cli('keys', 'add', 'lab', '--limit', '10', '--file', file)).code).toBe(0);
    const again = await cli('keys', 'add', 'lab', '--limit', '10', '--file', file);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${file} already has a key named "lab"`);
    const noLimit = await cli('keys', 'add', 'other', '--file', file);
    expect(noLimit.code).toBe(2);
    expect(noLimit.stderr).toContain('keys add takes --limit N');
  });

  it('fails with exit code 1 on a keys file that is not a keys file: the command line was right', async () => {
    const file = path.join(root, 'broken.json');
    writeFileSync(file, '{"keys": [oops');
    const added = await cli('keys', 'add', 'lab', '--limit', '10', '--file', file);
    expect(added.code).toBe(1);
    expect(added.stderr).toContain(`${file} is not JSON`);
    expect(readFileSync(file, 'utf8')).toBe('{"keys": [oops');
  });
});

describe('with API_KEYS_FILE and RATE_LIMIT=5', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    const file = path.join(root, 'app-keys.json');
    const added = await cli('keys', 'add', 'newsroom', '--limit', '3', '--file', file);
    key = added.stdout.trim();
    t = await appServing(await writeDrop(small), { RATE_LIMIT: '5', API_KEYS_FILE: file });
  });
  afterAll(() => t.close());

  it('gives a known key its own limit, named in RateLimit-Policy, apart from the anonymous budget', async () => {
    const keyed = [];
    for (let i = 0; i < 4; i++) keyed.push(await request(t.app).get('/budget/api/deficit/').set('X-API-Key', key));
    expect(keyed.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    // pk: the first 12 hex digits of SHA-256("key:newsroom") (the key's budget), in base64.
    expect(keyed[0]!.headers['ratelimit-policy']).toBe('"newsroom"; q=3; w=60; pk=:ODlhM2ZlNjI2MjM4:');
    expect(keyed[0]!.headers.ratelimit).toMatch(/^"newsroom"; r=2; t=\d+/);
    expect(keyed[3]!.body).toMatchObject({ code: 'rate_limited', detail: expect.stringContaining('the limit for this API key is 3 per minute') });
    // The same client without its key still has the anonymous budget of 5.
    const anonymous = await request(t.app).get('/budget/api/deficit/');
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers['ratelimit-policy']).toMatch(/^"5-in-1min"; q=5; w=60/);
  });

  it('answers an unknown key with a 401 problem, not the anonymous limit', async () => {
    const res = await request(t.app)
      .get('/budget/api/totals/')
      .set('X-API-Key', `bdk_${'A'.repeat(43)}`);
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.headers['www-authenticate']).toBe('ApiKey header="X-API-Key"');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.body).toEqual({
      type: 'about:blank',
      title: 'Unauthorized',
      status: 401,
      detail: 'X-API-Key is not a known key',
      code: 'unauthorized',
    });
  });

  it('answers a malformed key with a 401 problem', async () => {
    const res = await request(t.app).get('/budget/api/totals/').set('X-API-Key', 'short key');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'unauthorized', detail: expect.stringContaining('X-API-Key is malformed') });
  });

  it('asks no key of the health probes', async () => {
    expect((await request(t.app).get('/readyz').set('X-API-Key', 'nonsense')).status).toBe(200);
  });
});

describe('guessing keys', () => {
  it("counts each unknown or malformed key against the client's address, then answers 429", async () => {
    const file = path.join(root, 'guess-keys.json');
    await cli('keys', 'add', 'real', '--limit', '100', '--file', file);
    const g = await appServing(await writeDrop(small), { RATE_LIMIT: '3', API_KEYS_FILE: file });
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++) {
        const guess = i === 2 ? 'bad key' : `bdk_${String(i).repeat(43)}`;
        statuses.push((await request(g.app).get('/budget/api/totals/').set('X-API-Key', guess)).status);
      }
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      // The address's budget is the one spent: a request without a key is refused too.
      expect((await request(g.app).get('/budget/api/totals/')).status).toBe(429);
    } finally {
      await g.close();
    }
  });
});

describe('the server with API_KEYS_FILE', () => {
  it('re-reads the keys on SIGHUP, and never writes a key to its log', async () => {
    const file = path.join(root, 'server-keys.json');
    const first = (await cli('keys', 'add', 'first', '--limit', '100', '--file', file)).stdout.trim();
    const server = start({ DATA_DIR: await writeDrop(small), API_KEYS_FILE: file, RATE_LIMIT: '10' });
    try {
      const base = `http://127.0.0.1:${await listening(server)}`;
      const status = async (k: string) => (await fetch(`${base}/budget/api/deficit/`, { headers: { 'X-API-Key': k } })).status;
      const second = (await cli('keys', 'add', 'second', '--limit', '100', '--file', file)).stdout.trim();
      expect([await status(first), await status(second)]).toEqual([200, 401]);
      server.child.kill('SIGHUP');
      let after = 401;
      for (let i = 0; i < 100 && after === 401; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        after = await status(second);
      }
      expect(after).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
    }
    const { code, stderr } = await server.exit;
    expect(code).toBe(0);
    expect(stderr).toContain('"msg":"API keys reloaded"');
    expect(stderr).not.toContain('bdk_');
  });
});
