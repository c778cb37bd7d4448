/**
 * Releases (docs/api.md#releases): drops flipped under a running app, the app
 * "restarted" over the same RELEASES_DIR (a new Store, a new app, releases read back from disk),
 * and old permalinks asked again. The real process (startup fallback, exit codes) is at the end.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { Releases } from '../src/data/releases.js';
import { Reloader, serveAtStartup } from '../src/data/reloader.js';
import { s3Client } from '../src/data/drop-source.js';
import { RemoteDrops } from '../src/data/remote.js';
import { Store } from '../src/data/store.js';
import { publishDrop } from '../src/tools/publish.js';
import { startS3 } from './helpers/remote.js';
import { small } from './fixtures/small.js';
import { writeDrop, type DropData } from './helpers/drop.js';
import { listening, start } from './helpers/server.js';
import { flipSymlink } from './helpers/symlink.js';

const other = (factor: number): DropData => ({
  ...small,
  expenses: small.expenses!.map((row) => ({ ...(row as object), amount: Number(row.amount) * factor + 1 })) as DropData['expenses'],
  deficit: [
    { year: 2022, value: -43.45 * factor },
    { year: 2024, value: factor },
  ],
});

const root = mkdtempSync(path.join(tmpdir(), 'budget-releases-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let dropA: string;
let dropB: string;
let dropC: string;
let dropAClash: string;
beforeAll(async () => {
  dropA = await writeDrop(small, { version: 'A' });
  dropB = await writeDrop(other(2), { version: 'B' });
  dropC = await writeDrop(other(3), { version: 'C 2024/1' });
  dropAClash = await writeDrop(other(5), { version: 'A' });
});

interface Running {
  store: Store;
  releases: Releases;
  reloader: Reloader;
  agent: ReturnType<typeof request>;
  link: string;
  flip(target: string): Promise<void>;
  stop(): void;
}

const running: Running[] = [];
afterEach(() => {
  for (const r of running.splice(0)) r.stop();
});

let count = 0;
/** The app as server.ts starts it: DATA_DIR a symlink to `target`, releases kept in `releasesDir`. */
async function serve(
  target: string,
  releasesDir: string,
  link = path.join(root, `current-${++count}`),
  env: Record<string, string> = {},
  limits: { queueWaitMs?: number; timeoutMs?: number } = {},
): Promise<Running> {
  flipSymlink(link, target);
  const config = parseConfig({ RATE_LIMIT: '0', DATA_DIR: link, ...env });
  const store = new Store(4, limits);
  const releases = await Releases.open({ dir: releasesDir, keep: config.RELEASES_KEEP, store });
  await serveAtStartup(store, async () => link);
  await releases.settled();
  const reloader = new Reloader({ dataDir: link, store, debounceMs: 50 });
  const app = createApp({ config, store });
  const r: Running = {
    store,
    releases,
    reloader,
    agent: request(app),
    link,
    flip: async (next) => {
      flipSymlink(link, next);
      await reloader.reload('test');
      await reloader.pendingChange;
      await releases.settled();
    },
    stop: () => {
      reloader.close();
      releases.close();
      store.close();
    },
  };
  running.push(r);
  return r;
}

const DEFICIT = '/budget/api/deficit/?year=2024';

