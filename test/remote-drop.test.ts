/**
 * DATA_URL: a drop published in object storage (s3://) or under an http(s):// base URL is
 * downloaded, checked and swapped in like a local reload; a failed, cut, or wrong download never
 * replaces the drop being served and is reported by /budget/api/meta/ as a rejected reload.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { loadDrop } from '../src/data/drop.js';
import { publishDrop } from '../src/tools/publish.js';
import { s3Client } from '../src/data/drop-source.js';
import { RemoteDrops } from '../src/data/remote.js';
import { Store } from '../src/data/store.js';
import { small } from './fixtures/small.js';
import { writeDrop, type DropOptions } from './helpers/drop.js';
import { startS3, startStatic, type S3Server, type StaticServer } from './helpers/remote.js';
import { freePort, listening, start } from './helpers/server.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const root = mkdtempSync(path.join(tmpdir(), 'budget-remote-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The small drop labelled `version`; `lines` keeps that many of its 6 expense lines. */
const drop = (version: string, lines = 6, options: DropOptions = {}) =>
  writeDrop({ ...small, expenses: (small.expenses as object[]).slice(0, lines) as never }, { ...options, version });

/** What /meta/ says about the drop served and the last reload. */
async function served(app: Express) {
  const { body } = await request(app).get('/budget/api/meta/');
  const { status: reload, reason, code, file } = body.last_reload;
  // /meta/ names files, never the URLs they come from (security review, finding 7).
  expect(JSON.stringify(body)).not.toMatch(/s3:\/\/|http:\/\/|127\.0\.0\.1/);
  return { version: body.version, expenses: body.files['expenses.parquet'].rows, reload, reason, ...(code ? { code, file } : {}) };
}

/** A server's drop, store and app, as server.ts sets them up for DATA_URL. */
async function serveRemote(dataUrl: string) {
  const store = new Store();
  const remote = new RemoteDrops({ dataUrl, store });
  store.swap(await loadDrop(await remote.download()));
  const app = createApp({ config: parseConfig({ RATE_LIMIT: '0', DATA_URL: dataUrl }), store });
  return { store, remote, app, close: async () => (await remote.close(), store.close()) };
}

