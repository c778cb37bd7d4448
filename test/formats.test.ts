/**
 * Downloads (docs/api.md#formats) over the hand-checked `small` drop: negotiation, the columns
 * and types of every endpoint variant, flattening, and the HTTP details of a download. Each
 * download is read back with a real reader and compared with the rows worked out by hand.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { appFor, type TestApp } from './helpers/app.js';
import { ENDPOINTS } from '../src/api/endpoints/index.js';
import { FORMATS, FORMAT_NAMES } from '../src/formats/registry.js';
import { bytes, getArrow, getCsv, getParquet, type Cells } from './helpers/downloads.js';

let t: TestApp;
beforeAll(async () => {
  t = await appFor(small);
});
afterAll(() => t.close());

const CSV = 'text/csv; charset=utf-8';
const ARROW = 'application/vnd.apache.arrow.stream';
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * What each endpoint's download holds for the small drop, worked out by hand from
 * test/fixtures/small.ts: the column types in Arrow's words, and the CSV, line by line. Arrow and
 * Parquet must hold the same values, typed.
 */
/** The stage and provenance columns that lines and series rows end with. */
const PROVENANCE = { stage: 'Utf8', source_id: 'Int64', derived: 'Bool' };
/** What roll-up rows end with: the stage summed, the sources of the lines summed (none in the small drop), derived. */
const ROLLUP = { stage: 'Utf8', source_ids: 'List<Int64>', derived: 'Bool' };
const TREE = { id: 'Int64', parent_id: 'Int64', name: 'Utf8', year: 'Int32', amount: 'Float64', depth: 'Int32' };
const CASES: { url: string; types: Record<string, string>; csv: string[] }[] = [
  {
    url: '/budget/api/totals/',
    types: { year: 'Int32', total_expenses: 'Float64', total_resources: 'Float64', balance: 'Float64', ...ROLLUP },
    csv: [
      'year,total_expenses,total_resources,balance,stage,source_ids,derived',
      '2023,350.35,1600.499,1250.149,amended,,false',
      '2024,300.3,800,499.7,amended,,false',
    ],
  },
  {
    url: '/budget/api/budget-categories/?year=2023',
    types: { id: 'Int64', category: 'Utf8', type: 'Utf8', parent_id: 'Int64', expenses: 'Float64', resources: 'Float64', ...ROLLUP },
    csv: [
      'id,category,type,parent_id,expenses,resources,stage,source_ids,derived',
      '10,Dépenses de gestion,expense,,350.35,0,amended,,false',
      '11,Rémunérations,expense,10,300.3,0,amended,,false',
      '12,Fonctionnement,expense,10,50.05,0,amended,,false',
      '13,Primes,expense,11,200.2,0,amended,,false',
      '30,Recettes fiscales,resource,,0,1500.5,amended,,false',
      '31,Impôts directs,resource,30,0,1000,amended,,false',
      '32,Impôts indirects,resource,30,0,500.5,amended,,false',
      '40,Emprunts,resource,,0,99.999,amended,,false',
    ],
  },
  {
    url: '/budget/api/expenses/',
    types: {
      id: 'Int64',
      year: 'Int32',
      amount: 'Float64',
      category: 'Utf8',
      organization_id: 'Int64',
      organization_name: 'Utf8',
      organization_code: 'Utf8',
      ...PROVENANCE,
    },
    // Without a stage column, complementary gives the stage; without source_id and derived, null and false.
    csv: [
      'id,year,amount,category,organization_id,organization_name,organization_code,stage,source_id,derived',
      "1,2023,100.1,Rémunérations,1,Ministère de l'Éducation,EDU,initial,,false",
      "2,2023,200.2,Primes,1,Ministère de l'Éducation,EDU,initial,,false",
      '3,2023,50.05,Fonctionnement,2,Ministère de la Santé,SAN,amendment,,false',
      '4,2024,300,Investissement,2,Ministère de la Santé,SAN,initial,,false',
      "5,2024,0.1,Rémunérations,1,Ministère de l'Éducation,EDU,initial,,false",
      "6,2024,0.2,Rémunérations,1,Ministère de l'Éducation,EDU,initial,,false",
    ],
  },
  {
    url: '/budget/api/expenses/?hierarchy=true',
    types: TREE,
    csv: [
      'id,parent_id,name,year,amount,depth',
      '10,,Dépenses de gestion,2023,350.35,0',
      '11,10,Rémunérations,2023,300.3,1',
      '13,11,Primes,2023,200.2,2',
      '12,10,Fonctionnement,2023,50.05,1',
      '10,,Dépenses de gestion,2024,0.3,0',
      '11,10,Rémunérations,2024,0.3,1',
      '20,,Investissement,2024,300,0',
    ],
  },
  {
    url: '/budget/api/resources/',
    types: { id: 'Int64', year: 'Int32', amount: 'Float64', source: 'Utf8', ...PROVENANCE },
    csv: [
      'id,year,amount,source,stage,source_id,derived',
      '1,2023,1000,Impôts directs,initial,,false',
      '2,2023,500.5,Impôts indirects,initial,,false',
      '3,2023,99.999,Emprunts,amendment,,false',
      '4,2024,800,Impôts directs,initial,,false',
    ],
  },
  {
    url: '/budget/api/resources/?hierarchy=1&year=2023',
    types: TREE,
    csv: [
      'id,parent_id,name,year,amount,depth',
      '30,,Recettes fiscales,2023,1500.5,0',
      '31,30,Impôts directs,2023,1000,1',
      '32,30,Impôts indirects,2023,500.5,1',
      '40,,Emprunts,2023,99.999,0',
    ],
  },
  {
    url: '/budget/api/organization/',
    types: { id: 'Int64', name: 'Utf8', code: 'Utf8', year: 'Int32', expenses: 'Float64', resources: 'Float64' },
    csv: [
      'id,name,code,year,expenses,resources',
      "1,Ministère de l'Éducation,EDU,2023,300.3,500.5",
      "1,Ministère de l'Éducation,EDU,2024,0.3,0",
      '2,Ministère de la Santé,SAN,2023,50.05,0',
      '2,Ministère de la Santé,SAN,2024,300,800',
      '3,Agence sans crédits,NONE,,,',
    ],
  },
  {
    url: '/budget/api/organization/stats/',
    types: { organization_id: 'Int64', total_expenses: 'Float64', total_resources: 'Float64', ...ROLLUP },
    csv: [
      'organization_id,total_expenses,total_resources,stage,source_ids,derived',
      '1,300.6,500.5,amended,,false',
      '2,350.05,800,amended,,false',
      '3,0,0,amended,,false',
    ],
  },
  {
    url: '/budget/api/debt/',
    types: { year: 'Int32', debt_origin_id: 'Int64', debt_origin_parent: 'Int64', debt_origin_name: 'Utf8', value: 'Float64', ...PROVENANCE },
    // A series without a stage column has rows of no stated stage (an empty field).
    csv: [
      'year,debt_origin_id,debt_origin_parent,debt_origin_name,value,stage,source_id,derived',
      '2022,1,,Dette intérieure,100,,,false',
      '2022,2,,Dette extérieure,75.5,,,false',
      '2022,3,2,Multilatérale,50,,,false',
      '2022,4,2,Bilatérale,25.5,,,false',
      '2023,1,,Dette intérieure,110,,,false',
      '2023,2,,Dette extérieure,65,,,false',
      '2023,3,2,Multilatérale,60,,,false',
    ],
  },
  {
    url: '/budget/api/outstanding-debt/',
    types: { year: 'Int32', outstanding_debt: 'Float64', gdp: 'Float64', value: 'Float64', published_value: 'Float64', ...PROVENANCE },
    csv: [
      'year,outstanding_debt,gdp,value,published_value,stage,source_id,derived',
      '2022,43.45,1000,4.35,,,,false',
      '2023,1000,3000,33.33,,,,false',
    ],
  },
  {
    url: '/budget/api/deficit/',
    types: { year: 'Int32', value: 'Float64', percent: 'Float64', published_percent: 'Float64', gdp: 'Float64', ...PROVENANCE },
    csv: ['year,value,percent,published_percent,gdp,stage,source_id,derived', '2022,-43.45,-4.35,,1000,,,false', '2024,1,12.5,,8,,,false'],
  },
  {
    // small has no sources: the header alone (test/stages.test.ts downloads real ones).
    url: '/budget/api/sources/',
    types: { id: 'Int64', title: 'Utf8', url: 'Utf8', publisher: 'Utf8', published: 'Utf8', quote: 'Utf8' },
    csv: ['id,title,url,publisher,published,quote'],
  },
];