describe('a permalink', () => {
  it('is given as Content-Location on every current data answer, and answers the same bytes after reloads and a restart', async () => {
    const dir = path.join(root, 'releases-1');
    const first = await serve(dropA, dir);
    const current = await first.agent.get(DEFICIT);
    expect(current.status).toBe(200);
    const permalink = current.headers['content-location'];
    expect(permalink).toBe('/budget/api/releases/A/deficit/?year=2024');
    const before = await first.agent.get(permalink!);
    expect(before.status).toBe(200);
    expect(before.text).toBe(current.text);
    expect(before.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    await first.flip(dropB);
    expect((await first.agent.get(DEFICIT)).headers['content-location']).toBe('/budget/api/releases/B/deficit/?year=2024');
    expect((await first.agent.get(DEFICIT)).body).toEqual([expect.objectContaining({ year: 2024, value: 2 })]);
    const afterReload = await first.agent.get(permalink!);
    expect(afterReload.status).toBe(200);
    expect(afterReload.text).toBe(before.text);
    expect(afterReload.headers.etag).toBe(before.headers.etag);
    await first.flip(dropC);
    first.stop();
    running.splice(0);

    // A restart over the same RELEASES_DIR, serving C: A and B answer from their files.
    const again = await serve(dropC, dir);
    expect((await again.agent.get(permalink!)).text).toBe(before.text);
    const b = await again.agent.get('/budget/api/releases/B/deficit/?year=2024');
    expect(b.body).toEqual([expect.objectContaining({ year: 2024, value: 2 })]);
    const c = await again.agent.get(DEFICIT);
    expect(c.headers['content-location']).toBe('/budget/api/releases/C%202024%2F1/deficit/?year=2024');
    expect((await again.agent.get(c.headers['content-location']!)).text).toBe(c.text);
  });

  it('keeps the canonical query, the format and the paging links inside its release', async () => {
    const r = await serve(dropA, path.join(root, 'releases-2'));
    const page = await r.agent.get('/budget/api/expenses/?limit=1&year=2023');
    expect(page.headers['content-location']).toBe('/budget/api/releases/A/expenses/?year=2023&limit=1');
    const csv = await r.agent.get('/budget/api/totals/').set('Accept', 'text/csv');
    expect(csv.headers['content-location']).toBe('/budget/api/releases/A/totals/?format=csv');
    const old = await r.agent.get('/budget/api/releases/A/expenses/?limit=1&year=2023');
    expect(old.body.next).toBe(page.body.next.replace('/budget/api/', '/budget/api/releases/A/'));
    expect(old.headers.link).toContain('</budget/api/releases/A/expenses/?');
    const asCsv = await r.agent.get('/budget/api/releases/A/totals/?format=csv');
    expect(asCsv.headers['content-type']).toMatch(/^text\/csv/);
    expect(asCsv.text).toBe(csv.text);
    // A page asked with format=json keeps it in its links, and so in its permalink: the same bytes.
    const named = await r.agent.get('/budget/api/expenses/?format=json&limit=1&year=2023');
    expect(named.headers['content-location']).toBe('/budget/api/releases/A/expenses/?year=2023&limit=1&format=json');
    const namedThere = await r.agent.get(named.headers['content-location']!);
    expect(namedThere.body.next).toBe(named.body.next.replace('/budget/api/', '/budget/api/releases/A/'));
    expect(namedThere.body.next).toContain('format=json');
    // A bare array's permalink needs no format=json: its bytes do not depend on it.
    expect((await r.agent.get('/budget/api/totals/?format=json')).headers['content-location']).toBe('/budget/api/releases/A/totals/');
  });

  it('answers the same parameter errors as the current endpoint', async () => {
    const r = await serve(dropA, path.join(root, 'releases-3'));
    const res = await r.agent.get('/budget/api/releases/A/totals/?years=2020');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('unknown_parameter');
  });

  it('of a version never kept is a 404 unknown_release naming where the releases are', async () => {
    const r = await serve(dropA, path.join(root, 'releases-4'));
    const res = await r.agent.get('/budget/api/releases/nope/totals/');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.body.code).toBe('unknown_release');
    expect(res.body.detail).toContain('/budget/api/releases/');
  });
});

describe('the sample drop', () => {
  it("gives its 2024 deficit (the law's 10,600 MDT) a permalink that answers the same figure", async () => {
    const r = await serve(path.resolve('data'), path.join(root, 'releases-sample'));
    const version = r.store.served!.manifest.version;
    const res = await r.agent.get('/budget/api/deficit/?year=2024&stage=initial');
    expect(res.body).toEqual([expect.objectContaining({ year: 2024, value: 10600, stage: 'initial' })]);
    const permalink = `/budget/api/releases/${encodeURIComponent(version)}/deficit/?year=2024&stage=initial`;
    expect(res.headers['content-location']).toBe(permalink);
    expect((await r.agent.get(permalink)).text).toBe(res.text);
  });
});

