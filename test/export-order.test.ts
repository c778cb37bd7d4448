/**
 * A full export lists its lines in id order (docs/api.md#full-exports), whatever its filters. The
 * export's statement keeps the scan's order only while it has no join: a year's export of a
 * 20,000-line drop came with a line moved to its end when the stage and category filters were
 * semi joins (`IN (SELECT ...)`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { synthDrop } from '../src/tools/synth.js';
import { appServing, type TestApp } from './helpers/app.js';
import { getCsv } from './helpers/downloads.js';

let dir: string;
let t: TestApp;
let years: number[];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'budget-order-'));
  await synthDrop(dir, { expenseLines: 20_000, seed: 3, stages: true });
  t = await appServing(dir);
  years = t.store.served!.years;
}, 60_000);
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The ids of a CSV export, and where they first go back (-1: never). */
async function idsOf(url: string): Promise<{ ids: number[]; firstBack: number }> {
  const { rows } = await getCsv(t.app, url);
  const ids = rows.map((r) => Number(r.id));
  return { ids, firstBack: ids.findIndex((id, i) => i > 0 && id <= ids[i - 1]!) };
}

describe('full exports of lines', () => {
  for (const endpoint of ['expenses', 'resources']) {
    describe(`GET /budget/api/${endpoint}/?format=csv`, () => {
      it("lists each year's lines in id order, at every stage", async () => {
        for (const stage of ['initial', 'amended', 'outturn']) {
          for (const year of years) {
            const { ids, firstBack } = await idsOf(`/budget/api/${endpoint}/?format=csv&year=${year}&stage=${stage}`);
            expect(firstBack, `${endpoint} ${year} ${stage}: ${ids.length} lines`).toBe(-1);
          }
        }
      });

      it('lists the lines of a category subtree over several years in id order, and only those', async () => {
        const { ids, firstBack } = await idsOf(`/budget/api/${endpoint}/?format=csv&category=1&year=${years.slice(0, 3).join(',')}`);
        expect(firstBack).toBe(-1);
        const page = await request(t.app).get(`/budget/api/${endpoint}/?category=1&year=${years.slice(0, 3).join(',')}&limit=1`);
        expect(ids.length).toBe(page.body.count);
      });
    });
  }
});