/** The expected CSV lines as typed cells (no field here holds a comma): empty is null, numbers are numbers, lists are lists. */
function typedRows({ types, csv: [header, ...lines] }: (typeof CASES)[number], int64: (n: number) => unknown = Number): Cells[] {
  const names = header!.split(',');
  return lines.map((line) =>
    Object.fromEntries(
      line.split(',').map((cell, i) => {
        const type = types[names[i]!];
        // A list of ids is one field joined with ';', empty for [].
        if (type === 'List<Int64>') return [names[i], cell === '' ? [] : cell.split(';').map((id) => int64(Number(id)))];
        const value =
          cell === '' ? null : type === 'Utf8' ? cell : type === 'Bool' ? cell === 'true' : type === 'Int64' ? int64(Number(cell)) : Number(cell);
        return [names[i], value];
      }),
    ),
  );
}

const PARQUET_TYPES: Record<string, string> = {
  Int32: 'INTEGER',
  Int64: 'BIGINT',
  Float64: 'DOUBLE',
  Utf8: 'VARCHAR',
  Bool: 'BOOLEAN',
  'List<Int64>': 'BIGINT[]',
};

const withFormat = (url: string, format: string) => `${url}${url.includes('?') ? '&' : '?'}format=${format}`;

describe('every data endpoint in CSV, Arrow and Parquet', () => {
  it('has a case here for each variant of each endpoint', () => {
    const covered = CASES.map(({ url }) => {
      const endpoint = ENDPOINTS.find((e) => e.path === url.split('?')[0])!;
      return `${endpoint.path} ${endpoint.bind(url).variant.name}`;
    });
    expect(new Set(covered)).toEqual(new Set(ENDPOINTS.flatMap((e) => e.variants.map((v) => `${e.path} ${v.name}`))));
  });
  it.each(CASES)('$url in CSV is the expected text, accents and all', async ({ url, csv }) => {
    expect((await getCsv(t.app, withFormat(url, 'csv'))).text).toBe(`${csv.join('\r\n')}\r\n`);
  });
  it.each(CASES)('$url in Arrow has the same columns, typed, and the same values', async (expected) => {
    const arrow = await getArrow(t.app, withFormat(expected.url, 'arrow'));
    expect(Object.fromEntries(arrow.table.schema.fields.map((f) => [f.name, String(f.type)]))).toEqual(expected.types);
    expect(arrow.rows).toEqual(typedRows(expected));
  });
  it.each(CASES)('$url in Parquet has the same columns, typed, and the same values', async (expected) => {
    const parquet = await getParquet(t.app, withFormat(expected.url, 'parquet'));
    const types = Object.fromEntries(Object.entries(expected.types).map(([name, type]) => [name, PARQUET_TYPES[type]]));
    expect(Object.fromEntries(parquet.columns.map((c) => [c.name, c.type]))).toEqual(types);
    expect(parquet.rows).toEqual(typedRows(expected, BigInt));
  });
});

