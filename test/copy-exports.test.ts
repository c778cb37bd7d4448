/**
 * Full CSV exports that DuckDB writes itself (formats/copy-export.ts): byte for byte what the JS
 * writer makes of the same lines (formats/csv.ts), on names and amounts chosen to differ if the two
 * disagreed anywhere (formula characters, quotes, commas, line breaks; integers, thousandths,
 * amounts past 1e12, 1e16 and 1e21, where DuckDB's and JS's notations part); at every stage and
 * filter; then what happens around the file: requests at once share one writer, a client that
 * leaves stops it, and a drop whose ids are too sparse to index a list is written in JS.
 */
import { readdirSync } from 'node:fs';
import http from 'node:http';
import type { Express } from 'express';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { loadDrop } from '../src/data/drop.js';
import { SCRATCH_DIR } from '../src/data/lockdown.js';
import { Store } from '../src/data/store.js';
import { ExportFiles } from '../src/http/export-files.js';
import { synthDrop } from '../src/tools/synth.js';
import { small } from './fixtures/small.js';
import { parquetMetadata } from 'hyparquet';
import { bytes, readParquet } from './helpers/downloads.js';
import { writeDrop } from './helpers/drop.js';
import { listen } from './helpers/app.js';

const NAMES = [
  '=SUM(A1:A9)',
  '+33 1 23 45',
  '-moins',
  '@maison',
  '\tTabulation',
  '\rRetour',
  'Citation "entre guillemets"',
  'Virgule, ici',
  'Saut\nde ligne',
  'Ministère de l’Économie',
  '',
  ' espaces ',
];
const AMOUNTS = [
  '0',
  '-0.0004',
  '1234',
  '0.001',
  '-12.5',
  '0.1',
  '999999999999.999',
  '1234567890123.456',
  '999999999999999.5',
  '12345678901234567',
  '100000000000000000000',
  '123456789012345678901234',
  '-10000000000000000000000',
  '7.125',
];

/** A drop whose lines take every name of NAMES and every amount of AMOUNTS. */
function namesAndAmountsDrop(): Promise<string> {
  const organizations = NAMES.map((name, i) => ({ id: i + 1, name, code: `C${i}${name.slice(0, 2)}` }));
  const categories = [
    { id: 10, name: 'Racine, "dépenses"', type: 'expense', parent_id: null },
    ...NAMES.map((name, i) => ({ id: 11 + i, name, type: 'expense', parent_id: i % 2 ? 10 : null })),
    ...small.categories!.filter((c) => c.type === 'resource'),
  ];
  const lines = AMOUNTS.flatMap((amount, i) =>
    NAMES.map(
      (_, j) =>
        `SELECT ${i * NAMES.length + j + 1} AS id, ${2020 + ((i + j) % 3)} AS year, ${amount}::DECIMAL(38,6) AS amount, ${11 + j} AS category_id, ${1 + ((i + j) % NAMES.length)} AS organization_id, ${(i + j) % 4 === 0} AS complementary`,
    ),
  );
  return writeDrop({ ...small, organizations, categories, expenses: { sql: lines.join('\nUNION ALL ') } });
}

/** Two apps over the same drop: `copied` as the server runs (export files, DuckDB's writer), `streamed` without (JS). */
interface Pair {
  copied: Express;
  streamed: Express;
  files: ExportFiles;
  root: string;
  close(): Promise<void>;
}

