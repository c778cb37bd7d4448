/**
 * What every figure means (docs/api.md#what-every-figure-means), over HTTP
 * against the staged fixture with every optional part of drop.json: stages with their bases,
 * known gaps and definitions.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDrop } from '../src/data/drop.js';
import type { Manifest } from '../src/data/manifest.js';
import { staged } from './fixtures/staged.js';
import { appFor, type TestApp } from './helpers/app.js';
import { writeDrop } from './helpers/drop.js';

export const STAGES = {
  initial: {
    label: { en: 'Finance law', fr: 'Loi de finances' },
    basis: { en: 'All expenses, debt principal included', fr: 'Toutes les dépenses, principal de la dette compris' },
    comparable_with: ['amended'],
  },
  amended: {
    label: { en: 'Finance law as amended', fr: 'Loi de finances modifiée' },
    basis: { en: 'All expenses, debt principal included', fr: 'Toutes les dépenses, principal de la dette compris' },
    comparable_with: ['initial'],
  },
  outturn: {
    label: { en: 'Outturn', fr: 'Exécution' },
    basis: { en: 'Expenses excluding debt principal', fr: 'Dépenses hors principal de la dette' },
    comparable_with: [],
  },
} satisfies Manifest['stages'];

export const KNOWN_GAPS = [
  { table: 'expenses', stage: 'amendment', years: [2023], reason: { en: 'The 2023 complementary law is not in the drop', fr: "La loi de finances complémentaire 2023 n'est pas dans le dépôt" } },
  { table: 'population', stage: null, years: [2022], reason: { en: 'No census figure', fr: 'Pas de chiffre du recensement' } },
] satisfies Manifest['known_gaps'];

export const DEFINITIONS = {
  'deficit.value': { en: 'The deficit as the finance law states it', fr: 'Le déficit tel que la loi de finances le chiffre' },
} satisfies Manifest['definitions'];

export const withMeanings = (m: Manifest) => Object.assign(m, { stages: STAGES, known_gaps: KNOWN_GAPS, definitions: DEFINITIONS });

let t: TestApp;
beforeAll(async () => {
  t = await appFor(staged, {}, { manifest: withMeanings });
});
afterAll(() => t.close());

describe('GET /budget/api/meta/', () => {
  it('serves the stages the drop describes, with their labels, bases and comparable stages', async () => {
    const meta = (await request(t.app).get('/budget/api/meta/')).body;
    expect(meta.stages).toEqual(STAGES);
  });
  it('serves the known gaps beside the computed gaps', async () => {
    const meta = (await request(t.app).get('/budget/api/meta/')).body;
    expect(meta.known_gaps).toEqual(KNOWN_GAPS);
    expect(Array.isArray(meta.gaps)).toBe(true);
  });
  it('says null stages and no known gaps for a drop that states neither', async () => {
    const plain = await appFor(staged);
    try {
      const meta = (await request(plain.app).get('/budget/api/meta/')).body;
      expect(meta).toMatchObject({ stages: null, known_gaps: [] });
    } finally {
      await plain.close();
    }
  });
});

describe('drop.json stages, known_gaps and definitions', () => {
  const rejected = async (change: (m: Manifest) => void) => {
    const dir = await writeDrop(staged, { manifest: (m) => change(withMeanings(m)) });
    return loadDrop(dir).then(
      () => 'loaded',
      (error: Error) => error.message,
    );
  };
  it('are refused when a stage is not one a reader can ask for', async () => {
    expect(await rejected((m) => Object.assign(m, { stages: { draft: STAGES.initial } }))).toMatch(/drop\.json.*stages/);
  });
  it('are refused when one stage says it is comparable with another that does not say it back', async () => {
    const stages = { ...STAGES, outturn: { ...STAGES.outturn, comparable_with: ['initial'] } };
    expect(await rejected((m) => Object.assign(m, { stages }))).toMatch(/stages\.initial\.comparable_with must list outturn/);
  });
  it('are refused when a label lacks its French', async () => {
    const stages = { ...STAGES, initial: { ...STAGES.initial, label: { en: 'Law' } } };
    expect(await rejected((m) => Object.assign(m, { stages }))).toMatch(/stages\.initial\.label/);
  });
  it("are refused when a known gap names a table the drop cannot have, or a stage not in the table's vocabulary", async () => {
    expect(await rejected((m) => Object.assign(m, { known_gaps: [{ ...KNOWN_GAPS[0], table: 'budget' }] }))).toMatch(/known_gaps\.0\.table/);
    expect(await rejected((m) => Object.assign(m, { known_gaps: [{ ...KNOWN_GAPS[0], stage: 'amended' }] }))).toMatch(
      /known_gaps\.0\.stage must be null or one of initial, amendment, outturn/,
    );
    expect(await rejected((m) => Object.assign(m, { known_gaps: [{ ...KNOWN_GAPS[1], stage: 'initial' }] }))).toMatch(/population has no stages/);
  });
  it('are refused when a definition key is neither FIELD nor ENDPOINT.FIELD', async () => {
    expect(await rejected((m) => Object.assign(m, { definitions: { 'Deficit Value': DEFINITIONS['deficit.value'] } }))).toMatch(/definitions/);
  });
});

describe("the drop's fingerprint", () => {
  const fingerprint = async (change: (m: Manifest) => void = () => undefined) =>
    (await loadDrop(await writeDrop(staged, { manifest: change }))).fingerprint;
  it.each([
    ['units', (m: Manifest) => Object.assign(m, { units: { name: 'MDT', currency: 'TND', scale: 1_000_000 } })],
    ['stages', (m: Manifest) => Object.assign(m, { stages: STAGES })],
    ['known_gaps', (m: Manifest) => Object.assign(m, { known_gaps: KNOWN_GAPS })],
    ['definitions', (m: Manifest) => Object.assign(m, { definitions: DEFINITIONS })],
    ['source', (m: Manifest) => Object.assign(m, { source: 'https://example.org' })],
    ['license', (m: Manifest) => Object.assign(m, { license: 'CC-BY-4.0' })],
  ])('changes when only drop.json %s changes, so ETags and caches take it for a new drop', async (_, change) => {
    const before = await fingerprint();
    const after = await fingerprint(change);
    expect(after).not.toBe(before);
  });
  it('stays when only the free text (version, created_at, description) changes, or the same fields are written in another order', async () => {
    const before = await fingerprint(withMeanings);
    const reworded = await fingerprint((m) =>
      Object.assign(m, {
        version: 'other',
        created_at: '2027-01-01T00:00:00Z',
        description: 'reworded',
        definitions: DEFINITIONS,
        known_gaps: KNOWN_GAPS,
        stages: Object.fromEntries(Object.entries(STAGES).reverse()),
      }),
    );
    expect(reworded).toBe(before);
  });
  it('changes the ETag of a data answer when only the stages change', async () => {
    const dir = await writeDrop(staged, { manifest: withMeanings });
    const first = await loadDrop(dir);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'drop.json'), 'utf8'));
    manifest.stages.outturn.basis.en = 'Expenses excluding debt principal and borrowing';
    writeFileSync(path.join(dir, 'drop.json'), JSON.stringify(manifest));
    const second = await appFor(staged, {}, { manifest: (m) => Object.assign(m, manifest, { files: m.files }) });
    try {
      const etagOf = async (app: TestApp) => (await request(app.app).get('/budget/api/totals/')).headers.etag;
      expect(await etagOf(second)).not.toBe(await etagOf(t));
      expect((await loadDrop(dir)).fingerprint).not.toBe(first.fingerprint);
    } finally {
      first.instance.closeSync();
      await second.close();
    }
  });
});