describe('flattening', () => {
  it("flattens an expense line's organization into organization_id, organization_name and organization_code", async () => {
    const { rows } = await getCsv(t.app, '/budget/api/expenses/?format=csv&year=2023&organization=2');
    expect(rows).toEqual([
      {
        id: '3',
        year: '2023',
        amount: '50.05',
        category: 'Fonctionnement',
        organization_id: '2',
        organization_name: 'Ministère de la Santé',
        organization_code: 'SAN',
        stage: 'amendment',
        source_id: '',
        derived: 'false',
      },
    ]);
  });
  /** A series row of a drop without stages or sources, in CSV. */
  const UNSTATED = { stage: '', source_id: '', derived: 'false' };
  it('flattens a debt origin into debt_origin_id, debt_origin_parent and debt_origin_name, null as an empty field', async () => {
    const { rows } = await getCsv(t.app, '/budget/api/debt/?format=csv&year=2023');
    expect(rows.slice(0, 3)).toEqual([
      { year: '2023', debt_origin_id: '1', debt_origin_parent: '', debt_origin_name: 'Dette intérieure', value: '110', ...UNSTATED },
      { year: '2023', debt_origin_id: '2', debt_origin_parent: '', debt_origin_name: 'Dette extérieure', value: '65', ...UNSTATED },
      { year: '2023', debt_origin_id: '3', debt_origin_parent: '2', debt_origin_name: 'Multilatérale', value: '60', ...UNSTATED },
    ]);
  });
  it('gives the organization list one row per organization and year, and one row with empty year for an organization without lines', async () => {
    const { text } = await getCsv(t.app, '/budget/api/organization/?format=csv');
    expect(text).toBe(
      [
        'id,name,code,year,expenses,resources',
        "1,Ministère de l'Éducation,EDU,2023,300.3,500.5",
        "1,Ministère de l'Éducation,EDU,2024,0.3,0",
        '2,Ministère de la Santé,SAN,2023,50.05,0',
        '2,Ministère de la Santé,SAN,2024,300,800',
        '3,Agence sans crédits,NONE,,,',
        '',
      ].join('\r\n'),
    );
  });
  it('gives the organization without lines nulls in Arrow, in nullable columns', async () => {
    const { table, rows } = await getArrow(t.app, '/budget/api/organization/?format=arrow');
    expect(rows.at(-1)).toEqual({ id: 3, name: 'Agence sans crédits', code: 'NONE', year: null, expenses: null, resources: null });
    const nullable = Object.fromEntries(table.schema.fields.map((f) => [f.name, f.nullable]));
    expect(nullable).toEqual({ id: false, name: false, code: false, year: true, expenses: true, resources: true });
  });
  it('gives a hierarchy one row per node, depth-first, with parent_id and depth, roots at depth 0', async () => {
    const { rows } = await getArrow(t.app, '/budget/api/expenses/?format=arrow&hierarchy=true');
    expect(rows).toEqual([
      { id: 10, parent_id: null, name: 'Dépenses de gestion', year: 2023, amount: 350.35, depth: 0 },
      { id: 11, parent_id: 10, name: 'Rémunérations', year: 2023, amount: 300.3, depth: 1 },
      { id: 13, parent_id: 11, name: 'Primes', year: 2023, amount: 200.2, depth: 2 },
      { id: 12, parent_id: 10, name: 'Fonctionnement', year: 2023, amount: 50.05, depth: 1 },
      { id: 10, parent_id: null, name: 'Dépenses de gestion', year: 2024, amount: 0.3, depth: 0 },
      { id: 11, parent_id: 10, name: 'Rémunérations', year: 2024, amount: 0.3, depth: 1 },
      { id: 20, parent_id: null, name: 'Investissement', year: 2024, amount: 300, depth: 0 },
    ]);
  });
  it('pages a hierarchy over root nodes with limit and offset, each root with its whole subtree', async () => {
    const { rows } = await getCsv(t.app, '/budget/api/expenses/?format=csv&hierarchy=true&limit=1&offset=1');
    expect(rows.map((r) => [r.id, r.year, r.depth])).toEqual([
      ['10', '2024', '0'],
      ['11', '2024', '1'],
    ]);
  });
});