function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: ROOT, env: { PATH: process.env.PATH, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('DATA_URL=s3://drops/budget/ on a real S3 protocol server', () => {
  let s3: S3Server & { directory: string };
  let env: Record<string, string>;
  let server: Awaited<ReturnType<typeof serveRemote>>;

  /** Uploads every file of `dir` as it is, unchecked, drop.json last. */
  async function upload(dir: string, skip: string[] = []) {
    const client = s3Client();
    for (const name of [...readdirSync(dir).filter((f) => f !== 'drop.json' && !skip.includes(f)), 'drop.json']) {
      await client.send(new PutObjectCommand({ Bucket: 'drops', Key: `budget/${name}`, Body: readFileSync(path.join(dir, name)) }));
    }
    client.destroy();
  }

  beforeAll(async () => {
    s3 = await startS3('drops');
    env = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL: s3.endpoint };
    Object.assign(process.env, env);
  });
  afterAll(async () => {
    await server?.close();
    await s3?.stop();
    for (const name of Object.keys(env ?? {})) delete process.env[name];
  });

  it('budget-data publish refuses an invalid drop and uploads nothing', async () => {
    const broken = await writeDrop({ ...small, deficit: [{ year: 1999, value: 5 }] }, { version: 'broken' });
    const published = await cli(env, 'publish', broken, 's3://drops/budget/');
    expect(published.code).toBe(1);
    expect(published.stdout).toContain('nothing was uploaded');
    expect(s3.written).toEqual([]);
  });

  it('budget-data publish lists every problem of an invalid drop, as validate does, and uploads nothing', async () => {
    const broken = await drop('two problems', 6, {
      manifest: (m) => {
        m.files['expenses.parquet']!.rows = 7;
        m.files['gdp.parquet']!.sha256 = 'ab'.repeat(32);
      },
    });
    const gdp = createHash('sha256')
      .update(readFileSync(path.join(broken, 'gdp.parquet')))
      .digest('hex');
    const published = await cli(env, 'publish', broken, 's3://drops/budget/');
    expect(published.code).toBe(1);
    expect(published.stdout.split('\n')).toEqual([
      `invalid: 2 problems in ${broken}`,
      'expenses.parquet: row count must match drop.json (manifest 7, file 6)',
      `gdp.parquet: sha256 must match drop.json (manifest ${'ab'.repeat(32)}, file ${gdp})`,
      'nothing was uploaded',
      '',
    ]);
    expect(s3.written).toEqual([]);
  });

  it('budget-data publish uploads a valid drop with drop.json last', async () => {
    const dir = await drop('v1');
    const published = await cli(env, 'publish', dir, 's3://drops/budget/');
    expect(published.code).toBe(0);
    const files = Object.keys(JSON.parse(readFileSync(path.join(dir, 'drop.json'), 'utf8')).files).map((f) => `budget/${f}`);
    expect(published.stdout).toMatch(new RegExp(`^published "v1" to s3://drops/budget/: ${files.length + 1} files, \\d+ bytes in [\\d.]+ s\\n$`));
    // Its kept copy under releases/ first (docs/deploying.md#releases), then the drop servers read, drop.json last.
    const kept = s3.written.slice(0, files.length + 2);
    expect(kept.every((key) => key.startsWith('budget/releases/v1-'))).toBe(true);
    expect(s3.written.slice(files.length + 2)).toEqual([...files, 'budget/drop.json']);
  });

  it('budget-data publish refuses a version already published with other content, and uploads nothing', async () => {
    const before = s3.written.length;
    const published = await cli(env, 'publish', await drop('v1', 3), 's3://drops/budget/');
    expect(published.code).toBe(1);
    expect(published.stdout).toContain('"v1" is already published at s3://drops/budget/releases/');
    expect(s3.written).toHaveLength(before);
  });

  it('budget-data diff reads the published drop from s3, as a server does', async () => {
    const compared = await cli(env, 'diff', await drop('v1, three lines', 3), 's3://drops/budget/', '--json');
    expect(compared.stderr).not.toContain('diff failed');
    expect(compared.code).toBe(1);
    const diff = JSON.parse(compared.stdout) as { after: { version: string }; tables: { table: string; added: number }[] };
    expect(diff.after.version).toBe('v1');
    expect(diff.tables.find((t) => t.table === 'expenses')?.added).toBe(3);
  });

  it('serves the published drop', async () => {
    server = await serveRemote('s3://drops/budget/');
    expect(await served(server.app)).toMatchObject({ version: 'v1', expenses: 6 });
    expect((await request(server.app).get('/budget/api/totals/?year=2023')).body).toEqual([
      expect.objectContaining({ year: 2023, total_expenses: 350.35, total_resources: 1600.499, balance: 1250.149 }),
    ]);
  });

  it('swaps in a newly published drop when it looks', async () => {
    await publishDrop(await drop('v2', 5), 's3://drops/budget/');
    await server.remote.check('SIGHUP');
    expect(await served(server.app)).toEqual({ version: 'v2', expenses: 5, reload: 'ok', reason: null });
  });

  it('does nothing when drop.json has not changed', async () => {
    const before = (await request(server.app).get('/budget/api/meta/')).body.last_reload;
    await server.remote.check('poll');
    expect((await request(server.app).get('/budget/api/meta/')).body.last_reload).toEqual(before);
  });

  it('keeps serving, and reports it with the version refused, when a file does not match its sha256', async () => {
    const bad = await drop('v3', 4, { manifest: (m) => void (m.files['deficit.parquet']!.sha256 = '0'.repeat(64)) });
    await upload(bad);
    await server.remote.check('SIGHUP');
    const now = await served(server.app);
    expect(now).toMatchObject({ version: 'v2', expenses: 5, reload: 'rejected' });
    expect(now).toMatchObject({ code: 'download_failed', file: 'deficit.parquet' });
    expect(now.reason).toMatch(/^deficit\.parquet: sha256 must match drop\.json \(manifest 0{64}, downloaded [0-9a-f]{64}\)$/);
    // As a rejected reload does (docs/api.md, last_reload): the version refused, and the problem.
    const { body } = await request(server.app).get('/budget/api/meta/');
    expect(body.last_reload).toMatchObject({ rejected_version: 'v3', problems: [now.reason] });
  });

  it('keeps serving, and reports it, when a listed file is missing', async () => {
    await upload(await drop('v4', 4));
    await s3Client().send(new DeleteObjectCommand({ Bucket: 'drops', Key: 'budget/gdp.parquet' }));
    await server.remote.check('SIGHUP');
    expect(await served(server.app)).toEqual({
      version: 'v2',
      expenses: 5,
      reload: 'rejected',
      reason: 'gdp.parquet: could not be downloaded (NoSuchKey)',
      code: 'download_failed',
      file: 'gdp.parquet',
    });
  });

  it('keeps serving, and reports it, when the downloaded drop breaks a rule', async () => {
    const invalid = await writeDrop({ ...small, deficit: [{ year: 1999, value: 5 }] }, { version: 'v5-invalid' });
    await upload(invalid);
    await server.remote.check('SIGHUP');
    expect(await served(server.app)).toMatchObject({
      version: 'v2',
      reload: 'rejected',
      reason: 'deficit.parquet: every year must have a row in gdp.parquet; offending row: {"year":1999}',
    });
  });

  it('keeps serving, and reports it, while the store is down; then takes the drop once it is back', async () => {
    await s3.stop();
    await server.remote.check('poll');
    const down = await served(server.app);
    expect(down).toMatchObject({ version: 'v2', reload: 'rejected' });
    expect(down).toMatchObject({ reason: 'drop.json: could not be downloaded (ECONNREFUSED)', code: 'download_failed', file: 'drop.json' });
    expect((await request(server.app).get('/budget/api/deficit/')).status).toBe(200);

    s3 = await startS3('drops', s3.directory, s3.port);
    await upload(await drop('v6', 3));
    await server.remote.check('poll');
    expect(await served(server.app)).toEqual({ version: 'v6', expenses: 3, reload: 'ok', reason: null });
  });
});

