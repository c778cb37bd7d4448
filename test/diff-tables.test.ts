/**
 * The diff compares every table of the drop format, each on the key its spec gives (schema.ts):
 * a table added to the format cannot be left out of diffs and of /meta/'s change summary.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffDrops, dropSideOf, summarize, type DropDiff } from '../src/data/diff.js';
import { TABLES } from '../src/data/schema.js';
import { synthDrop } from '../src/tools/synth.js';

let dir: string;
let diff: DropDiff;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'diff-tables-'));
  // Drops with stages and sources have a file for every table, optional ones too.
  await synthDrop(path.join(dir, 'a'), { expenseLines: 66, seed: 1, stages: true });
  await synthDrop(path.join(dir, 'b'), { expenseLines: 70, seed: 2, stages: true });
  diff = await diffDrops(await dropSideOf(path.join(dir, 'a')), await dropSideOf(path.join(dir, 'b')));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the tables a diff compares', () => {
  it('are every table of the drop format', () => {
    expect(diff.tables.map((t) => t.table).sort()).toEqual(TABLES.map((t) => t.name).sort());
    expect(Object.keys(summarize(diff).tables).sort()).toEqual(TABLES.map((t) => t.name).sort());
  });

  it("match rows on each table's key, as its spec gives it", () => {
    for (const table of TABLES) expect(diff.tables.find((t) => t.table === table.name)?.key, table.name).toEqual(table.key);
  });
});