describe('CSV text', () => {
  it('ends records with CRLF, quotes fields with commas, quotes and line breaks, and reads back unchanged', async () => {
    const odd = 'Office "Nord", Sud\nannexe';
    const other = await appFor({ ...small, organizations: [...small.organizations!, { id: 4, name: odd, code: 'ONS' }] as never });
    try {
      const csv = await getCsv(other.app, '/budget/api/organization/?format=csv');
      expect(csv.text).toContain('4,"Office ""Nord"", Sud\nannexe",ONS,,,\r\n');
      expect(csv.rows.at(-1)!.name).toBe(odd);
    } finally {
      other.close();
    }
  });
  it('quotes a field whose only odd character is a line break, in a page as in a whole export', async () => {
    const other = await appFor({
      ...small,
      organizations: [...small.organizations!, { id: 4, name: 'Line\nbreak', code: 'LB' }, { id: 5, name: 'Carriage\rreturn', code: 'CR' }] as never,
    });
    try {
      for (const url of ['/budget/api/organization/?format=csv', '/budget/api/organization/?format=csv&limit=10']) {
        const csv = await getCsv(other.app, url);
        expect(csv.text, url).toContain('4,"Line\nbreak",LB,,,\r\n');
        expect(csv.text, url).toContain('5,"Carriage\rreturn",CR,,,\r\n');
        expect(csv.rows.map((r) => r.name).slice(-2), url).toEqual(['Line\nbreak', 'Carriage\rreturn']);
      }
    } finally {
      other.close();
    }
  });
  it('is UTF-8 without a byte-order mark', async () => {
    const res = await request(t.app).get('/budget/api/organization/?format=csv').buffer(true).parse(bytes);
    const body = res.body as Buffer;
    expect(body.subarray(0, 3).toString('hex')).not.toBe('efbbbf');
    expect(body.includes(Buffer.from("Ministère de l'Éducation", 'utf8'))).toBe(true);
  });
  it('has just the header row when nothing matches, and Arrow an empty table with its schema', async () => {
    expect((await getCsv(t.app, '/budget/api/totals/?format=csv&year=1999')).text).toBe(
      'year,total_expenses,total_resources,balance,stage,source_ids,derived\r\n',
    );
    const arrow = await getArrow(t.app, '/budget/api/expenses/?format=arrow&year=1999');
    expect(arrow.table.numRows).toBe(0);
    expect(arrow.table.schema.fields.map((f) => f.name)).toEqual([
      'id',
      'year',
      'amount',
      'category',
      'organization_id',
      'organization_name',
      'organization_code',
      'stage',
      'source_id',
      'derived',
    ]);
  });
});

