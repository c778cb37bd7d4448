/**
 * Hot reload (docs/data-drops.md#reloading) in-process, over real drops and a real listening
 * server: swaps under load, rejected drops, the file watch and coalesced reloads. The process-level
 * triggers (SIGHUP, a re-pointed DATA_DIR symlink) are in server.test.ts.
 */
import { mkdtempSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Reloader } from '../src/data/reloader.js';
import { small } from './fixtures/small.js';
import { appServing, listen, type TestApp } from './helpers/app.js';
import { writeDrop, type DropData } from './helpers/drop.js';
import { flipSymlink as flip } from './helpers/symlink.js';

/** Drop B: the same shape as A (the small fixture) with other amounts, so every answer differs. */
const other: DropData = {
  ...small,
  expenses: small.expenses!.map((row) => ({ ...(row as object), amount: Number(row.amount) * 2 + 1 })) as DropData['expenses'],
  resources: [...small.resources!, { id: 5, year: 2024, amount: 7.5, category_id: 40, organization_id: null, complementary: true }],
};

const root = mkdtempSync(path.join(tmpdir(), 'budget-reload-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let dropA: string;
let dropB: string;
beforeAll(async () => {
  dropA = await writeDrop(small, { version: 'A' });
  dropB = await writeDrop(other, { version: 'B' });
});

let linkCount = 0;
function linkTo(target: string): string {
  const link = path.join(root, `current-${++linkCount}`);
  symlinkSync(target, link);
  return link;
}

interface Running {
  t: TestApp;
  reloader: Reloader;
  base: string;
  get(url: string): Promise<{ status: number; etag: string | null; body: string }>;
  json(url: string): Promise<any>;
}

const running: { stop(): Promise<void>; reloader: Reloader; t: TestApp }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    r.reloader.close();
    await r.stop();
    r.t.close();
  }
});

async function serve(dataDir: string): Promise<Running> {
  const t = await appServing(dataDir);
  const reloader = new Reloader({ dataDir, store: t.store, debounceMs: 50 });
  const { base, stop } = await listen(t.app);
  running.push({ stop, reloader, t });
  const get = async (url: string) => {
    const res = await fetch(base + url);
    return { status: res.status, etag: res.headers.get('etag'), body: await res.text() };
  };
  return { t, reloader, base, get, json: async (url) => JSON.parse((await get(url)).body) };
}

async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const TOTALS = '/budget/api/totals/';

describe('a swap under concurrent load', () => {
  const URLS = [TOTALS, '/budget/api/expenses/?limit=3&offset=1', '/budget/api/resources/?hierarchy=true', '/budget/api/organization/?year=2024'];

  it('fails no request, and every answer is entirely drop A’s or entirely drop B’s', async () => {
    const link = linkTo(dropA);
    const s = await serve(link);

    // Each drop's answer to each URL, asked alone.
    const answers = { A: new Map<string, string>(), B: new Map<string, string>() };
    const etags = { A: new Map<string, string>(), B: new Map<string, string>() };
    for (const version of ['A', 'B'] as const) {
      flip(link, version === 'A' ? dropA : dropB);
      expect((await s.reloader.reload()).version).toBe(version);
      for (const url of URLS) {
        const res = await s.get(url);
        expect(res.status, url).toBe(200);
        answers[version].set(url, res.body);
        etags[version].set(url, res.etag!);
      }
      expect(answers.A.get(TOTALS)).not.toBe(answers.B.get(TOTALS));
    }

    let swaps = 0;
    let stopSwapping = false;
    const swapping = (async () => {
      while (!stopSwapping) {
        flip(link, swaps % 2 === 0 ? dropA : dropB);
        const outcome = await s.reloader.reload('test');
        expect(outcome.status).toBe('ok');
        swaps += 1;
      }
    })();

    const failures: string[] = [];
    const seen = { A: 0, B: 0 };
    // At least a second of load and four swaps under it, however slow the machine (within reason:
    // a reload took up to 5 s with three test files running at once on 2 cores).
    const started = Date.now();
    const loading = () => (swaps < 4 || Date.now() < started + 1000) && Date.now() < started + 25_000;
    const worker = async (n: number) => {
      for (let i = n; loading(); i++) {
        const url = URLS[i % URLS.length]!;
        const [res, ready, meta] = await Promise.all([s.get(url), s.get('/readyz'), s.get('/budget/api/meta/')]);
        if (res.status !== 200 || ready.status !== 200 || meta.status !== 200) {
          failures.push(`${url}: ${res.status}, readyz ${ready.status}, meta ${meta.status}`);
          continue;
        }
        const version = res.body === answers.A.get(url) ? 'A' : res.body === answers.B.get(url) ? 'B' : null;
        if (!version) failures.push(`${url}: an answer that is neither drop's: ${res.body.slice(0, 200)}`);
        else {
          seen[version] += 1;
          if (res.etag !== etags[version].get(url)) failures.push(`${url}: drop ${version}'s body with another ETag`);
        }
        if (!['A', 'B'].includes(JSON.parse(meta.body).version)) failures.push(`meta: version ${meta.body.slice(0, 100)}`);
      }
    };
    await Promise.all(Array.from({ length: 4 }, (_, n) => worker(n)));
    stopSwapping = true;
    await swapping;

    expect(failures).toEqual([]);
    expect(seen.A + seen.B).toBeGreaterThan(100);
    expect(swaps).toBeGreaterThanOrEqual(4);
    expect(seen.A).toBeGreaterThan(0);
    expect(seen.B).toBeGreaterThan(0);
  }, 45_000);
});

