/**
 * Contract section 13 as an analyst meets it: the real `budget-data` CLI on drops the tests build
 * from CSV files and workbooks, and the real server over the directories it writes.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import writeXlsxFile from 'write-excel-file/node';
import { afterAll, describe, expect, it } from 'vitest';
import { TABLES } from '../src/data/schema.js';
import { ROOT, cli } from './helpers/cli.js';
import { listening, start } from './helpers/server.js';

const root = mkdtempSync(path.join(tmpdir(), 'budget-analyst-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const dir = (name: string) => path.join(root, name);
const SAMPLE = path.join(ROOT, 'data', 'sources');

/** A small budget: 2025 as published, 2026 the new finance law (63,000 on each side). */
const CSV: Record<string, string> = {
  organizations: ['id,name,code', '1,Ministère des Finances,MF', '2,Ministère de l’Éducation,ME'].join('\n'),
  categories: ['id,name,type,parent_id', '1,Dépenses,expense,', '2,Rémunérations,expense,1', '3,Recettes fiscales,resource,'].join('\n'),
  expenses: [
    'id,year,amount,category_id,organization_id,complementary,stage,source_id,derived',
    '1,2025,30000,2,1,false,initial,1,false',
    '2,2025,29800,2,2,false,initial,1,false',
    '3,2026,33000,2,1,false,initial,2,false',
    '4,2026,30000,2,2,false,initial,2,false',
  ].join('\n'),
  resources: ['id,year,amount,category_id,organization_id,complementary,stage,source_id,derived', '1,2025,59800,3,,false,initial,1,false', '2,2026,63000,3,,false,initial,2,false'].join(
    '\n',
  ),
  debt_origins: ['id,parent_id,name', '1,,Dette intérieure'].join('\n'),
  debt: ['year,debt_origin_id,value', '2025,1,9000'].join('\n'),
  gdp: ['year,gdp', '2025,170000', '2026,180000'].join('\n'),
  outstanding_debt: ['year,outstanding_debt', '2025,140000'].join('\n'),
  deficit: ['year,value', '2025,5000'].join('\n'),
  sources: ['id,title,url,publisher,published,quote', '1,Loi de finances 2025,,Ministère des Finances,2024-12-10,', '2,Loi de finances 2026,,Ministère des Finances,2025-12-10,'].join('\n'),
  population: ['year,population', '2025,12100000', '2026,12200000'].join('\n'),
};

/** A directory of the CSV files above, with `changes` (a table's text, or null to leave it out). */
function sources(name: string, changes: Record<string, string | null> = {}): string {
  const src = dir(name);
  mkdirSync(src, { recursive: true });
  for (const [table, text] of Object.entries({ ...CSV, ...changes })) if (text !== null) writeFileSync(path.join(src, `${table}.csv`), `${text}\n`);
  return src;
}

/** Every file under `where` with its sha256: a directory byte for byte. */
function snapshot(where: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(where, { recursive: true }) as string[]) {
    const file = path.join(where, entry);
    if (statSync(file).isFile()) out[entry] = createHash('sha256').update(readFileSync(file)).digest('hex');
  }
  return out;
}

const manifestOf = (where: string) => JSON.parse(readFileSync(path.join(where, 'drop.json'), 'utf8'));

async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read().catch(() => undefined as T);
    if ((value !== undefined && accept(value)) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('nothing half-done', () => {
  it('refuses a bad build into a served directory, which stays byte for byte as it was; the server keeps serving it, notices a good build, and restarts on it', async () => {
    const served = dir('served');
    expect(await cli('build', sources('good'), served, '--version', 'v1', '--created-at', '2026-01-01T00:00:00Z')).toMatchObject({ code: 0 });
    writeFileSync(path.join(served, 'README.txt'), 'kept by the analyst\n');
    const before = snapshot(served);

    const server = start({ DATA_DIR: served });
    try {
      const port = await listening(server);
      const meta = () => fetch(`http://127.0.0.1:${port}/budget/api/meta/`).then((r) => r.json() as Promise<any>);
      expect((await meta()).version).toBe('v1');

      // An expense line on a category that does not exist: each file is fine alone, the drop is not.
      const dangling = CSV.expenses!.replace('\n4,2026,30000,2,2,', '\n4,2026,30000,9,2,');
      const bad = await cli('build', sources('bad', { expenses: dangling }), served, '--version', 'v2-bad');
      expect(bad.code).toBe(1);
      expect(bad.stdout).toBe(
        [
          'refused "v2-bad": 1 problem',
          'expenses.csv: category_id must refer to an existing categories.id:',
          '    line 5: {"id":4,"year":2026,"amount":30000,"category_id":9,"organization_id":2,"complementary":false,"stage":"initial","source_id":2,"derived":false}',
          `${served} was left as it was`,
          '',
        ].join('\n'),
      );
      expect(snapshot(served)).toEqual(before);
      expect(readdirSync(root).filter((f) => f.startsWith('.served'))).toEqual([]);
      expect((await meta()).version).toBe('v1');

      // A good build replaces the directory at once; the server's watch notices the new directory.
      const good = await cli('build', sources('good'), served, '--version', 'v2', '--created-at', '2026-01-02T00:00:00Z');
      expect(good).toMatchObject({ code: 0 });
      expect(readFileSync(path.join(served, 'README.txt'), 'utf8')).toBe('kept by the analyst\n');
      expect((await eventually(meta, (m) => m.version === 'v2')).version).toBe('v2');
    } finally {
      server.child.kill('SIGTERM');
      await server.exit;
    }

    const restarted = start({ DATA_DIR: served });
    try {
      const port = await listening(restarted);
      const meta = (await (await fetch(`http://127.0.0.1:${port}/budget/api/meta/`)).json()) as { version: string };
      expect(meta.version).toBe('v2');
    } finally {
      restarted.child.kill('SIGTERM');
      await restarted.exit;
    }
  }, 180_000);

  it('re-points a symbolic link at a new directory beside its target, keeping the old one for a roll back', async () => {
    const drops = dir('drops');
    mkdirSync(drops);
    const first = await cli('build', sources('good'), path.join(drops, 'v1'), '--version', 'v1');
    expect(first.code).toBe(0);
    const { symlinkSync, readlinkSync } = await import('node:fs');
    const link = dir('current');
    symlinkSync(path.join(drops, 'v1'), link);
    const second = await cli('build', sources('good'), link, '--version', 'v2 (LF 2026)');
    expect(second.code).toBe(0);
    expect(readlinkSync(link)).toBe(path.join('drops', 'v2-LF-2026'));
    expect(manifestOf(link).version).toBe('v2 (LF 2026)');
    expect(manifestOf(path.join(drops, 'v1')).version).toBe('v1');
  }, 60_000);
});