describe('choosing the format', () => {
  const url = '/budget/api/totals/';
  it.each([
    ['format=csv', '?format=csv', {}, CSV],
    ['format=arrow', '?format=arrow', {}, ARROW],
    ['format=json', '?format=json', {}, JSON_TYPE],
    ['Accept: text/csv', '', { Accept: 'text/csv' }, CSV],
    ['Accept: application/vnd.apache.arrow.stream', '', { Accept: ARROW }, ARROW],
    ['Accept: application/json', '', { Accept: 'application/json' }, JSON_TYPE],
    ['Accept: */*', '', { Accept: '*/*' }, JSON_TYPE],
    ['no Accept at all', '', {}, JSON_TYPE],
    ["a browser's Accept", '', { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }, JSON_TYPE],
    ['an Accept naming none of the formats', '', { Accept: 'image/png' }, JSON_TYPE],
    ['Accept with quality values', '', { Accept: 'application/json;q=0.5, text/csv' }, CSV],
    ["Accept with RFC 4180's parameters", '', { Accept: 'text/csv; charset=utf-8; header=present' }, CSV],
    ['Accept with parameters and quality values', '', { Accept: 'application/json;q=0.5, text/csv;charset=UTF-8;q=0.9' }, CSV],
    ['Accept with a parameter on a lesser type', '', { Accept: 'text/csv;q=0.2, application/vnd.apache.arrow.stream; foo="a;b"' }, ARROW],
    ['format=json over Accept: text/csv', '?format=json', { Accept: 'text/csv' }, JSON_TYPE],
    ['format=csv over Accept: arrow', '?format=csv', { Accept: ARROW }, CSV],
    ['format=arrow over Accept: application/json', '?format=arrow', { Accept: 'application/json' }, ARROW],
  ])('answers %s with the right Content-Type and Vary: Accept, Accept-Encoding', async (_name, query, headers, type) => {
    const res = await request(t.app).get(`${url}${query}`).set(headers).buffer(true).parse(bytes);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.headers.vary).toBe('Accept, Accept-Encoding');
  });
  it.each(['xml', 'CSV', 'orc'])('refuses format=%s with a 400 problem naming format', async (format) => {
    const res = await request(t.app).get(`/budget/api/expenses/?format=${format}`).set('Accept', 'text/csv');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.headers['content-disposition']).toBeUndefined();
    expect(res.body).toMatchObject({
      code: 'invalid_parameter',
      errors: [{ parameter: 'format', message: 'must be one of json, csv, arrow, parquet' }],
    });
  });
  it('answers other errors as problem+json too when CSV or Arrow was asked for', async () => {
    const res = await request(t.app).get('/budget/api/totals/?year=abc').set('Accept', ARROW);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect((await request(t.app).get('/budget/api/totals/?format=csv&years=2020')).body.code).toBe('unknown_parameter');
  });
  it('answers a failing query with a 500 problem, not a broken download', async () => {
    const broken = await appFor(small);
    broken.store.served!.instance.closeSync();
    try {
      // A download of lines, and a tree of one organization's lines (roll-ups are read at load, before the failure).
      for (const url of ['/budget/api/expenses/?format=csv', '/budget/api/expenses/?hierarchy=true&organization=1&format=arrow']) {
        const res = await request(broken.app).get(url);
        expect(res.status).toBe(500);
        expect(res.headers['content-type']).toBe('application/problem+json');
        expect(res.headers['content-disposition']).toBeUndefined();
        expect(res.headers.etag).toBeUndefined();
        expect(res.body.code).toBe('internal_error');
      }
    } finally {
      broken.close();
    }
  });
});