describe('a bad drop on reload', () => {
  const bad: [string, () => Promise<string>, RegExp][] = [
    [
      'a checksum mismatch',
      () => writeDrop(other, { version: 'bad', manifest: (m) => void (m.files['gdp.parquet']!.sha256 = '0'.repeat(64)) }),
      /^gdp\.parquet: sha256 must match drop\.json \(manifest 0{64}, file [0-9a-f]{64}\)$/,
    ],
    [
      'a broken rule',
      () => writeDrop({ ...other, deficit: [{ year: 1999, value: 5 }] }, { version: 'bad' }),
      /^deficit\.parquet: every year must have a row in gdp\.parquet; offending row: \{"year":1999\}$/,
    ],
    [
      'a missing file',
      async () => {
        const dir = await writeDrop(other, { version: 'bad' });
        unlinkSync(path.join(dir, 'debt.parquet'));
        return dir;
      },
      /^debt\.parquet: file listed in drop\.json must exist$/,
    ],
    [
      'a manifest that is not JSON',
      async () => {
        const dir = await writeDrop(other, { version: 'bad' });
        writeFileSync(path.join(dir, 'drop.json'), '{"version": "bad", ');
        return dir;
      },
      /^drop\.json: must be valid JSON: /,
    ],
    [
      'no drop.json',
      async () => {
        const dir = await writeDrop(other, { version: 'bad' });
        unlinkSync(path.join(dir, 'drop.json'));
        return dir;
      },
      // The file and the rule, never the server's path (security review, finding 7).
      /^drop\.json: drop\.json must exist in the data directory$/,
    ],
  ];

  it.each(bad)('with %s is rejected, the old data still served and meta showing why; then a good drop is accepted', async (_, make, reason) => {
    const link = linkTo(dropA);
    const s = await serve(link);
    const before = await s.get(TOTALS);
    const loadedAt = (await s.json('/budget/api/meta/')).loaded_at;

    flip(link, await make());
    const outcome = await s.reloader.reload();
    expect(outcome).toMatchObject({ status: 'rejected', version: 'A' });
    expect(outcome.reason).toMatch(reason);

    expect(await s.get(TOTALS)).toEqual(before);
    expect((await s.get('/readyz')).status).toBe(200);
    const meta = await s.json('/budget/api/meta/');
    expect(meta).toMatchObject({ version: 'A', loaded_at: loadedAt, last_reload: { status: 'rejected', version: 'A' } });
    expect(meta.last_reload.reason).toMatch(reason);
    expect(meta.last_reload).toMatchObject({ code: 'invalid_drop', file: meta.last_reload.reason.split(':')[0] });
    expect(JSON.stringify(meta)).not.toContain(tmpdir());
    expect(Date.parse(meta.last_reload.at)).toBeGreaterThan(Date.parse(loadedAt));

    flip(link, dropB);
    expect(await s.reloader.reload()).toMatchObject({ status: 'ok', reason: null, version: 'B' });
    expect((await s.get(TOTALS)).body).not.toBe(before.body);
    expect((await s.json('/budget/api/meta/')).last_reload).toMatchObject({ status: 'ok', reason: null, version: 'B' });
  });
});

