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
import { openApiDocument } from '../src/api/openapi.js';
import { ENDPOINTS } from '../src/api/endpoints/index.js';
import type { Manifest } from '../src/data/manifest.js';
import { staged } from './fixtures/staged.js';
import { appFor, type TestApp } from './helpers/app.js';
import { writeDrop } from './helpers/drop.js';
import { getArrow, getCsv, getParquet } from './helpers/downloads.js';

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
  {
    table: 'expenses',
    stage: 'amendment',
    years: [2023],
    reason: { en: 'The 2023 complementary law is not in the drop', fr: "La loi de finances complémentaire 2023 n'est pas dans le dépôt" },
  },
  { table: 'population', stage: null, years: [2022], reason: { en: 'No census figure', fr: 'Pas de chiffre du recensement' } },
] satisfies Manifest['known_gaps'];

export const DEFINITIONS = {
  'deficit.value': { en: 'The deficit as the finance law states it', fr: 'Le déficit tel que la loi de finances le chiffre' },
} satisfies Manifest['definitions'];

export const withMeanings = (m: Manifest) => Object.assign(m, { stages: STAGES, known_gaps: KNOWN_GAPS, definitions: DEFINITIONS });

/** The staged fixture with the ratios its sources printed, on some rows (others have none). */
const published = {
  ...staged,
  deficit: (staged.deficit as Record<string, unknown>[]).map((r) => ({
    ...r,
    published_percent: r.year === 2023 && r.stage === 'outturn' ? 3.1 : null,
  })),
  outstanding_debt: (staged.outstanding_debt as Record<string, unknown>[]).map((r) => ({ ...r, published_percent: r.year === 2024 ? 52.5 : null })),
};

let t: TestApp;
beforeAll(async () => {
  t = await appFor(published, {}, { manifest: withMeanings });
});
afterAll(() => t.close());

const get = async (url: string) => {
  const res = await request(t.app).get(url);
  expect(res.status, `${url}: ${res.text}`).toBe(200);
  return res.body;
};
const provenanceOf = (rows: Record<string, unknown>[], key: string) =>
  rows.map((r) => ({ [key]: r[key], stage: r.stage, source_ids: r.source_ids, derived: r.derived }));

