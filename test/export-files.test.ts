/**
 * Whole exports kept as files (docs/performance.md#full-exports): the first request of an export
 * streams it and writes it; the next ones are sent from the file, byte for byte the same, with
 * Content-Length and Range, and so are its compressed bytes once compressed; a swapped-in drop
 * never gets another drop's file. CSV and Arrow are
 * the bytes a server without export files streams; Parquet, written by DuckDB, its content.
 */
import { once } from 'node:events';
import { mkdtemp, readdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { loadDrop } from '../src/data/drop.js';
import { Store } from '../src/data/store.js';
import { ExportFiles } from '../src/http/export-files.js';
import { small } from './fixtures/small.js';
import { bytes, readParquet } from './helpers/downloads.js';
import { writeDrop } from './helpers/drop.js';

const LINES = 3000;
const many = {
  ...small,
  expenses: {
    sql: `SELECT i AS id, 2020 + i % 3 AS year, (i * 1.5 + 0.001)::DECIMAL(18,3) AS amount,
                 [11, 12, 13, 20][i % 4 + 1] AS category_id, 1 + i % 3 AS organization_id, i % 5 = 0 AS complementary
          FROM range(1, ${LINES + 1}) AS r(i)`,
  },
};

let dir: string;
let root: string;
let files: ExportFiles;
let store: Store;
let streamedStore: Store;
let app: ReturnType<typeof createApp>;
/** The same drop served without export files: every export streamed. */
let streamed: ReturnType<typeof createApp>;

beforeAll(async () => {
  dir = await writeDrop(many);
  root = await mkdtemp(path.join(tmpdir(), 'export-files-test-'));
  files = new ExportFiles(root, 64 * 2 ** 20);
  const config = parseConfig({ RATE_LIMIT: '0', DATA_DIR: dir });
  store = new Store();
  store.swap(await loadDrop(dir));
  streamedStore = new Store();
  streamedStore.swap(await loadDrop(dir));
  app = createApp({ config, store, exportFiles: files });
  streamed = createApp({ config, store: streamedStore });
});
afterAll(async () => {
  store.close();
  streamedStore.close();
  await files.clear();
});

const get = (on: typeof app, url: string, headers: Record<string, string> = {}) =>
  request(on)
    .get(url)
    .set({ 'Accept-Encoding': 'identity', ...headers })
    .buffer(true)
    .parse(bytes);
const keptFiles = async () => (await readdir(root, { recursive: true })).filter((name) => /[0-9a-f]{64}$/.test(name));

describe('a whole export asked for twice', () => {
  for (const format of ['csv', 'arrow', 'parquet']) {
    it(`is sent from its file the second time, byte for byte the first time's (${format})`, async () => {
      const url = `/budget/api/expenses/?format=${format}`;
      const first = await get(app, url).expect(200);
      expect(first.headers['content-length']).toBeUndefined();
      const second = await get(app, url).expect(200);
      expect(second.headers['content-length']).toBe(String((second.body as Buffer).length));
      expect(second.headers['accept-ranges']).toBe('bytes');
      expect(second.headers['content-type']).toBe(first.headers['content-type']);
      expect(second.headers['content-disposition']).toBe(first.headers['content-disposition']);
      expect(second.headers.etag).toBe(first.headers.etag);
      expect((second.body as Buffer).equals(first.body as Buffer)).toBe(true);
      const reference = await get(streamed, url).expect(200);
      if (format === 'parquet') {
        // Written by DuckDB where export files are kept: the streamed file's columns, types and
        // rows, in other pages (test/copy-exports.test.ts).
        const [kept, made] = await Promise.all([readParquet(first.body as Buffer), readParquet(reference.body as Buffer)]);
        expect(kept.columns).toEqual(made.columns);
        expect(kept.rows).toEqual(made.rows);
      } else expect((first.body as Buffer).equals(reference.body as Buffer)).toBe(true);
    });
  }

  it('answers a byte range of the file, for a resumed download', async () => {
    const url = '/budget/api/expenses/?format=csv&year=2021';
    const whole = (await get(app, url).expect(200)).body as Buffer;
    await get(app, url).expect(200);
    const part = await get(app, url, { Range: 'bytes=100-199' }).expect(206);
    expect(part.headers['content-range']).toBe(`bytes 100-199/${whole.length}`);
    expect((part.body as Buffer).equals(whole.subarray(100, 200))).toBe(true);
  });

  it('answers a suffix range longer than the file with the whole file, as RFC 9110 says', async () => {
    const url = '/budget/api/expenses/?format=csv&year=2020,2021';
    const whole = (await get(app, url).expect(200)).body as Buffer;
    await get(app, url).expect(200);
    const all = await get(app, url, { Range: `bytes=-${whole.length + 1000}` }).expect(206);
    expect(all.headers['content-range']).toBe(`bytes 0-${whole.length - 1}/${whole.length}`);
    expect((all.body as Buffer).equals(whole)).toBe(true);
    const tail = await get(app, url, { Range: 'bytes=-10' }).expect(206);
    expect((tail.body as Buffer).equals(whole.subarray(whole.length - 10))).toBe(true);
  });

  it('sends the whole file when If-Range does not match strongly: a weak tag, a list, another tag', async () => {
    const url = '/budget/api/expenses/?format=csv&year=2021,2022';
    const first = await get(app, url).expect(200);
    const whole = first.body as Buffer;
    const etag = first.headers.etag!;
    expect((await get(app, url, { Range: 'bytes=0-9', 'If-Range': etag }).expect(206)).headers['content-range']).toBe(`bytes 0-9/${whole.length}`);
    for (const ifRange of [`W/${etag}`, `${etag}, "other"`, '"other"']) {
      const full = await get(app, url, { Range: 'bytes=0-9', 'If-Range': ifRange }).expect(200);
      expect((full.body as Buffer).equals(whole), ifRange).toBe(true);
    }
  });

  it('ignores If-Match and If-Unmodified-Since, as every other answer of the service does, rather than a 404', async () => {
    const url = '/budget/api/expenses/?format=csv&year=2020,2022';
    const whole = (await get(app, url).expect(200)).body as Buffer;
    await get(app, url).expect(200);
    for (const [name, value] of [
      ['If-Match', '"nope"'],
      ['If-Unmodified-Since', 'Sat, 01 Jan 2000 00:00:00 GMT'],
    ] as const) {
      const res = await get(app, url, { [name]: value }).expect(200);
      expect((res.body as Buffer).equals(whole), name).toBe(true);
    }
  });

  it('lets a script of another origin read which bytes a range is (Content-Range), as CORS hides it otherwise', async () => {
    const url = '/budget/api/expenses/?format=csv&year=2022';
    await get(app, url).expect(200);
    await get(app, url).expect(200);
    const part = await get(app, url, { Range: 'bytes=0-9' }).expect(206);
    expect(part.headers['access-control-expose-headers']!.split(', ')).toEqual(expect.arrayContaining(['Content-Range', 'Accept-Ranges']));
  });

  it('answers a Range to GET only, and ignores one that is not valid (5-2), as RFC 9110 says, with the whole file', async () => {
    const url = '/budget/api/expenses/?format=csv&year=2021,2023';
    const whole = (await get(app, url).expect(200)).body as Buffer;
    await get(app, url).expect(200);
    const head = await request(app).head(url).set('Range', 'bytes=0-9').expect(200);
    expect(head.headers['content-length']).toBe(String(whole.length));
    const backwards = await get(app, url, { Range: 'bytes=5-2' }).expect(200);
    expect((backwards.body as Buffer).equals(whole)).toBe(true);
  });

  it('refuses a range past the end of the file with 416, saying how long the file is', async () => {
    const url = '/budget/api/expenses/?format=csv&year=2020';
    const whole = (await get(app, url).expect(200)).body as Buffer;
    await get(app, url).expect(200);
    const refused = await get(app, url, { Range: `bytes=${whole.length + 10}-` }).expect(416);
    expect(refused.headers['content-type']).toBe('application/problem+json');
    expect(refused.headers['content-range']).toBe(`bytes */${whole.length}`);
    expect(refused.headers['content-disposition']).toBeUndefined();
    expect(JSON.parse(refused.text || (refused.body as Buffer).toString())).toMatchObject({
      status: 416,
      code: 'invalid_request',
      detail: `the Range asked starts past the end of this download, ${whole.length} bytes`,
    });
  });

  it('refuses a range past the end of its compressed file with a problem that is not said to be compressed', async () => {
    const url = '/budget/api/expenses/?format=csv&year=2021';
    await get(app, url).expect(200);
    // Twice compressed: the second is sent from the gzip file, whose length the range passes.
    await get(app, url, { 'Accept-Encoding': 'gzip' }).expect(200);
    await get(app, url, { 'Accept-Encoding': 'gzip' }).expect(200);
    const refused = await request(app).get(url).set({ 'Accept-Encoding': 'gzip', Range: 'bytes=99999999-' }).buffer(true).parse(bytes).expect(416);
    expect(refused.headers['content-type']).toBe('application/problem+json');
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse((refused.body as Buffer).toString())).toMatchObject({ status: 416, code: 'invalid_request' });
  });

  it('compresses the file when asked, to the same bytes', async () => {
    const url = '/budget/api/expenses/?format=csv&year=2022';
    const plain = (await get(app, url).expect(200)).body as Buffer;
    const zipped = await get(app, url, { 'Accept-Encoding': 'gzip' }).expect(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    // superagent has already gunzipped the body.
    expect((zipped.body as Buffer).equals(plain)).toBe(true);
  });

  it('keeps the compressed bytes as a file of their own once sent, and sends them from it after, with Content-Length and Range', async () => {
    const url = '/budget/api/expenses/?format=csv&organization=2';
    const plain = (await get(app, url).expect(200)).body as Buffer;
    // The node:http client leaves the bytes as they came, where superagent would decompress them.
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const raw = async (encoding: string, headers: Record<string, string> = {}) => {
      const [res] = (await once(
        http.get({ port, host: '127.0.0.1', path: url, headers: { 'Accept-Encoding': encoding, ...headers } }),
        'response',
      )) as [http.IncomingMessage];
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) };
    };
    try {
      for (const [encoding, decompress] of [
        ['gzip', gunzipSync],
        ['br', brotliDecompressSync],
      ] as const) {
        const before = (await keptFiles()).length;
        const first = await raw(encoding);
        expect(first.headers['content-encoding']).toBe(encoding);
        expect(first.headers['content-length']).toBeUndefined();
        expect(decompress(first.body).equals(plain)).toBe(true);
        expect((await keptFiles()).length).toBe(before + 1);
        const second = await raw(encoding);
        expect(second.status).toBe(200);
        expect(second.headers['content-encoding']).toBe(encoding);
        expect(second.headers['content-length']).toBe(String(second.body.length));
        expect(second.headers['accept-ranges']).toBe('bytes');
        expect(second.headers.etag).toBe(first.headers.etag);
        expect(second.headers['content-type']).toBe(first.headers['content-type']);
        expect(second.body.equals(first.body)).toBe(true);
        const part = await raw(encoding, { Range: 'bytes=10-49' });
        expect(part.status).toBe(206);
        expect(part.headers['content-range']).toBe(`bytes 10-49/${second.body.length}`);
        expect(part.body.equals(second.body.subarray(10, 50))).toBe(true);
      }
    } finally {
      server.close();
    }
  });

  it('keeps the bytes and the compressed bytes from the first request, when that one asks them compressed', async () => {
    const url = '/budget/api/expenses/?format=csv&organization=1';
    const before = (await keptFiles()).length;
    const first = await get(app, url, { 'Accept-Encoding': 'br' }).expect(200);
    expect(first.headers['content-length']).toBeUndefined();
    expect((await keptFiles()).length).toBe(before + 2);
    const second = await get(app, url, { 'Accept-Encoding': 'br' }).expect(200);
    expect(second.headers['content-encoding']).toBe('br');
    expect(second.headers['content-length']).toBeDefined();
    const plain = await get(app, url).expect(200);
    expect(plain.headers['content-length']).toBe(String((plain.body as Buffer).length));
    // superagent decompresses.
    for (const answer of [first, second]) expect((answer.body as Buffer).equals(plain.body as Buffer)).toBe(true);
    expect((plain.body as Buffer).equals((await get(streamed, url).expect(200)).body as Buffer)).toBe(true);
  });

  it('keeps no partial compressed file when its client goes away, and compresses whole the next time', async () => {
    const url = '/budget/api/expenses/?format=csv&organization=3';
    const plain = (await get(app, url).expect(200)).body as Buffer;
    await get(app, url).expect(200);
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      await new Promise<void>((resolve, reject) => {
        const req = http.get({ port, host: '127.0.0.1', path: url, headers: { 'Accept-Encoding': 'gzip' } }, (res) =>
          res.once('data', () => (req.destroy(), resolve())),
        );
        req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve() : reject(error)));
      });
    } finally {
      server.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await readdir(root, { recursive: true })).filter((name) => name.endsWith('.part'))).toEqual([]);
    // superagent decompresses: the same lines, whether this one was compressed on the fly or sent from a file.
    for (let i = 0; i < 2; i++) expect(((await get(app, url, { 'Accept-Encoding': 'gzip' }).expect(200)).body as Buffer).equals(plain)).toBe(true);
  });

  it('keeps nothing of an export whose query is refused before its first rows, and the next request keeps it whole', async () => {
    // A store that refuses every query (no query may run or wait), sharing the export files.
    const refusing = new Store(1, { maxConcurrent: 0, timeoutMs: 5_000, queueWaitMs: 1_000 });
    refusing.swap(await loadDrop(dir));
    try {
      const url = '/budget/api/expenses/?format=csv&year=2022&organization=2';
      await get(createApp({ config: parseConfig({ RATE_LIMIT: '0', DATA_DIR: dir }), store: refusing, exportFiles: files }), url).expect(503);
      // The recorder is dropped as the refusal goes out: its partial file goes moments later.
      await expect
        .poll(async () => (await readdir(root, { recursive: true })).filter((name) => name.endsWith('.part')), { timeout: 2_000 })
        .toEqual([]);
      const first = await get(app, url).expect(200);
      const again = await get(app, url).expect(200);
      expect(again.headers['content-length']).toBe(String((first.body as Buffer).length));
      expect((again.body as Buffer).equals(first.body as Buffer)).toBe(true);
    } finally {
      refusing.close();
    }
  });

  it('keeps no file of a page (limit or offset given)', async () => {
    const before = (await keptFiles()).length;
    await get(app, '/budget/api/expenses/?format=csv&limit=10').expect(200);
    await get(app, '/budget/api/expenses/?format=csv&offset=10').expect(200);
    expect((await keptFiles()).length).toBe(before);
  });
});

describe('after a new drop is swapped in', () => {
  it("answers from the new drop, and the old drop's files are gone", async () => {
    const url = '/budget/api/expenses/?format=csv&year=2020';
    const old = (await get(app, url).expect(200)).body as Buffer;
    await get(app, url).expect(200);
    expect((await keptFiles()).length).toBeGreaterThan(0);
    const changed = await writeDrop({
      ...many,
      expenses: { sql: many.expenses.sql.replace('i * 1.5', 'i * 2.5') },
    });
    store.swap(await loadDrop(changed));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await keptFiles()).toEqual([]);
    const fresh = (await get(app, url).expect(200)).body as Buffer;
    expect(fresh.equals(old)).toBe(false);
    const again = (await get(app, url).expect(200)).body as Buffer;
    expect(again.equals(fresh)).toBe(true);
  });
});