describe('reload', () => {
  it('counts the initial load as the first ok in meta', async () => {
    const s = await serve(dropA);
    const meta = await s.json('/budget/api/meta/');
    expect(meta.last_reload).toEqual({ status: 'ok', reason: null, code: null, file: null, at: meta.loaded_at, version: 'A' });
    expect(meta).toMatchObject({ previous_version: null, changes: null });
  });

  describe('after a swap, meta names the previous version and what changed', () => {
    it('names the previous version at once, and the change once worked out', async () => {
      const link = linkTo(dropA);
      const s = await serve(link);
      flip(link, dropB);
      await s.reloader.reload();
      const meta = await s.json('/budget/api/meta/');
      expect(meta).toMatchObject({ version: 'B', previous_version: 'A' });
      expect(meta.changes === null || meta.changes.tables.expenses.changed === 6).toBe(true);
      await s.reloader.pendingChange;
      expect((await s.json('/budget/api/meta/')).changes.tables.expenses.changed).toBe(6);
    });

    // B doubles every expense amount plus 1 (lines 1-6: 2023 and 2024) and adds resource line 5 (2024).
    const expectChangeFromAToB = (meta: any) => {
      expect(meta).toMatchObject({ version: 'B', previous_version: 'A' });
      expect(meta.changes.tables.expenses).toEqual({ added: 0, removed: 0, changed: 6 });
      expect(meta.changes.tables.resources).toEqual({ added: 1, removed: 0, changed: 0 });
      const others = Object.entries(meta.changes.tables).filter(([table]) => table !== 'expenses' && table !== 'resources');
      expect(others.length).toBeGreaterThanOrEqual(7);
      for (const [, counts] of others) expect(counts).toEqual({ added: 0, removed: 0, changed: 0 });
      expect(meta.changes.years_with_moved_totals).toEqual([2023, 2024]);
    };

    it('when DATA_DIR is re-pointed to another drop', async () => {
      const link = linkTo(dropA);
      const s = await serve(link);
      flip(link, dropB);
      expect(await s.reloader.reload()).toMatchObject({ status: 'ok', version: 'B' });
      await s.reloader.pendingChange;
      expectChangeFromAToB(await s.json('/budget/api/meta/'));
    });

    it('when the drop is rewritten in place, its old files gone (the old side is read from the served database)', async () => {
      const dir = await writeDrop(small, { version: 'A' });
      const s = await serve(dir);
      await writeDrop(other, { dir, version: 'B' });
      expect(await s.reloader.reload()).toMatchObject({ status: 'ok', version: 'B' });
      await s.reloader.pendingChange;
      expectChangeFromAToB(await s.json('/budget/api/meta/'));
    });

    it("counts only the drop's own columns: a line added before the others changes none of them", async () => {
      // Lines 2-6 keep their figures, but their positions (worked out at load for paging) all move.
      const withoutFirst = await writeDrop({ ...small, expenses: (small.expenses as object[]).slice(1) } as DropData, { version: 'A' });
      const link = linkTo(withoutFirst);
      const s = await serve(link);
      flip(link, await writeDrop(small, { version: 'C' }));
      expect(await s.reloader.reload()).toMatchObject({ status: 'ok', version: 'C' });
      await s.reloader.pendingChange;
      expect((await s.json('/budget/api/meta/')).changes.tables.expenses).toEqual({ added: 1, removed: 0, changed: 0 });
    });

    it('and keeps the change of the last swap when a later drop is rejected', async () => {
      const link = linkTo(dropA);
      const s = await serve(link);
      flip(link, dropB);
      await s.reloader.reload();
      await s.reloader.pendingChange;
      flip(link, await writeDrop({ ...other, deficit: [{ year: 1999, value: 5 }] }, { version: 'bad' }));
      expect(await s.reloader.reload()).toMatchObject({ status: 'rejected', version: 'B' });
      expectChangeFromAToB(await s.json('/budget/api/meta/'));
    });
  });

  it('keeps the served database when the drop is unchanged, still recording ok', async () => {
    const s = await serve(dropA);
    const { loaded_at } = await s.json('/budget/api/meta/');
    expect(await s.reloader.reload()).toMatchObject({ status: 'ok', version: 'A' });
    const meta = await s.json('/budget/api/meta/');
    expect(meta.loaded_at).toBe(loaded_at);
    expect(Date.parse(meta.last_reload.at)).toBeGreaterThanOrEqual(Date.parse(loaded_at));
  });

  it('swaps in a new manifest over the same files, so meta shows the new version', async () => {
    const dir = await writeDrop(small, { version: 'A' });
    const s = await serve(dir);
    const etag = (await s.get(TOTALS)).etag;
    await writeDrop(small, { dir, version: 'A, corrected' });
    expect(await s.reloader.reload()).toMatchObject({ status: 'ok', version: 'A, corrected' });
    expect((await s.json('/budget/api/meta/')).version).toBe('A, corrected');
    // Same data, same ETag: caches stay valid.
    expect((await s.get(TOTALS)).etag).toBe(etag);
  });

  it('ends with the newest drop when a second reload is asked for while the first is loading', async () => {
    const dropC = await writeDrop({ ...small, gdp: [...small.gdp!, { year: 2025, gdp: 9 }] as DropData['gdp'] }, { version: 'C' });
    const link = linkTo(dropA);
    const s = await serve(link);
    flip(link, dropB);
    const first = s.reloader.reload();
    await new Promise((resolve) => setTimeout(resolve, 5));
    flip(link, dropC);
    const second = s.reloader.reload();
    // Triggers arriving before the queued reload starts join it rather than queue a third.
    expect(s.reloader.reload()).toBe(second);
    await first;
    expect(await second).toMatchObject({ status: 'ok', version: 'C' });
    const meta = await s.json('/budget/api/meta/');
    expect(meta).toMatchObject({ version: 'C', files: { 'gdp.parquet': { rows: 4 } } });
  });
});