describe('roll-ups say what they sum', () => {
  it('totals/ rows carry the stage asked (amended by default), the ascending sources of the lines summed, and derived', async () => {
    expect(provenanceOf(await get('/budget/api/totals/'), 'year')).toEqual([
      { year: 2024, stage: 'amended', source_ids: [1, 2], derived: false },
      { year: 2025, stage: 'amended', source_ids: [1], derived: false },
    ]);
    // 2022's outturn lines have no source: [] and not null; 2024's outturn sums a derived line.
    expect(provenanceOf(await get('/budget/api/totals/?stage=outturn'), 'year')).toEqual([
      { year: 2022, stage: 'outturn', source_ids: [], derived: false },
      { year: 2024, stage: 'outturn', source_ids: [3], derived: true },
    ]);
    expect(provenanceOf(await get('/budget/api/totals/?include_complementary=false'), 'year')[0]).toEqual({
      year: 2024,
      stage: 'initial',
      source_ids: [1],
      derived: false,
    });
  });
  it('budget-categories/ rows say what their subtree sums, a parent the union of its children', async () => {
    expect(provenanceOf(await get('/budget/api/budget-categories/?year=2024&stage=outturn'), 'id')).toEqual([
      { id: 10, stage: 'outturn', source_ids: [3], derived: false },
      { id: 11, stage: 'outturn', source_ids: [3], derived: false },
      { id: 20, stage: 'outturn', source_ids: [3], derived: true },
      { id: 30, stage: 'outturn', source_ids: [3], derived: false },
    ]);
    expect(provenanceOf(await get('/budget/api/budget-categories/?year=2024&type=expense'), 'id')).toEqual([
      { id: 10, stage: 'amended', source_ids: [1, 2], derived: false },
      { id: 11, stage: 'amended', source_ids: [1, 2], derived: false },
      { id: 20, stage: 'amended', source_ids: [1], derived: false },
    ]);
  });
  it('organization/stats/ rows say what they sum, over every year and under a measure taken year by year', async () => {
    const expected = [
      { organization_id: 1, stage: 'outturn', source_ids: [3], derived: false },
      { organization_id: 2, stage: 'outturn', source_ids: [3], derived: true },
    ];
    expect(provenanceOf(await get('/budget/api/organization/stats/?stage=outturn'), 'organization_id')).toEqual(expected);
    expect(provenanceOf(await get('/budget/api/organization/stats/?stage=outturn&measure=pct_gdp'), 'organization_id')).toEqual(expected);
    expect(provenanceOf(await get('/budget/api/organization/stats/'), 'organization_id')).toEqual([
      { organization_id: 1, stage: 'amended', source_ids: [1, 2], derived: false },
      { organization_id: 2, stage: 'amended', source_ids: [1], derived: false },
    ]);
  });
  it('writes source_ids as one CSV field joined with ";", and as a list of integers in Arrow and Parquet', async () => {
    const csv = await getCsv(t.app, '/budget/api/totals/?format=csv');
    expect(csv.header).toEqual(['year', 'total_expenses', 'total_resources', 'balance', 'stage', 'source_ids', 'derived']);
    expect(csv.rows.map((r) => [r.stage, r.source_ids, r.derived])).toEqual([
      ['amended', '1;2', 'false'],
      ['amended', '1', 'false'],
    ]);
    expect((await getCsv(t.app, '/budget/api/totals/?format=csv&stage=outturn')).rows[0]!.source_ids).toBe('');
    const arrow = await getArrow(t.app, '/budget/api/organization/stats/?format=arrow');
    expect(String(arrow.table.schema.fields.find((f) => f.name === 'source_ids')!.type)).toBe('List<Int64>');
    expect(arrow.rows.map((row) => row.source_ids)).toEqual([[1, 2], [1]]);
    const parquet = await getParquet(t.app, '/budget/api/budget-categories/?format=parquet&year=2024&stage=outturn');
    expect(parquet.columns.find((c) => c.name === 'source_ids')).toEqual({ name: 'source_ids', type: 'BIGINT[]', nullable: false });
    expect(parquet.rows.map((r) => r.source_ids)).toEqual([[3n], [3n], [3n], [3n]]);
    expect(parquet.rows.map((r) => r.derived)).toEqual([false, false, true, false]);
  });
});

describe('change=previous_year never compares two stages', () => {
  it("gives null where a series' default picks another stage the year before (2024 outturn, 2025 initial)", async () => {
    const rows = await get('/budget/api/outstanding-debt/?change=previous_year');
    expect(rows.map((r: Record<string, unknown>) => [r.year, r.stage, r.change, r.change_pct])).toEqual([
      [2024, 'outturn', null, null],
      [2025, 'initial', null, null],
    ]);
  });
  it('compares within the stage asked for', async () => {
    const rows = await get('/budget/api/outstanding-debt/?change=previous_year&stage=initial');
    expect(rows.map((r: Record<string, unknown>) => [r.year, r.stage, r.change, r.change_pct])).toEqual([
      [2024, 'initial', null, null],
      [2025, 'initial', 100, 16.67],
    ]);
  });
  it('on the deficit too: 2024 amended against 2023 outturn is no change', async () => {
    const rows = await get('/budget/api/deficit/?change=previous_year&year=2024');
    expect(rows).toEqual([expect.objectContaining({ year: 2024, stage: 'amended', change: null, change_pct: null })]);
  });
});