async function pairFor(dir: string, { asServed = false } = {}): Promise<Pair> {
  // Room for a few exports at once, from one client (a test's requests all come from one address).
  const config = parseConfig({ RATE_LIMIT: '0', DATA_DIR: dir, EXPORTS_AT_ONCE: '3', EXPORTS_PER_CLIENT: '3' });
  const root = await mkdtemp(path.join(tmpdir(), 'copy-exports-test-'));
  // Every export DuckDB can write, small ones included; `asServed`: those the server has it write
  // (large CSV, every Parquet).
  const files = new ExportFiles(root, 64 * 2 ** 20, asServed ? undefined : 0);
  const stores = [new Store(4), new Store(4)];
  for (const store of stores) store.swap(await loadDrop(dir));
  return {
    copied: createApp({ config, store: stores[0]!, exportFiles: files }),
    streamed: createApp({ config, store: stores[1]! }),
    files,
    root,
    close: async () => {
      for (const store of stores) store.close();
      await files.clear();
    },
  };
}

const get = (app: Express, url: string, headers: Record<string, string> = {}) =>
  request(app)
    .get(url)
    .set({ 'Accept-Encoding': 'identity', ...headers })
    .buffer(true)
    .parse(bytes);

/** Asks both apps, twice of the one that keeps files (written by DuckDB, then from the file): the same bytes each time. */
async function expectSameBytes(pair: Pair, url: string): Promise<string> {
  const reference = await get(pair.streamed, url).expect(200);
  const first = await get(pair.copied, url).expect(200);
  const again = await get(pair.copied, url).expect(200);
  expect(first.headers['content-type']).toBe(reference.headers['content-type']);
  expect((first.body as Buffer).toString('utf8'), url).toBe((reference.body as Buffer).toString('utf8'));
  expect((again.body as Buffer).equals(reference.body as Buffer), url).toBe(true);
  expect(again.headers['content-length'], `${url} asked again is sent from its file`).toBe(String((again.body as Buffer).length));
  return (reference.body as Buffer).toString('utf8');
}

/** A Parquet file's footer. */
function metadataOf(body: Buffer) {
  return parquetMetadata(body.buffer.slice(body.byteOffset, body.byteOffset + body.length) as ArrayBuffer);
}

/**
 * Asks both apps for a Parquet export, twice of the one that keeps files: DuckDB's file, its
 * required columns marked (formats/parquet-copy.ts), reads back as the JS writer's does, with the
 * same columns, types, nullability and rows in the same order; asked again, the same bytes from
 * the file. Returns what it read back, and the body.
 */
async function expectSameParquet(pair: Pair, url: string): Promise<Awaited<ReturnType<typeof readParquet>> & { body: Buffer }> {
  const reference = await get(pair.streamed, url).expect(200);
  const first = await get(pair.copied, url).expect(200);
  const again = await get(pair.copied, url).expect(200);
  expect(first.headers['content-type']).toBe('application/vnd.apache.parquet');
  const body = first.body as Buffer;
  expect(metadataOf(body).created_by, url).toMatch(/^DuckDB/);
  const expected = await readParquet(reference.body as Buffer);
  const read = await readParquet(body);
  expect(read.columns, url).toEqual(expected.columns);
  expect(read.rows, url).toEqual(expected.rows);
  expect((again.body as Buffer).equals(body), `${url} asked again`).toBe(true);
  expect(again.headers['content-length'], `${url} asked again is sent from its file`).toBe(String(body.length));
  return { ...read, body };
}