describe('the file watch', () => {
  it('reloads without a signal when the drop is rewritten in place', async () => {
    const dir = await writeDrop(small, { version: 'A' });
    const s = await serve(dir);
    s.reloader.watch();
    await writeDrop(other, { dir, version: 'B' });
    const meta = await eventually(
      () => s.json('/budget/api/meta/'),
      (m) => m.version === 'B',
    );
    expect(meta).toMatchObject({ version: 'B', last_reload: { status: 'ok', version: 'B' } });
  });

  it('reloads without a signal when drop.json is replaced by a rename, ignoring other files', async () => {
    const dir = await writeDrop(small, { version: 'A' });
    const s = await serve(dir);
    s.reloader.watch();
    const staging = await writeDrop(other, { version: 'B' });
    // The Parquet files first (no reload: drop.json has not changed), then the manifest, renamed over.
    for (const file of ['expenses.parquet', 'resources.parquet']) renameSync(path.join(staging, file), path.join(dir, file));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await s.json('/budget/api/meta/')).last_reload.at).toBe((await s.json('/budget/api/meta/')).loaded_at);
    renameSync(path.join(staging, 'drop.json'), path.join(dir, 'drop.json'));
    const meta = await eventually(
      () => s.json('/budget/api/meta/'),
      (m) => m.version === 'B',
    );
    expect(meta.version).toBe('B');
    expect(JSON.parse((await s.get(TOTALS)).body)).toContainEqual(expect.objectContaining({ year: 2024, total_resources: 807.5 }));
  });
});