describe('published ratios are kept', () => {
  it("serve the deficit's published_percent beside the percent computed from the drop's GDP, null where the source printed none", async () => {
    const rows = await get('/budget/api/deficit/?stage=outturn');
    // 33 / 1100 = 3 %, the source printed 3.1 %.
    expect(rows).toEqual([expect.objectContaining({ year: 2023, value: 33, percent: 3, published_percent: 3.1, gdp: 1100 })]);
    expect((await get('/budget/api/deficit/?year=2025'))[0].published_percent).toBeNull();
  });
  it("serve the debt stock's published_value beside its computed value, in every format", async () => {
    expect(await get('/budget/api/outstanding-debt/?year=2024&stage=initial')).toEqual([
      expect.objectContaining({ year: 2024, outstanding_debt: 600, value: 50, published_value: 52.5 }),
    ]);
    const csv = await getCsv(t.app, '/budget/api/outstanding-debt/?format=csv');
    expect(csv.header).toEqual(['year', 'outstanding_debt', 'gdp', 'value', 'published_value', 'stage', 'source_id', 'derived']);
    expect(csv.rows.map((r) => r.published_value)).toEqual(['52.5', '']);
  });
  it('are null on a drop without the column', async () => {
    const plain = await appFor(staged);
    try {
      const rows = (await request(plain.app).get('/budget/api/deficit/')).body;
      expect(rows.every((r: { published_percent: unknown }) => r.published_percent === null)).toBe(true);
    } finally {
      await plain.close();
    }
  });
});

describe('several stages in one call', () => {
  const stagesOf = (rows: Record<string, unknown>[], key: string) => rows.map((r) => [r[key], r.stage]);
  it('totals/?stage=initial,outturn gives one row per year and stage, ordered by year then stage, whatever the order asked', async () => {
    const rows = await get('/budget/api/totals/?stage=outturn,INITIAL');
    expect(rows.map((r: Record<string, unknown>) => [r.year, r.stage, r.total_expenses])).toEqual([
      [2022, 'outturn', 80],
      [2024, 'initial', 150],
      [2024, 'outturn', 135.25],
      [2025, 'initial', 200],
    ]);
  });
  it('compares within each stage with change=previous_year', async () => {
    const rows = await get('/budget/api/totals/?stage=initial,amended&change=previous_year&year=2025');
    expect(rows.map((r: Record<string, unknown>) => [r.year, r.stage, (r.change as Record<string, number>).total_expenses])).toEqual([
      [2025, 'initial', 50],
      [2025, 'amended', 39.5],
    ]);
  });
  it('budget-categories/ and organization/stats/ keep each row with its stages, in stage order', async () => {
    expect(stagesOf(await get('/budget/api/budget-categories/?year=2024&type=expense&stage=initial,outturn'), 'id')).toEqual([
      [10, 'initial'],
      [10, 'outturn'],
      [11, 'initial'],
      [11, 'outturn'],
      [20, 'initial'],
      [20, 'outturn'],
    ]);
    expect(stagesOf(await get('/budget/api/organization/stats/?stage=amended,outturn'), 'organization_id')).toEqual([
      [1, 'amended'],
      [1, 'outturn'],
      [2, 'amended'],
      [2, 'outturn'],
    ]);
  });
  it('the series give each year at each stage asked for, and only the years that have it', async () => {
    expect(stagesOf(await get('/budget/api/deficit/?stage=initial,outturn'), 'year')).toEqual([
      [2023, 'initial'],
      [2023, 'outturn'],
      [2024, 'initial'],
      [2025, 'initial'],
    ]);
    expect(stagesOf(await get('/budget/api/outstanding-debt/?stage=initial,outturn&year=last'), 'year')).toEqual([
      [2024, 'outturn'],
      [2025, 'initial'],
    ]);
    // Debt: by year then stage, as every series, and by origin within a year's stage.
    const debt = await get('/budget/api/debt/?stage=initial,outturn&parent=null');
    expect(debt.map((r: { year: number; stage: string; debt_origin: { id: number } }) => [r.year, r.stage, r.debt_origin.id])).toEqual([
      [2024, 'initial', 1],
      [2024, 'initial', 2],
      [2024, 'outturn', 1],
      [2024, 'outturn', 2],
      [2025, 'initial', 1],
    ]);
  });
  it('refuses a list with an unknown stage, and include_complementary with a list', async () => {
    const bad = await request(t.app).get('/budget/api/totals/?stage=initial,draft');
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      { parameter: 'stage', message: 'must be one of initial, amended, outturn, or a list of them (initial,outturn)' },
    ]);
    expect((await request(t.app).get('/budget/api/totals/?stage=initial,outturn&include_complementary=false')).status).toBe(400);
  });
});