describe('a full export of names and amounts written by DuckDB', () => {
  let pair: Pair;
  beforeAll(async () => {
    pair = await pairFor(await namesAndAmountsDrop());
  });
  afterAll(() => pair.close());

  describe('as CSV', () => {
    it('is byte for byte what the JS writer makes, names and amounts included', async () => {
      const text = await expectSameBytes(pair, '/budget/api/expenses/?format=csv&stage=amended');
      // What a reader sees: the formula characters defused, the quotes doubled, the notations JS's.
      expect(text).toContain(`"'=SUM(A1:A9)"`.slice(1, -1));
      expect(text).toContain('"Citation ""entre guillemets"""');
      expect(text).toContain('"Saut\nde ligne"');
      for (const written of [
        ',1234,',
        ',0.001,',
        ',-12.5,',
        ',12345678901234568,',
        ',100000000000000000000,',
        ',1.2345678901234569e+23,',
        ',-1e+22,',
        ',0,',
      ])
        expect(text).toContain(written);
      expect(text).not.toContain('1234.0,');
    });

    it('is the same bytes at every stage and filter, and when nothing matches', async () => {
      for (const query of ['stage=initial', 'stage=outturn', 'year=2021', 'year=2020,2022', 'category=10', 'organization=3', 'year=1999']) {
        await expectSameBytes(pair, `/budget/api/expenses/?format=csv&${query}`);
      }
      await expectSameBytes(pair, '/budget/api/resources/?format=csv');
    });

    it('writes an empty field of a one-column CSV as "", so that no reader takes its row for a blank line', async () => {
      // This drop's lines have no source_id: every one is null.
      const text = await expectSameBytes(pair, '/budget/api/expenses/?format=csv&fields=source_id');
      expect(text).toBe(`source_id\r\n${'""\r\n'.repeat(AMOUNTS.length * NAMES.length)}`);
    });

    it('is compressed when asked, to the same bytes', async () => {
      const plain = (await get(pair.streamed, '/budget/api/expenses/?format=csv&year=2020').expect(200)).body as Buffer;
      const zipped = await get(pair.copied, '/budget/api/expenses/?format=csv&year=2020', { 'Accept-Encoding': 'br' }).expect(200);
      expect(zipped.headers['content-encoding']).toBe('br');
      expect((zipped.body as Buffer).equals(plain)).toBe(true);
    });
  });

  describe('as Parquet', () => {
    it("reads back as the JS writer's: the same columns, required where they hold no null, and the same rows", async () => {
      const read = await expectSameParquet(pair, '/budget/api/expenses/?format=parquet&stage=amended');
      expect(read.rows).toHaveLength(AMOUNTS.length * NAMES.length);
      expect(read.columns.filter((c) => c.nullable).map((c) => c.name)).toEqual(['source_id']);
      expect(read.rows.map((row) => row.organization_name)).toContain('Saut\nde ligne');
    });

    it('is the same at every filter, and for resources', async () => {
      for (const query of ['year=2021', 'category=10', 'organization=3']) {
        await expectSameParquet(pair, `/budget/api/expenses/?format=parquet&${query}`);
      }
      await expectSameParquet(pair, '/budget/api/resources/?format=parquet');
    });
  });
});

describe('a small full Parquet export, as the server makes it', () => {
  it("is written by DuckDB too, and reads back as the JS writer's", async () => {
    const pair = await pairFor(await writeDrop(small), { asServed: true });
    try {
      const read = await expectSameParquet(pair, '/budget/api/expenses/?format=parquet&year=2024');
      expect(read.rows.length).toBeGreaterThan(0);
    } finally {
      await pair.close();
    }
  });
});

describe('a full Parquet export of more lines than one row group holds', () => {
  it("is rewritten row group by row group, and reads back as the JS writer's", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'copy-exports-row-groups-'));
    // DuckDB's row groups hold 100,352 lines here (PARQUET_COPY_OPTIONS): two of them.
    await synthDrop(dir, { expenseLines: 105_000, seed: 7 });
    const pair = await pairFor(dir, { asServed: true });
    try {
      const read = await expectSameParquet(pair, '/budget/api/expenses/?format=parquet');
      expect(read.rows.length).toBe(105_000);
      expect(metadataOf(read.body).row_groups.map((group) => Number(group.num_rows))).toEqual([100_352, 4_648]);
    } finally {
      await pair.close();
    }
  }, 120_000);
});