describe('download headers', () => {
  it.each([
    ['/budget/api/expenses/?year=2023&organization=1&format=csv', 'expenses-year-2023-organization-1.csv'],
    ['/budget/api/expenses/?organization=1&year=2023&format=arrow', 'expenses-year-2023-organization-1.arrow'],
    ['/budget/api/budget-categories/?type=D%C3%89PENSE&format=csv', 'budget-categories-type-expense.csv'],
    ['/budget/api/organization/stats/?format=csv', 'organization-stats.csv'],
    ['/budget/api/debt/?parent=null&format=arrow', 'debt-parent-null.arrow'],
    ['/budget/api/outstanding-debt/?year=last&format=csv', 'outstanding-debt-year-last.csv'],
    ['/budget/api/resources/?hierarchy=TRUE&limit=5&offset=0&format=csv', 'resources-hierarchy-true-limit-5-offset-0.csv'],
    ['/budget/api/deficit/?format=csv', 'deficit.csv'],
    ['/budget/api/totals/?year=2016..2020&measure=pct_gdp&format=csv', 'totals-year-2016..2020-measure-pct_gdp.csv'],
    ['/budget/api/totals/?year=2024,2016&format=csv', 'totals-year-2016_2024.csv'],
    ['/budget/api/budget-categories/?ordering=-expenses&format=csv', 'budget-categories-ordering--expenses.csv'],
  ])('%s is an attachment named %s', async (url, name) => {
    const res = await request(t.app).get(url).buffer(true).parse(bytes);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${name}"`);
  });
  it('names the file from the negotiated format when only Accept asks', async () => {
    const res = await request(t.app).get('/budget/api/deficit/').set('Accept', ARROW).buffer(true).parse(bytes);
    expect(res.headers['content-disposition']).toBe('attachment; filename="deficit.arrow"');
  });
  it('sends no Content-Disposition with JSON', async () => {
    expect((await request(t.app).get('/budget/api/deficit/')).headers['content-disposition']).toBeUndefined();
  });
  const DOWNLOADS = [
    ['csv', CSV],
    ['arrow', ARROW],
    ['parquet', 'application/vnd.apache.parquet'],
  ];
  it('covers every download format of the registry here', () => {
    expect(DOWNLOADS.map(([format]) => format)).toEqual(FORMAT_NAMES.filter((name) => FORMATS[name].download));
  });
  it.each(DOWNLOADS)('answers HEAD with format=%s with the download headers and no body', async (format, type) => {
    const res = await request(t.app).head(`/budget/api/expenses/?format=${format}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="expenses.${format}"`);
    expect(res.headers.etag).toMatch(/^"[\w-]+"$/);
    expect(res.headers.vary).toBe('Accept, Accept-Encoding');
    expect(res.text ?? '').toBe('');
  });
});