describe('the releases', () => {
  it('are listed newest first with their change summaries, and as an Atom feed', async () => {
    const r = await serve(dropA, path.join(root, 'releases-5'));
    await r.flip(dropB);
    await r.flip(dropC);
    const list = await r.agent.get('/budget/api/releases/');
    expect(list.status).toBe(200);
    expect(list.body.map((x: { version: string }) => x.version)).toEqual(['C 2024/1', 'B', 'A']);
    const [c, b, a] = list.body;
    expect(c).toMatchObject({ current: true, last_served_at: null, fingerprint: r.store.served!.fingerprint, created_at: expect.any(String) });
    expect(b).toMatchObject({ current: false, last_served_at: c.first_served_at });
    expect(a.changes).toBeNull();
    expect(b.changes).toMatchObject({ previous_version: 'A', tables: { expenses: { changed: expect.any(Number) } } });
    expect(b.changes.tables.expenses.changed).toBeGreaterThan(0);
    expect(c.changes).toMatchObject({ previous_version: 'B' });
    expect(Date.parse(a.first_served_at)).toBeLessThanOrEqual(Date.parse(b.first_served_at));

    const feed = await r.agent.get('/budget/api/releases/feed.atom');
    expect(feed.status).toBe(200);
    expect(feed.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
    expect(feed.text).toContain('<feed xmlns="http://www.w3.org/2005/Atom">');
    expect(feed.text.match(/<entry>/g)).toHaveLength(3);
    expect(feed.text).toContain('<title>Release C 2024/1 (current)</title>');
    expect(feed.text).toContain('Against A: expenses');
  });

  it('tell a feed reader what changed in drop.json and the notes, in well-formed XML whatever the texts hold', async () => {
    const retold = await writeDrop(small, {
      version: 'A retold',
      manifest: (m) => {
        m.units = { name: 'MDT', currency: 'TND', scale: 1_000_000 };
        m.notes = [{ table: 'expenses', id: 1, text: 'Read again\u0001 from the law' }];
      },
    });
    const r = await serve(dropA, path.join(root, 'releases-feed-text'));
    await r.flip(retold);
    const feed = (await r.agent.get('/budget/api/releases/feed.atom')).text;
    const [entry] = feed.split('<entry>').slice(1);
    expect(entry).toContain(
      '<summary>Against A: no line changed. drop.json changed: notes, units. Note on expenses 1: Read again\uFFFD from the law.</summary>',
    );
    // XML 1.0 has no place for C0 controls but tab, line feed and carriage return.
    expect(feed).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
  });

  it("update a release's entry, and the feed, when it is served again", async () => {
    const r = await serve(dropA, path.join(root, 'releases-feed-again'));
    await r.flip(dropB);
    await r.flip(dropA);
    const list = (await r.agent.get('/budget/api/releases/')).body as { version: string; last_served_at: string | null }[];
    const backAt = list.find((x) => x.version === 'B')!.last_served_at!;
    const feed = (await r.agent.get('/budget/api/releases/feed.atom')).text;
    const updated = (text: string) => /<updated>([^<]+)<\/updated>/.exec(text)![1];
    const entries = feed.split('<entry>');
    // The feed, and A's entry, were updated when A was served again, when B stopped being served.
    expect(updated(entries[0]!)).toBe(backAt);
    const a = entries.find((e) => e.includes('<title>Release A (current)</title>'))!;
    expect(updated(a)).toBe(backAt);
  });

  it('refuse a drop whose version is already kept with other content, and keep serving', async () => {
    const r = await serve(dropA, path.join(root, 'releases-6'));
    await r.flip(dropB);
    const outcome = await r.reloader.reload('test');
    expect(outcome.status).toBe('ok');
    flipSymlink(r.link, dropAClash);
    const refused = await r.reloader.reload('test');
    expect(refused.status).toBe('rejected');
    expect(refused.reason).toMatch(/"A" is already a release with other content/);
    expect(r.store.served!.manifest.version).toBe('B');
    // The same content under its own version again is no clash: A is served again.
    await r.flip(dropA);
    expect(r.store.served!.manifest.version).toBe('A');
    const list = (await r.agent.get('/budget/api/releases/')).body;
    expect(list.find((x: { version: string }) => x.version === 'A').current).toBe(true);
  });

  it('keep only the last RELEASES_KEEP, never the current one', async () => {
    const dir = path.join(root, 'releases-7');
    const r = await serve(dropA, dir, undefined, { RELEASES_KEEP: '2' });
    await r.flip(dropB);
    await r.flip(dropC);
    const list = (await r.agent.get('/budget/api/releases/')).body;
    expect(list.map((x: { version: string }) => x.version)).toEqual(['C 2024/1', 'B']);
    expect(readdirSync(dir).filter((name) => !name.startsWith('.'))).toHaveLength(2);
    expect((await r.agent.get('/budget/api/releases/A/totals/')).body.code).toBe('unknown_release');
  });
});

describe('a restart onto a new drop', () => {
  it('keeps its change summary against the release before, even when RELEASES_KEEP=1 removes that one', async () => {
    const dir = path.join(root, 'releases-keep-1');
    const first = await serve(dropA, dir, undefined, { RELEASES_KEEP: '1' });
    first.stop();
    running.splice(0);

    const again = await serve(dropB, dir, undefined, { RELEASES_KEEP: '1' });
    await again.releases.settled();
    const list = (await again.agent.get('/budget/api/releases/')).body;
    expect(list.map((x: { version: string }) => x.version)).toEqual(['B']);
    // B multiplies every one of A's six expense amounts.
    expect(list[0].changes).toMatchObject({ previous_version: 'A', tables: { expenses: { changed: 6 } } });
    expect((await again.agent.get('/budget/api/releases/feed.atom')).text).toContain('Against A: expenses');
    const [kept] = readdirSync(dir).filter((name) => !name.startsWith('.'));
    expect(JSON.parse(readFileSync(path.join(dir, kept!, 'release.json'), 'utf8')).changes).toMatchObject({ previous_version: 'A' });
  });

  it('are told in /meta/ after a restart onto a new drop, as /releases/ tells them', async () => {
    const dir = path.join(root, 'releases-restart-meta');
    const first = await serve(dropA, dir);
    expect((await first.agent.get('/budget/api/meta/')).body).toMatchObject({ previous_version: null, changes: null });
    first.stop();
    running.splice(0);

    const again = await serve(dropB, dir);
    await again.releases.settled();
    const meta = (await again.agent.get('/budget/api/meta/')).body;
    const [b] = (await again.agent.get('/budget/api/releases/')).body;
    expect(meta.previous_version).toBe('A');
    expect(meta.changes).toEqual({
      tables: b.changes.tables,
      years_with_moved_totals: b.changes.years_with_moved_totals,
      drop_json: b.changes.drop_json,
      notes: b.changes.notes,
    });
    expect(meta.changes.tables.expenses).toMatchObject({ changed: 6 });
  });
});

describe('Accept-Datetime (Memento, RFC 7089)', () => {
  it('answers from the release served at that instant, with Memento-Datetime, Vary and its permalink', async () => {
    const r = await serve(dropA, path.join(root, 'releases-8'));
    const aStarted = r.releases.get('A')!.served[0]!.from;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await r.flip(dropB);
    const now = await r.agent.get(DEFICIT);
    expect(now.body).toEqual([expect.objectContaining({ value: 2 })]);
    expect(now.headers.vary).toContain('Accept-Datetime');

    // Accept-Datetime counts whole seconds: A's own second names A, since B started at least 1.1 s
    // later (A's start + 0.5 s could fall in B's second).
    const then = await r.agent.get(DEFICIT).set('Accept-Datetime', new Date(aStarted).toUTCString());
    expect(then.status).toBe(200);
    expect(then.body).toEqual([expect.objectContaining({ value: 1 })]);
    expect(then.headers['memento-datetime']).toBe(new Date(aStarted).toUTCString());
    expect(then.headers['content-location']).toBe('/budget/api/releases/A/deficit/?year=2024');
    expect(then.headers.vary).toContain('Accept-Datetime');
    // The original resource is the URL asked, its query included (RFC 7089).
    expect(then.headers.link).toBe('</budget/api/deficit/?year=2024>; rel="original timegate", </budget/api/releases/>; rel="timemap"');
    // A script on another origin can read the permalink and its date.
    expect(then.headers['access-control-expose-headers']!.split(', ')).toEqual(expect.arrayContaining(['Content-Location', 'Memento-Datetime']));
    // Memento-Datetime sent back as Accept-Datetime names the same release.
    const same = await r.agent.get(DEFICIT).set('Accept-Datetime', then.headers['memento-datetime']!);
    expect(same.body).toEqual(then.body);
    // A cached current answer is never given to a Memento request.
    expect((await r.agent.get(DEFICIT).set('Accept-Datetime', new Date().toUTCString())).body).toEqual(now.body);
  });

  it('answers from the release served then, or 404 when that one is no longer kept, never from another (RELEASES_KEEP=2)', async () => {
    const r = await serve(dropA, path.join(root, 'releases-memento-pruned'), undefined, { RELEASES_KEEP: '2' });
    const second = () => new Promise((resolve) => setTimeout(resolve, 1100));
    await second();
    await r.flip(dropB);
    // Instants taken a second into a release's time and a second before its end: whole seconds
    // (Accept-Datetime's unit) apart from the releases before and after.
    await second();
    const bServed = new Date().toUTCString();
    await second();
    await r.flip(dropA);
    await second();
    const aServedAgain = new Date().toUTCString();
    await second();
    await r.flip(dropC);
    // Kept: C, and A, served after B: the releases served last are kept, not the first served last.
    expect((await r.agent.get('/budget/api/releases/')).body.map((x: { version: string }) => x.version)).toEqual(['C 2024/1', 'A']);
    const then = await r.agent.get(DEFICIT).set('Accept-Datetime', aServedAgain);
    expect(then.headers['content-location']).toBe('/budget/api/releases/A/deficit/?year=2024');
    expect(then.body).toEqual([expect.objectContaining({ value: 1 })]);
    // B, served then, is gone: not A's nor C's figures in its place.
    const gone = await r.agent.get(DEFICIT).set('Accept-Datetime', bServed);
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('unknown_release');
  });

  it('reads the three forms of HTTP-date RFC 9110 has recipients read, the obsolete two included', async () => {
    const r = await serve(dropA, path.join(root, 'releases-date-forms'));
    const now = new Date(Date.now() + 1000);
    const [weekday, day, month, year, time] = now.toUTCString().replace(',', '').split(' ') as [string, string, string, string, string];
    const long = new Intl.DateTimeFormat('en-US', { weekday: 'long', timeZone: 'UTC' }).format(now);
    const forms = [
      now.toUTCString(),
      `${long}, ${day}-${month}-${year.slice(2)} ${time} GMT`, // RFC 850
      `${weekday} ${month} ${String(Number(day)).padStart(2, ' ')} ${time} ${year}`, // asctime
    ];
    for (const form of forms) {
      const res = await r.agent.get(DEFICIT).set('Accept-Datetime', form);
      expect(res.status, form).toBe(200);
      expect(res.headers['content-location'], form).toBe('/budget/api/releases/A/deficit/?year=2024');
    }
    // RFC 850's two-digit year: more than 50 years ahead is the past century (RFC 9110), by date.
    const rfc850 = (date: Date) => {
      const [, day, month, year, time] = date.toUTCString().replace(',', '').split(' ') as [string, string, string, string, string];
      return `${new Intl.DateTimeFormat('en-US', { weekday: 'long', timeZone: 'UTC' }).format(date)}, ${day}-${month}-${year.slice(2)} ${time} GMT`;
    };
    const ahead = (years: number, days: number) => {
      const date = new Date();
      date.setUTCFullYear(date.getUTCFullYear() + years);
      return new Date(date.getTime() + days * 86_400_000);
    };
    // The last second of the year 50 years ahead is more than 50 years ahead by date, though not
    // by year: its two digits name the past century's date, before any release.
    const past = new Date(Date.UTC(new Date().getUTCFullYear() - 50, 11, 31, 23, 59, 59));
    expect((await r.agent.get(DEFICIT).set('Accept-Datetime', rfc850(past))).status).toBe(404);
    // 50 years less 40 days ahead: still the future, answered by the release served now.
    expect((await r.agent.get(DEFICIT).set('Accept-Datetime', rfc850(ahead(50, -40)))).status).toBe(200);
    for (const bad of ['Tuesday, 31-Feb-26 00:00:00 GMT', 'Sun Feb 31 00:00:00 2026', 'Tuesday, 30-Nov-26 00:00:00 GMT']) {
      expect((await r.agent.get(DEFICIT).set('Accept-Datetime', bad)).status, bad).toBe(400);
    }
  });

  it('before the first release kept is a 404 unknown_release; a date it cannot read a 400', async () => {
    const r = await serve(dropA, path.join(root, 'releases-9'));
    const before = await r.agent.get(DEFICIT).set('Accept-Datetime', 'Sat, 01 Jan 2000 00:00:00 GMT');
    expect(before.status).toBe(404);
    expect(before.body.code).toBe('unknown_release');
    // HTTP-dates only: Date.parse would read "0" as 2000 and 31 February as 3 March.
    for (const value of ['yesterday', '0', '-1', 'Sat, 31 Feb 2026 00:00:00 GMT', '2026-11-29T18:00:00Z']) {
      const bad = await r.agent.get(DEFICIT).set('Accept-Datetime', value);
      expect(bad.status, value).toBe(400);
      expect(bad.body.code, value).toBe('invalid_request');
    }
  });
});

describe('an older release not open yet', () => {
  it('keeps a request waiting for it to open no longer than a query may wait and run: 503 overloaded, then served once open', async () => {
    const dir = path.join(root, 'releases-opening');
    // 200,000 lines: opening it takes far longer than the 101 ms below.
    const big = await writeDrop(
      {
        ...small,
        expenses: {
          sql: `SELECT i AS id, 2023 + i % 2 AS year, 1.5::DECIMAL(18,3) AS amount, 11 AS category_id, 1 AS organization_id, false AS complementary
                FROM range(1, 200001) AS r(i)`,
        },
      },
      { version: 'A' },
    );
    const first = await serve(big, dir);
    await first.flip(dropB);
    first.stop();
    running.splice(0);
    // A fresh process over B: A is kept on disk only.
    const r = await serve(dropB, dir, undefined, {}, { queueWaitMs: 1, timeoutMs: 100 });
    const waited = await r.agent.get('/budget/api/releases/A/deficit/?year=2024');
    expect(waited.status).toBe(503);
    expect(waited.body).toMatchObject({ code: 'overloaded', detail: 'release A is being opened from its files; retry in a second' });
    expect(waited.headers['retry-after']).toBe('1');
    let answered = waited;
    for (let tries = 0; tries < 400 && answered.status !== 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answered = await r.agent.get('/budget/api/releases/A/deficit/?year=2024');
    }
    expect(answered.status).toBe(200);
    expect(answered.headers['memento-datetime']).toBeDefined();
  });
});

describe('a restart over a drop that fails validation', () => {
  it('serves the newest kept release and says in /meta/ why', async () => {
    const dir = path.join(root, 'releases-10');
    const first = await serve(dropA, dir);
    await first.flip(dropB);
    first.stop();
    running.splice(0);
    const broken = await writeDrop(small, {
      version: 'broken',
      manifest: (m) => {
        m.files['deficit.parquet']!.rows += 1;
        m.files['gdp.parquet']!.sha256 = '0'.repeat(64);
      },
    });
    const r = await serve(broken, dir);
    expect(r.store.served!.manifest.version).toBe('B');
    const meta = (await r.agent.get('/budget/api/meta/')).body;
    expect(meta.version).toBe('B');
    expect(meta.last_reload).toMatchObject({ status: 'rejected', rejected_version: 'broken' });
    // Every problem, as a reload and the CLI list them, not only the first.
    expect(meta.last_reload.problems).toHaveLength(2);
    expect(meta.last_reload.problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/^deficit\.parquet: row count/), expect.stringMatching(/^gdp\.parquet: sha256/)]),
    );
    expect(meta.last_reload.reason).toBe(meta.last_reload.problems[0]);
  });

  it('serves the release served last: after a flip back from B to A, A', async () => {
    const dir = path.join(root, 'releases-flipped-back');
    const first = await serve(dropA, dir);
    await first.flip(dropB);
    await first.flip(dropA);
    first.stop();
    running.splice(0);
    const broken = await writeDrop(small, { version: 'broken', manifest: (m) => void (m.files['gdp.parquet']!.sha256 = '0'.repeat(64)) });
    const r = await serve(broken, dir);
    expect(r.store.served!.manifest.version).toBe('A');
  });

  it('as a process stopped as soon as it listens: keeps the release of the drop it loaded', async () => {
    const releasesDir = path.join(root, 'releases-13');
    const stopped = start({ DATA_DIR: dropA, RELEASES_DIR: releasesDir });
    await listening(stopped);
    stopped.child.kill('SIGTERM');
    expect((await stopped.exit).code).toBe(0);
    const [kept] = readdirSync(releasesDir).filter((name) => !name.startsWith('.'));
    expect(readdirSync(path.join(releasesDir, kept!))).toContain('release.json');
  });

  it('as a process: serves the newest kept release, and exits 1 only when none is kept', async () => {
    const releasesDir = path.join(root, 'releases-11');
    const good = start({ DATA_DIR: dropA, RELEASES_DIR: releasesDir });
    const port = await listening(good);
    const permalink = (await fetch(`http://127.0.0.1:${port}${DEFICIT}`)).headers.get('content-location');
    const body = await (await fetch(`http://127.0.0.1:${port}${permalink}`)).text();
    good.child.kill('SIGTERM');
    expect((await good.exit).code).toBe(0);

    const broken = await writeDrop(small, { version: 'broken', manifest: (m) => void (m.files['deficit.parquet']!.rows += 1) });
    const fallback = start({ DATA_DIR: broken, RELEASES_DIR: releasesDir });
    const again = await listening(fallback);
    const meta = await (await fetch(`http://127.0.0.1:${again}/budget/api/meta/`)).json();
    expect(meta).toMatchObject({ version: 'A', last_reload: { status: 'rejected' } });
    expect(await (await fetch(`http://127.0.0.1:${again}${permalink}`)).text()).toBe(body);
    fallback.child.kill('SIGTERM');
    await fallback.exit;

    const nothing = start({ DATA_DIR: broken, RELEASES_DIR: path.join(root, 'releases-12') });
    const { code, stderr } = await nothing.exit;
    expect(code).toBe(1);
    expect(stderr).toContain('row count');
  }, 60_000);
});