describe('a full CSV export of a staged drop written by DuckDB', () => {
  let pair: Pair;
  beforeAll(async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'copy-exports-staged-'));
    await synthDrop(dir, { expenseLines: 3000, seed: 5, stages: true });
    pair = await pairFor(dir);
  }, 60_000);
  afterAll(() => pair.close());

  it('carries the same stages, sources and derived flags as the JS writer', async () => {
    for (const url of [
      '/budget/api/expenses/?format=csv',
      '/budget/api/expenses/?format=csv&stage=outturn',
      '/budget/api/resources/?format=csv&stage=initial',
    ]) {
      const text = await expectSameBytes(pair, url);
      expect(text.split('\r\n')[0]).toMatch(/,stage,source_id,derived$/);
    }
  });

  it('writes Parquet with the same stages, sources and derived flags as the JS writer', async () => {
    for (const url of [
      '/budget/api/expenses/?format=parquet',
      '/budget/api/expenses/?format=parquet&stage=outturn',
      '/budget/api/resources/?format=parquet&stage=initial',
    ]) {
      const read = await expectSameParquet(pair, url);
      expect(read.rows.length).toBeGreaterThan(0);
    }
  });

  it('is written once for requests that ask at the same time, each getting every byte', async () => {
    const url = '/budget/api/expenses/?format=csv&year=2010,2011,2012';
    const answers = await Promise.all([1, 2, 3].map(() => get(pair.copied, url).expect(200)));
    const reference = (await get(pair.streamed, url).expect(200)).body as Buffer;
    for (const answer of answers) expect((answer.body as Buffer).equals(reference)).toBe(true);
    // One file kept for the three.
    const kept = (await readdir(pair.root, { recursive: true })).filter((name) => /[0-9a-f]{64}$/.test(name));
    expect(kept.length).toBeGreaterThanOrEqual(1);
  });

  it('keeps its compressed bytes too when the first request asks them compressed, and sends them from that file after', async () => {
    const url = '/budget/api/resources/?format=csv&stage=outturn';
    const kept = async () => (await readdir(pair.root, { recursive: true })).filter((name) => /[0-9a-f]{64}$/.test(name)).length;
    const before = await kept();
    // superagent decompresses: each answer is compared as the CSV's text.
    const first = await get(pair.copied, url, { 'Accept-Encoding': 'gzip' }).expect(200);
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(await kept()).toBe(before + 2);
    const again = await get(pair.copied, url, { 'Accept-Encoding': 'gzip' }).expect(200);
    expect(again.headers['content-encoding']).toBe('gzip');
    expect(again.headers['content-length']).toBeDefined();
    const reference = (await get(pair.streamed, url).expect(200)).body as Buffer;
    for (const answer of [first, again]) expect((answer.body as Buffer).equals(reference)).toBe(true);
  });

  it('leaves no partial file behind when its client goes away, and answers whole the next time', async () => {
    const url = '/budget/api/expenses/?format=csv&stage=initial';
    const { base, stop } = await listen(pair.copied);
    try {
      await new Promise<void>((resolve, reject) => {
        const req = http.get(`${base}${url}`, (res) => res.once('data', () => (req.destroy(), resolve())));
        req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve() : reject(error)));
      });
    } finally {
      await stop();
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(readdirSync(SCRATCH_DIR).filter((name) => name.endsWith('.part'))).toEqual([]);
    await expectSameBytes(pair, url);
  });
});

describe('a full CSV export of a drop whose ids are too sparse to index a list', () => {
  it('is written in JS, the same bytes', async () => {
    const far = 10 ** 12;
    const dir = await writeDrop({
      ...small,
      organizations: small.organizations!.map((o) => ({ ...o, id: (o.id as number) * far })),
      expenses: small.expenses!.map((e) => ({ ...e, organization_id: (e.organization_id as number) * far })),
      resources: small.resources!.map((r) => ({ ...r, organization_id: r.organization_id === null ? null : (r.organization_id as number) * far })),
    });
    const pair = await pairFor(dir);
    try {
      const text = await expectSameBytes(pair, '/budget/api/expenses/?format=csv');
      expect(text).toContain(`,${far},Ministère de l'Éducation,EDU,`);
    } finally {
      await pair.close();
    }
  });
});
