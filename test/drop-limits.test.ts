/**
 * How big a drop may be (security review, finding 5): row counts, text and tree depth are
 * checked before the load steps whose memory grows with them, and a drop past a limit is rejected
 * like any invalid drop, the drop being served still serving.
 */
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DropError, loadDrop } from '../src/data/drop.js';
import { Reloader } from '../src/data/reloader.js';
import { small } from './fixtures/small.js';
import { appServing } from './helpers/app.js';
import { writeDrop } from './helpers/drop.js';
import { flipSymlink } from './helpers/symlink.js';
import request from 'supertest';

/** The small drop with a chain of `depth` expense categories under category 50 (itself level 1). */
function withChain(depth: number) {
  const chain = Array.from({ length: depth - 1 }, (_, i) => ({
    id: 1000 + i,
    name: `Niveau ${i + 2}`,
    type: 'expense',
    parent_id: i === 0 ? 50 : 1000 + i - 1,
  }));
  return { ...small, categories: [...(small.categories as Record<string, unknown>[]), ...chain] };
}

async function problemsOf(load: Promise<unknown>): Promise<{ file: string; rule: string; examples: unknown[] }[]> {
  const error = await load.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DropError);
  return (error as DropError).problems as never;
}

describe('a drop past the size limits', () => {
  it('is rejected when a tree is deeper than 32 levels, before its closure is derived', async () => {
    await expect(loadDrop(await writeDrop(withChain(32)))).resolves.toBeDefined();
    const problems = await problemsOf(loadDrop(await writeDrop(withChain(40))));
    expect(problems).toEqual([
      expect.objectContaining({
        file: 'categories.parquet',
        rule: 'a tree must be at most 32 levels deep (parent_id chains)',
        examples: [{ id: 1031, level: 33 }],
      }),
    ]);
  });

  it('is rejected when a text value is longer than 10,000 characters, naming the row', async () => {
    const long = 'x'.repeat(10_001);
    const dir = await writeDrop({
      ...small,
      organizations: [...(small.organizations as Record<string, unknown>[]), { id: 9, name: long, code: 'LONG' }],
    });
    const problems = await problemsOf(loadDrop(dir));
    expect(problems).toEqual([
      expect.objectContaining({
        file: 'organizations.parquet',
        rule: 'name must be at most 10,000 characters',
        examples: [{ id: 9, length: 10_001 }],
      }),
    ]);
  });

  it('is rejected from its Parquet metadata, before its data is read, when a text column is too big for one row group', async () => {
    const organizations = Array.from({ length: 200 }, (_, i) => ({
      id: i + 1,
      name: `Organisation numéro ${i + 1} ${'y'.repeat(40)}`,
      code: `C${i + 1}`,
    }));
    const dir = await writeDrop({ ...small, organizations });
    const problems = await problemsOf(loadDrop(dir, { limits: { maxTextChunkBytes: 4096 } }));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.file).toBe('organizations.parquet');
    expect(problems[0]!.rule).toMatch(
      /^a text column must hold at most 0 MB per row group \(name holds \d+ MB\); text values must be at most 10,000 characters$/,
    );
  });

  it('is rejected from the row counts drop.json states, before any file is read', async () => {
    const problems = await problemsOf(loadDrop(await writeDrop(small), { limits: { maxRows: 2 } }));
    expect(problems.map((p) => `${p.file}: ${p.rule}`)).toContain('organizations.parquet: must have at most 2 rows (drop.json says 3)');
  });

  it('on reload, leaves the drop being served serving, and /meta/ says why', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'budget-limits-'));
    const good = await writeDrop(small);
    const deep = await writeDrop(withChain(40));
    const link = path.join(root, 'current');
    symlinkSync(good, link);
    const t = await appServing(link);
    const reloader = new Reloader({ dataDir: link, store: t.store, debounceMs: 50 });
    try {
      const before = await request(t.app).get('/budget/api/totals/');
      expect(before.status).toBe(200);
      flipSymlink(link, deep);
      const outcome = await reloader.reload('test');
      expect(outcome.status).toBe('rejected');
      const after = await request(t.app).get('/budget/api/totals/');
      expect(after.status).toBe(200);
      expect(after.body).toEqual(before.body);
      const meta = await request(t.app).get('/budget/api/meta/');
      expect(JSON.stringify(meta.body.last_reload)).toContain('levels deep');
    } finally {
      reloader.close();
      await t.close();
    }
  });
});