describe('GET /budget/api/fields/', () => {
  type Entry = {
    endpoint: string;
    field: string;
    type: string;
    nullable: boolean;
    unit: string | null;
    label: { en: string; fr: string };
    definition: { en: string; fr: string };
  };
  const entry = (fields: Entry[], endpoint: string, field: string) => fields.find((f) => f.endpoint === endpoint && f.field === field);
  it('defines balance as resources minus expenses, borrowing included, and not the deficit, in English and French', async () => {
    const fields: Entry[] = await get('/budget/api/fields/');
    const balance = entry(fields, 'totals', 'balance')!;
    expect(balance).toMatchObject({ type: 'number', nullable: true, unit: 'unstated' });
    expect(balance.definition.en).toMatch(/Resources include borrowing, so this is not the budget deficit/);
    expect(balance.definition.fr).toMatch(/comprennent les emprunts/);
    expect(balance.label).toEqual({ en: 'Balance (resources − expenses)', fr: 'Solde (ressources − dépenses)' });
  });
  it("lists every field of every data endpoint's rows, nested ones included, each with a label and a definition in both languages", async () => {
    const fields: Entry[] = await get('/budget/api/fields/');
    const endpoints = new Set(fields.map((f) => f.endpoint));
    expect([...endpoints]).toEqual([
      'totals',
      'budget-categories',
      'expenses',
      'resources',
      'organization',
      'organization/stats',
      'debt',
      'outstanding-debt',
      'deficit',
      'sources',
    ]);
    expect(fields.filter((f) => f.endpoint === 'expenses').map((f) => f.field)).toEqual([
      'id',
      'name',
      'year',
      'amount',
      'category',
      'organization',
      'organization.id',
      'organization.name',
      'organization.code',
      'stage',
      'source_id',
      'derived',
      'children',
    ]);
    for (const f of fields) {
      expect(f.label.en && f.label.fr && f.definition.en && f.definition.fr, `${f.endpoint}.${f.field}`).toBeTruthy();
    }
  });
  it("lists each endpoint's fields in the order of its rows' keys, change and change_pct included", async () => {
    // One answer per variant of every endpoint, with every field it can have: change where it is taken.
    const answers = [
      '/budget/api/totals/?change=previous_year',
      '/budget/api/budget-categories/?year=2024&change=previous_year',
      '/budget/api/expenses/',
      '/budget/api/expenses/?hierarchy=true',
      '/budget/api/resources/',
      '/budget/api/resources/?hierarchy=true',
      '/budget/api/organization/',
      '/budget/api/organization/stats/?year=2024&change=previous_year',
      '/budget/api/debt/?change=previous_year',
      '/budget/api/outstanding-debt/?change=previous_year',
      '/budget/api/deficit/?change=previous_year',
      '/budget/api/sources/',
    ];
    /** A row's keys as /fields/ names them: nested objects' and list items' with dots (a child node is a node: not again). */
    const keysOf = (row: Record<string, unknown>, prefix = ''): string[] =>
      Object.entries(row).flatMap(([key, value]) => {
        const item = Array.isArray(value) ? value[0] : value;
        const nested = key !== 'children' && key !== 'change' && key !== 'change_pct' && item !== null && typeof item === 'object';
        return [prefix + key, ...(nested ? keysOf(item as Record<string, unknown>, `${prefix}${key}.`) : [])];
      });
    const endpointOf = (url: string) => url.split('?')[0]!.slice('/budget/api/'.length).replace(/\/$/, '');
    const fields: Entry[] = await get('/budget/api/fields/');
    for (const url of answers) {
      const endpoint = endpointOf(url);
      const body = await get(url);
      const row = (Array.isArray(body) ? body : body.results)[0];
      expect(row, url).toBeDefined();
      const keys = keysOf(row);
      const listed = fields.filter((f) => f.endpoint === endpoint).map((f) => f.field);
      expect(
        listed.filter((f) => keys.includes(f)),
        url,
      ).toEqual(keys);
    }
    expect(new Set(answers.map(endpointOf))).toEqual(new Set(fields.map((f) => f.endpoint)));
  });
  it("offers in a figure's definition only the measures its endpoint takes: no share of a whole", async () => {
    const fields: Entry[] = await get('/budget/api/fields/');
    const WHOLE = /With measure, the measured figure instead \(percent of GDP, currency units per inhabitant, or amount at base_year prices\)/;
    for (const field of ['total_expenses', 'total_resources', 'balance']) {
      const text = entry(fields, 'totals', field)!.definition;
      expect(text.en, field).toMatch(WHOLE);
      expect(text.fr, field).not.toMatch(/part du total/);
    }
    // This drop defines deficit.value in its own words; the service's text is the OpenAPI document's.
    const doc = openApiDocument(ENDPOINTS) as { components: { schemas: Record<string, { properties: Record<string, { description: string }> }> } };
    expect(doc.components.schemas.Deficit!.properties.value!.description).toMatch(WHOLE);
    expect((await request(t.app).get('/budget/api/deficit/?measure=share')).status).toBe(400);
    expect(entry(fields, 'budget-categories', 'expenses')!.definition.en).toMatch(/share of the total/);
  });
  it('says which GDP a ratio divides by, and gives percentages the unit %', async () => {
    const fields: Entry[] = await get('/budget/api/fields/');
    for (const [endpoint, field] of [
      ['deficit', 'percent'],
      ['outstanding-debt', 'value'],
    ] as const) {
      const ratio = entry(fields, endpoint, field)!;
      expect(ratio.unit).toBe('%');
      expect(ratio.definition.en).toMatch(/the drop's GDP of the same year \(the row's gdp field\)/);
    }
    expect(entry(fields, 'deficit', 'published_percent')!.definition.en).toMatch(/as the row's source printed it, on the GDP the source used/);
  });
  it("gives a change the unit of the figure it changes, the drop's unit: outstanding-debt's is the stock's change, not the ratio's", async () => {
    const fields: Entry[] = await get('/budget/api/fields/');
    for (const endpoint of ['totals', 'budget-categories', 'organization/stats', 'debt', 'deficit', 'outstanding-debt'])
      expect(entry(fields, endpoint, 'change')!.unit, endpoint).toBe(entry(fields, 'totals', 'total_expenses')!.unit);
    expect(entry(fields, 'outstanding-debt', 'change')!.definition.en).toMatch(/^With change=previous_year: outstanding_debt minus/);
    expect(entry(fields, 'outstanding-debt', 'change_pct')!.unit).toBe('%');
    // What the answer holds: 2025's stock minus 2024's, at one stage (700 - 600), as the definition says.
    const [row] = await get('/budget/api/outstanding-debt/?year=2025&stage=initial&change=previous_year');
    const [before] = await get('/budget/api/outstanding-debt/?year=2024&stage=initial');
    expect(row.change).toBe(row.outstanding_debt - before.outstanding_debt);
    expect(row.change).toBe(100);
  });
  it("takes the drop's own definitions where drop.json gives them, ENDPOINT.FIELD before FIELD, and the drop's unit", async () => {
    const own = await appFor(
      staged,
      {},
      {
        manifest: (m) =>
          Object.assign(m, {
            units: { name: 'MDT', currency: 'TND', scale: 1_000_000 },
            definitions: { ...DEFINITIONS, value: { en: 'Any value', fr: 'Toute valeur' } },
          }),
      },
    );
    try {
      const fields: Entry[] = (await request(own.app).get('/budget/api/fields/')).body;
      expect(entry(fields, 'deficit', 'value')!.definition).toEqual(DEFINITIONS['deficit.value']);
      expect(entry(fields, 'debt', 'value')!.definition).toEqual({ en: 'Any value', fr: 'Toute valeur' });
      expect(entry(fields, 'totals', 'balance')!.unit).toBe('MDT');
      // The OpenAPI document describes the fields in the drop's words too.
      const doc = (await request(own.app).get('/budget/api/openapi.json')).body;
      expect(doc.components.schemas.Deficit.properties.value.description).toBe(DEFINITIONS['deficit.value'].en);
      expect(doc.components.schemas.Debt.properties.value.description).toBe('Any value');
      expect(doc.components.schemas.Total.properties.balance.description).toMatch(/^total_resources − total_expenses\. Resources include borrowing/);
    } finally {
      await own.close();
    }
  });
  it('takes definitions of nested fields, a key naming an endpoint read as ENDPOINT.FIELD only', async () => {
    const text = (en: string) => ({ en, fr: en });
    const own = await appFor(
      staged,
      {},
      {
        manifest: (m) =>
          Object.assign(m, {
            definitions: {
              'expenses.organization.name': text('The spending ministry'),
              'organization.name': text("The organization's own name"),
              'debt_origin.name': text('Who lent'),
              // One word that is also an endpoint's name is a FIELD key: every endpoint's expenses.
              expenses: text('What the lines spend'),
            },
          }),
      },
    );
    try {
      const fields: Entry[] = (await request(own.app).get('/budget/api/fields/')).body;
      expect(entry(fields, 'expenses', 'organization.name')!.definition.en).toBe('The spending ministry');
      expect(entry(fields, 'organization', 'name')!.definition.en).toBe("The organization's own name");
      expect(entry(fields, 'debt', 'debt_origin.name')!.definition.en).toBe('Who lent');
      expect(entry(fields, 'budget-categories', 'expenses')!.definition.en).toBe('What the lines spend');
      const doc = (await request(own.app).get('/budget/api/openapi.json')).body;
      expect(doc.components.schemas.Expense.properties.organization.properties.name.description).toBe('The spending ministry');
      expect(doc.components.schemas.Organization.properties.name.description).toBe("The organization's own name");
    } finally {
      await own.close();
    }
  });
  it("gives the OpenAPI document's field descriptions from the same table: the English definitions", () => {
    const doc = openApiDocument(ENDPOINTS) as {
      components: {
        schemas: Record<string, { properties: Record<string, { description?: string; properties?: Record<string, { description?: string }> }> }>;
      };
    };
    const { schemas } = doc.components;
    expect(schemas.Total!.properties.balance!.description).toMatch(/^total_resources − total_expenses\. Resources include borrowing/);
    expect(schemas.Deficit!.properties.percent!.description).toMatch(/the drop's GDP of the same year/);
    expect(schemas.Expense!.properties.organization!.properties!.code!.description).toBe("The organization's code.");
  });
});

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
  it('stays when a list of known gaps, control totals or notes is given empty rather than left out: the answers are the same', async () => {
    const before = await fingerprint();
    expect(await fingerprint((m) => Object.assign(m, { known_gaps: [], control_totals: [], notes: [] }))).toBe(before);
    expect(await fingerprint((m) => Object.assign(m, { stages: STAGES, known_gaps: [] }))).toBe(
      await fingerprint((m) => Object.assign(m, { stages: STAGES })),
    );
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