describe('DATA_URL drops', () => {
  it('become releases the same way, and a new replica gets the history from the published versions', async () => {
    const s3 = await startS3('drops');
    const env = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL: s3.endpoint };
    Object.assign(process.env, env);
    const opened: { remote: RemoteDrops; store: Store; releases: Releases }[] = [];
    try {
      /** A replica as server.ts starts it with DATA_URL. */
      const replica = async (releasesDir: string) => {
        const store = new Store(4);
        const releases = await Releases.open({ dir: releasesDir, keep: 20, store });
        const remote = new RemoteDrops({ dataUrl: 's3://drops/budget/', store });
        opened.push({ remote, store, releases });
        await serveAtStartup(store, () => remote.download());
        await releases.settled();
        return {
          store,
          releases,
          remote,
          agent: request(createApp({ config: parseConfig({ RATE_LIMIT: '0', DATA_URL: 's3://drops/budget/' }), store })),
        };
      };
      await publishDrop(dropA, 's3://drops/budget/');
      const first = await replica(path.join(root, 'releases-s3-1'));
      const permalink = (await first.agent.get(DEFICIT)).headers['content-location'];
      const before = (await first.agent.get(permalink!)).text;
      await publishDrop(dropB, 's3://drops/budget/');
      await first.remote.check('test');
      await first.releases.settled();
      expect(first.store.served!.manifest.version).toBe('B');
      expect((await first.agent.get(permalink!)).text).toBe(before);
      await expect(publishDrop(dropAClash, 's3://drops/budget/')).rejects.toThrow(/"A" is already published/);

      // A new replica copies the published versions (s3://drops/budget/releases/) into its RELEASES_DIR first.
      const seeded = path.join(root, 'releases-s3-2');
      const client = s3Client();
      const listed = await client.send(new ListObjectsV2Command({ Bucket: 'drops', Prefix: 'budget/releases/' }));
      for (const { Key } of listed.Contents ?? []) {
        const target = path.join(seeded, Key!.slice('budget/releases/'.length));
        mkdirSync(path.dirname(target), { recursive: true });
        const object = await client.send(new GetObjectCommand({ Bucket: 'drops', Key }));
        writeFileSync(target, await object.Body!.transformToByteArray());
      }
      client.destroy();
      const second = await replica(seeded);
      const list = (await second.agent.get('/budget/api/releases/')).body;
      expect(list.map((x: { version: string; current: boolean }) => [x.version, x.current])).toEqual([
        ['B', true],
        ['A', false],
      ]);
      expect((await second.agent.get(permalink!)).text).toBe(before);
    } finally {
      for (const { remote, store, releases } of opened) {
        await remote.close();
        releases.close();
        store.close();
      }
      await s3.stop();
      for (const name of Object.keys(env)) delete process.env[name];
    }
  }, 60_000);
});