describe('DATA_URL=http://… on a plain static server', () => {
  let published: string;
  let web: StaticServer;
  let server: Awaited<ReturnType<typeof serveRemote>>;

  /** Publishes the drop in `dir` into the served directory, drop.json last. */
  function publish(dir: string) {
    for (const name of readdirSync(dir).filter((f) => f !== 'drop.json')) copyFileSync(path.join(dir, name), path.join(published, name));
    copyFileSync(path.join(dir, 'drop.json'), path.join(published, 'drop.json'));
  }

  beforeAll(async () => {
    published = mkdtempSync(path.join(root, 'web-'));
    cpSync(await drop('h1'), published, { recursive: true });
    web = await startStatic(published);
    server = await serveRemote(web.base);
  });
  afterAll(async () => {
    await server?.close();
    await web?.stop();
  });

  it('serves the published drop', async () => {
    expect(await served(server.app)).toMatchObject({ version: 'h1', expenses: 6 });
  });

  it('keeps serving, and reports it, when the server drops the connection mid-download', async () => {
    publish(await drop('h2', 5));
    web.serving = 'cut';
    await server.remote.check('SIGHUP');
    const now = await served(server.app);
    expect(now).toMatchObject({ version: 'h1', expenses: 6, reload: 'rejected' });
    expect(now.reason).toMatch(/^[a-z_]+\.parquet: could not be downloaded \(/);
  });

  it('keeps serving, and reports it, when a download ends early without a length', async () => {
    web.serving = 'short';
    await server.remote.check('SIGHUP');
    const now = await served(server.app);
    expect(now).toMatchObject({ version: 'h1', expenses: 6, reload: 'rejected' });
    expect(now.reason).toMatch(/^[a-z_]+\.parquet: sha256 must match drop\.json \(manifest [0-9a-f]{64}, downloaded [0-9a-f]{64}\)$/);
  });

  it('keeps serving, and reports it, when a listed file answers 404', async () => {
    web.serving = 'whole';
    rmSync(path.join(published, 'debt.parquet'));
    await server.remote.check('SIGHUP');
    expect(await served(server.app)).toMatchObject({
      version: 'h1',
      reload: 'rejected',
      reason: 'debt.parquet: could not be downloaded (HTTP 404)',
      file: 'debt.parquet',
    });
  });

  it('takes the drop once it downloads whole', async () => {
    publish(await drop('h3', 4));
    await server.remote.check('SIGHUP');
    expect(await served(server.app)).toEqual({ version: 'h3', expenses: 4, reload: 'ok', reason: null });
  });

  it("follows a redirect on the drop's origin, and refuses one off it without asking the other address", async () => {
    const elsewhere = await startStatic(published);
    try {
      publish(await drop('h4', 3));
      web.redirects.set('gdp.parquet', `${elsewhere.base}gdp.parquet`);
      await server.remote.check('SIGHUP');
      expect(await served(server.app)).toMatchObject({
        version: 'h3',
        reload: 'rejected',
        reason: "gdp.parquet: could not be downloaded (HTTP 302: redirected off the drop's origin)",
      });
      expect(elsewhere.requests).toEqual([]);

      web.redirects.set('gdp.parquet', '/drops/moved/gdp.parquet');
      await server.remote.check('SIGHUP');
      expect(await served(server.app)).toMatchObject({ version: 'h4', reload: 'ok' });
    } finally {
      web.redirects.clear();
      await elsewhere.stop();
    }
  });

  it('downloads every file drop.json lists, a file of no table too, and refuses the drop when one is not published', async () => {
    const extra = { sha256: createHash('sha256').update('kept beside the tables').digest('hex'), rows: 1 };
    publish(await drop('h5', 2, { manifest: (m) => void (m.files['extra.parquet'] = extra) }));
    await server.remote.check('SIGHUP');
    expect(await served(server.app)).toMatchObject({
      version: 'h4',
      reload: 'rejected',
      reason: 'extra.parquet: could not be downloaded (HTTP 404)',
    });

    writeFileSync(path.join(published, 'extra.parquet'), 'kept beside the tables');
    web.requests.length = 0;
    await server.remote.check('SIGHUP');
    expect(await served(server.app)).toMatchObject({ version: 'h5', reload: 'ok' });
    expect(web.requests).toEqual(expect.arrayContaining(['expenses.parquet', 'extra.parquet']));
  });

  it('stops a file at the size drop.json gives it', async () => {
    publish(await drop('h6', 3, { manifest: (m) => void (m.files['expenses.parquet']!.bytes = 100) }));
    await server.remote.check('SIGHUP');
    expect(await served(server.app)).toMatchObject({
      version: 'h5',
      reload: 'rejected',
      reason: 'expenses.parquet: must be 100 bytes, as drop.json says; more arrived',
    });
  });

  it('does not download a rejected drop again at the next poll, only after a delay or on SIGHUP', async () => {
    web.requests.length = 0;
    await server.remote.check('poll');
    await server.remote.check('poll');
    expect(web.requests).toEqual(['drop.json', 'drop.json']);
    await server.remote.check('SIGHUP');
    expect(web.requests.slice(2)).toContain('expenses.parquet');
  });

  it('refuses a drop heavier than DATA_MAX_MB, stopping the download there', async () => {
    publish(await drop('h7'));
    const capped = new RemoteDrops({ dataUrl: web.base, store: new Store(), maxBytes: 2000 });
    try {
      await expect(capped.download()).rejects.toThrow(/is past what is left of DATA_MAX_MB \(\d+ bytes\)$/);
    } finally {
      await capped.close();
    }
  });
});

describe('the server with DATA_URL', () => {
  it('stops with one line and exit code 1 when the drop cannot be downloaded at startup', async () => {
    const port = await freePort();
    const { code, stderr } = await start({ DATA_URL: `http://127.0.0.1:${port}/drops/` }).exit;
    expect(code).toBe(1);
    expect(stderr).toBe(`budget-api: could not download http://127.0.0.1:${port}/drops/drop.json: fetch failed (ECONNREFUSED)\n`);
  });

  it('polls every DATA_POLL_SECONDS and swaps in a new drop.json without a signal', async () => {
    const published = mkdtempSync(path.join(root, 'poll-'));
    cpSync(await drop('p1'), published, { recursive: true });
    const web = await startStatic(published);
    const next = await drop('p2', 2);
    const server = start({ DATA_URL: web.base, DATA_POLL_SECONDS: '1' });
    try {
      const base = `http://127.0.0.1:${await listening(server)}`;
      const version = async () => ((await (await fetch(`${base}/budget/api/meta/`)).json()) as { version: string }).version;
      expect(await version()).toBe('p1');
      for (const name of readdirSync(next).filter((f) => f !== 'drop.json')) copyFileSync(path.join(next, name), path.join(published, name));
      copyFileSync(path.join(next, 'drop.json'), path.join(published, 'drop.json'));
      let seen = 'p1';
      for (let i = 0; i < 200 && seen === 'p1'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        seen = await version();
      }
      expect(seen).toBe('p2');
    } finally {
      server.child.kill('SIGTERM');
      await web.stop();
    }
    expect((await server.exit).code).toBe(0);
  });
});
