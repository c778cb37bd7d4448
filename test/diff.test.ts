/**
 * `budget-data diff` as an analyst runs it: a real process comparing real drops, given as
 * directories or as URLs served over HTTP. The two drops differ in known ways, so every count and
 * total below is worked out by hand from the small fixture.
 */
import { createReadStream, existsSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { cli } from './helpers/cli.js';
import { writeDrop, type DropData } from './helpers/drop.js';

/**
 * The new drop: organization 3 renamed; expense 4 raised from 300 to 350, expense 6 (2024, 0.2)
 * removed, expense 7 (2025, 10) added; the 2024 deficit from 1 to 2. Everything else as before.
 */
const changed: DropData = {
  ...small,
  organizations: small.organizations!.map((o) =>
    (o as { id: number }).id === 3 ? { ...(o as object), name: 'Agence renommée' } : o,
  ) as DropData['organizations'],
  expenses: [
    ...(small.expenses as { id: number; amount: number }[]).filter((e) => e.id !== 6).map((e) => (e.id === 4 ? { ...e, amount: 350 } : e)),
    { id: 7, year: 2025, amount: 10, category_id: 20, organization_id: 2, complementary: false },
  ] as DropData['expenses'],
  deficit: [
    { year: 2022, value: -43.45 },
    { year: 2024, value: 2 },
  ],
};

let before: string;
let after: string;
let sameAsBefore: string;
let server: Server;
let base: string;
beforeAll(async () => {
  before = await writeDrop(small, { version: 'v1' });
  sameAsBefore = await writeDrop(small, { version: 'v1, rebuilt' });
  after = await writeDrop(changed, { version: 'v2' });
  // A static file server over the two drops, as a web server would publish them.
  server = createServer((req, res) => {
    const [, name, file] = (req.url ?? '').split('/');
    const dir = name === 'before' ? before : name === 'after' ? after : null;
    const target = dir && file && !file.includes('..') ? path.join(dir, file) : null;
    if (!target || !existsSync(target)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200);
    createReadStream(target).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  for (const dir of [before, after, sameAsBefore]) rmSync(dir, { recursive: true, force: true });
});

describe('budget-data diff', () => {
  describe('on two directories that differ', () => {
    it('prints per table the rows added, removed and changed with examples, and the totals per year, and exits 1', async () => {
      const { code, stdout, stderr } = await cli('diff', before, after);
      expect({ code, stderr }).toEqual({ code: 1, stderr: '' });
      const lines = stdout.split('\n');
      expect(lines.slice(0, 3)).toEqual(['before: "v1" (2026-01-01T00:00:00Z)', 'after:  "v2" (2026-01-01T00:00:00Z)', 'the drops differ']);
      expect(lines).toContain('organizations               3          3          0          0          1  id');
      expect(lines).toContain('expenses                    6          6          1          1          1  id');
      expect(lines).toContain('resources                   4          4          0          0          0  id');
      expect(lines).toContain('deficit                     2          2          0          0          1  year');
      expect(lines).toContain('  changed: id 3: name "Agence sans crédits" → "Agence renommée"');
      expect(lines).toContain('  added:   id 7');
      expect(lines).toContain('  removed: id 6');
      expect(lines).toContain('  changed: id 4: amount 300 → 350');
      expect(lines).toContain('  changed: year 2024: value 1 → 2');
      // 2023 expenses 100.1 + 200.2 + 50.05, resources 1000 + 500.5 + 99.999; 2024 expenses
      // 300 + 0.1 + 0.2 before, 350 + 0.1 after; 2025 only after.
      const totals = lines.slice(lines.findIndex((l) => l.startsWith('totals per year')) + 2).filter(Boolean);
      expect(totals).toEqual([
        '2023             350.35           350.35         1,600.499        1,600.499',
        '2024              300.3            350.1               800              800  moved',
        '2025                  —               10                 —                —  moved',
      ]);
    });

    it('gives the same as one JSON document with --json', async () => {
      const { code, stdout } = await cli('diff', before, after, '--json');
      expect(code).toBe(1);
      const diff = JSON.parse(stdout);
      expect(diff).toMatchObject({ before: { version: 'v1' }, after: { version: 'v2' }, equal: false });
      const byName = Object.fromEntries(diff.tables.map((t: { table: string }) => [t.table, t]));
      expect(byName.expenses).toEqual({
        table: 'expenses',
        key: ['id'],
        rows_before: 6,
        rows_after: 6,
        added: 1,
        removed: 1,
        changed: 1,
        examples: { added: [{ id: 7 }], removed: [{ id: 6 }], changed: [{ key: { id: 4 }, columns: { amount: { before: 300, after: 350 } } }] },
      });
      expect(byName.deficit).toMatchObject({ key: ['year'], added: 0, removed: 0, changed: 1 });
      expect(byName.gdp).toMatchObject({ added: 0, removed: 0, changed: 0 });
      expect(diff.totals).toEqual([
        { year: 2023, expenses_before: 350.35, expenses_after: 350.35, resources_before: 1600.499, resources_after: 1600.499, moved: false },
        { year: 2024, expenses_before: 300.3, expenses_after: 350.1, resources_before: 800, resources_after: 800, moved: true },
        { year: 2025, expenses_before: null, expenses_after: 10, resources_before: null, resources_after: null, moved: true },
      ]);
    });
  });

  it('exits 0 on two drops with the same rows, whatever their versions', async () => {
    const { code, stdout } = await cli('diff', before, sameAsBefore);
    expect(code).toBe(0);
    expect(stdout.split('\n')[2]).toBe('the drops hold the same rows');
  });

  it('exits 0 when drop.json gives as an empty list what the other leaves out: the same answers', async () => {
    const withEmptyLists = await writeDrop(small, {
      version: 'v1b',
      manifest: (m) => Object.assign(m, { known_gaps: [], control_totals: [], notes: [] }),
    });
    const { code, stdout } = await cli('diff', before, withEmptyLists);
    expect(code, stdout).toBe(0);
    expect(stdout).not.toContain('drop.json');
  });

  describe('with stages', () => {
    it('counts no change when lines only gain the stage their complementary flag implies', async () => {
      const staged = await writeDrop({
        ...small,
        expenses: (small.expenses as { complementary: boolean }[]).map((e) => ({
          ...e,
          stage: e.complementary ? 'amendment' : 'initial',
        })) as DropData['expenses'],
      });
      const { code, stdout } = await cli('diff', before, staged, '--json');
      expect(code).toBe(0);
      expect(JSON.parse(stdout).tables.find((t: { table: string }) => t.table === 'expenses')).toMatchObject({ key: ['id'], changed: 0 });
      rmSync(staged, { recursive: true, force: true });
    });

    it('gives a line of drops without a stage column the stage its complementary flag says, as the API does', async () => {
      // Expense 3 (2023, 50.05) is an amendment by its flag; expense 6 (2024, 0.2) an initial line.
      const fewer = await writeDrop({ ...small, expenses: (small.expenses as { id: number }[]).filter((e) => e.id !== 3) as DropData['expenses'] });
      const text = await cli('diff', before, fewer);
      expect(text.stdout.split('\n')).toContain('  removed expenses 3: 2023, 50.05, Fonctionnement, Ministère de la Santé, amendment, source: —');
      const json = await cli('diff', before, after, '--format', 'json');
      expect(JSON.parse(json.stdout).lines.map((l: { id: number; change: string; stage: string }) => [l.change, l.id, l.stage])).toEqual([
        ['changed', 4, 'initial'],
        ['removed', 6, 'initial'],
        ['added', 7, 'initial'],
      ]);
      rmSync(fewer, { recursive: true, force: true });
    });

    it('matches series by year and stage, so a row given a stage is another row, and counts only initial and amendment lines in the totals', async () => {
      const staged = await writeDrop({
        ...small,
        deficit: [
          { year: 2022, value: -43.45, stage: 'initial' },
          { year: 2024, value: 1, stage: 'initial' },
        ],
        // An outturn line of 2024 (1000) changes no total: totals are the law's.
        expenses: [
          ...(small.expenses as { complementary: boolean }[]).map((e) => ({ ...e, stage: e.complementary ? 'amendment' : 'initial' })),
          { id: 8, year: 2024, amount: 1000, category_id: 20, organization_id: 2, complementary: false, stage: 'outturn' },
        ] as DropData['expenses'],
      });
      const { code, stdout } = await cli('diff', before, staged, '--json');
      expect(code).toBe(1);
      const diff = JSON.parse(stdout);
      expect(diff.tables.find((t: { table: string }) => t.table === 'deficit')).toMatchObject({
        key: ['year', 'stage'],
        added: 2,
        removed: 2,
        changed: 0,
        examples: {
          added: [
            { year: 2022, stage: 'initial' },
            { year: 2024, stage: 'initial' },
          ],
          removed: [
            { year: 2022, stage: null },
            { year: 2024, stage: null },
          ],
        },
      });
      expect(diff.tables.find((t: { table: string }) => t.table === 'expenses')).toMatchObject({ added: 1, removed: 0, changed: 0 });
      expect(diff.totals.map((t: { moved: boolean }) => t.moved)).toEqual([false, false]);
      rmSync(staged, { recursive: true, force: true });
    });
  });

  it('reads drops published at http URLs', async () => {
    const { code, stdout } = await cli('diff', `${base}/before/`, `${base}/after`, '--json');
    expect(code).toBe(1);
    const expenses = JSON.parse(stdout).tables.find((t: { table: string }) => t.table === 'expenses');
    expect(expenses).toMatchObject({ added: 1, removed: 1, changed: 1 });
  });

  describe('exits 2 with the reason on stderr', () => {
    it('when a directory holds no drop', async () => {
      const { code, stdout, stderr } = await cli('diff', before, path.join(before, 'nowhere'));
      expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
      expect(stderr).toBe(
        `budget-data: diff failed: ${path.join(before, 'nowhere')}: no drop.json (a drop is a directory of Parquet files and its drop.json)\n`,
      );
    });

    it('when a file drop.json lists is missing, saying so', async () => {
      const lacking = await writeDrop(small, { version: 'lacking' });
      rmSync(path.join(lacking, 'gdp.parquet'));
      const { code, stderr } = await cli('diff', before, lacking);
      expect(code).toBe(2);
      expect(stderr).toBe(`budget-data: diff failed: gdp.parquet: listed in drop.json but missing (${path.join(lacking, 'gdp.parquet')})\n`);
    });

    it('when a URL answers 404', async () => {
      const { code, stderr } = await cli('diff', before, `${base}/missing/`);
      expect(code).toBe(2);
      expect(stderr).toBe(`budget-data: diff failed: ${base}/missing/drop.json: HTTP 404\n`);
    });

    it('when one drop is missing', async () => {
      const { code, stderr } = await cli('diff', before);
      expect(code).toBe(2);
      expect(stderr).toMatch(/^budget-data: diff takes OLD NEW, got /);
    });
  });
});