describe('ETag per representation', () => {
  const url = '/budget/api/debt/?year=2022';
  const tag = async (headers: Record<string, string>, query = '') =>
    (
      await request(t.app)
        .get(url + query)
        .set(headers)
        .buffer(true)
        .parse(bytes)
    ).headers.etag!;

  it('differs between JSON, CSV and Arrow of the same URL, and is the same however the format was chosen', async () => {
    const json = await tag({});
    const csv = await tag({ Accept: 'text/csv' });
    const arrow = await tag({ Accept: ARROW });
    expect(new Set([json, csv, arrow]).size).toBe(3);
    expect(await tag({ Accept: 'text/csv' })).toBe(csv);
  });
  it.each([
    ['CSV', { Accept: 'text/csv' }],
    ['Arrow', { Accept: ARROW }],
    ['JSON', { Accept: 'application/json' }],
  ])('answers 304 to a %s request whose If-None-Match holds its tag', async (_name, headers) => {
    const etag = await tag(headers);
    const again = await request(t.app)
      .get(url)
      .set({ ...headers, 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(etag);
    expect(again.headers.vary).toBe('Accept, Accept-Encoding');
    expect(again.text ?? '').toBe('');
  });
  it('answers 304 to format=csv and format=arrow requests with their own tags', async () => {
    for (const format of ['csv', 'arrow']) {
      const etag = await tag({}, `&format=${format}`);
      expect((await request(t.app).get(`${url}&format=${format}`).set('If-None-Match', etag)).status).toBe(304);
    }
  });
  it('does not answer 304 to a JSON request holding the CSV tag', async () => {
    const csv = await tag({ Accept: 'text/csv' });
    const res = await request(t.app).get(url).set('If-None-Match', csv);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
  });
});

describe('CSV cells a spreadsheet would run as formulas', () => {
  let f: TestApp;
  beforeAll(async () => {
    const names = ['=HYPERLINK("http://example.com","x")', '+SUM(1)', '-2+3', '@cmd', '\tTab'];
    f = await appFor({
      ...small,
      organizations: [...names.map((name, i) => ({ id: i + 1, name, code: `C${i}` })), { id: 9, name: 'Plain', code: 'P' }],
      expenses: [
        { id: 1, year: 2023, amount: -12.5, category_id: 11, organization_id: 1, complementary: false },
        { id: 2, year: 2023, amount: 7, category_id: 12, organization_id: 9, complementary: false },
      ] as never,
    });
  });
  afterAll(() => f.close());

  it("get a leading ' in text columns, whole exports and pages alike, never on a negative number", async () => {
    const list = await getCsv(f.app, '/budget/api/organization/?format=csv');
    expect(list.rows.map((r) => r.name)).toEqual(['\'=HYPERLINK("http://example.com","x")', "'+SUM(1)", "'-2+3", "'@cmd", "'\tTab", 'Plain']);
    for (const url of ['/budget/api/expenses/?format=csv&year=2023', '/budget/api/expenses/?format=csv&year=2023&limit=10']) {
      const { rows } = await getCsv(f.app, url);
      const first = rows.find((r) => r.id === '1')!;
      expect(first.amount, url).toBe('-12.5');
      expect(
        Object.values(first).filter((v) => v.includes('HYPERLINK')),
        url,
      ).toEqual(['\'=HYPERLINK("http://example.com","x")']);
      expect(rows.find((r) => r.id === '2')!.amount, url).toBe('7');
    }
  });
});
