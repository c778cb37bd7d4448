import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parse } from 'csv-parse/sync';
import writeXlsxFile from 'write-excel-file/node';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDrop } from '../src/tools/build.js';
import { loadDrop } from '../src/data/drop.js';
import { TABLES, fileName } from '../src/data/schema.js';

const CSV: Record<string, string> = {
  organizations: [
    'id,name,code',
    '1,État — budget général (toutes missions),ETAT',
    '2,"Ministère de l\'Agriculture, des Ressources hydrauliques et de la Pêche",MARHP',
  ].join('\n'),
  categories: [
    'id,name,type,parent_id',
    '1,Dépenses de gestion,expense,',
    '2,Dépenses de rémunération,expense,1',
    '3,Recettes fiscales,resource,',
  ].join('\n'),
  expenses: [
    'id,year,amount,category_id,organization_id,complementary',
    '1,2022,47166,2,1,false',
    '2,2022,-201.5,2,2,true',
    '3,2023,0.125,1,1,false',
  ].join('\n'),
  resources: ['id,year,amount,category_id,organization_id,complementary', '1,2022,35091,3,,false', '2,2022,949,3,1,true'].join('\n'),
  debt_origins: ['id,parent_id,name', '1,,Dette intérieure', '2,,Dette extérieure', '3,2,Marché financier international'].join('\n'),
  debt: ['year,debt_origin_id,value', '2021,1,40100', '2021,3,17900'].join('\n'),
  gdp: ['year,gdp', '2020,119526.4', '2021,126082'].join('\n'),
  outstanding_debt: ['year,outstanding_debt', '2021,107800'].join('\n'),
  deficit: ['year,value', '2021,9792'].join('\n'),
};
/** The tables every drop has (sources, population and cpi are optional, and have no CSV here). */
const REQUIRED = TABLES.filter((table) => !table.optional);
const ROWS: Record<string, number> = {
  organizations: 2,
  categories: 3,
  expenses: 3,
  resources: 2,
  debt_origins: 3,
  debt: 2,
  gdp: 2,
  outstanding_debt: 1,
  deficit: 1,
};

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function sources(changes: Record<string, string | null> = {}): string {
  const dir = tempDir("build-src-o'quote-");
  for (const [table, text] of Object.entries({ ...CSV, ...changes })) {
    if (text !== null) writeFileSync(path.join(dir, `${table}.csv`), `${text}\n`, 'utf8');
  }
  return dir;
}

const OPTS = { version: 'test-1', description: 'tiny drop', createdAt: '2026-01-01T00:00:00.000Z' };

async function query(sql: string, params: Record<string, string>): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql, params)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** What the server loads from the drop in `dir`: the rows of `sql` over its tables. */
async function loaded(dir: string, sql: string): Promise<Record<string, unknown>[]> {
  const drop = await loadDrop(dir);
  try {
    const connection = await drop.connect();
    try {
      return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
    } finally {
      connection.closeSync();
    }
  } finally {
    drop.instance.closeSync();
  }
}

describe('buildDrop', () => {
  it('writes every table as Parquet and a manifest with true row counts and checksums', async () => {
    const out = tempDir("build-out-o'quote-");
    const { manifest } = await buildDrop(sources(), out, { ...OPTS, source: 'unit test', license: 'CC0' });

    expect(JSON.parse(readFileSync(path.join(out, 'drop.json'), 'utf8'))).toEqual(manifest);
    expect(manifest).toMatchObject({ version: 'test-1', created_at: OPTS.createdAt, source: 'unit test', license: 'CC0' });
    expect(Object.keys(manifest.files).sort()).toEqual(REQUIRED.map(fileName).sort());
    for (const table of REQUIRED) {
      const entry = manifest.files[fileName(table)]!;
      const bytes = readFileSync(path.join(out, fileName(table)));
      expect(entry.rows, table.name).toBe(ROWS[table.name]);
      expect(entry.sha256, table.name).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
    // Nothing but the drop is left behind (no temporary files).
    expect(readdirSync(out).sort()).toEqual([...REQUIRED.map(fileName), 'drop.json'].sort());
  });

  it('writes the declared column types', async () => {
    const out = tempDir("build-out-o'quote-");
    await buildDrop(sources(), out, OPTS);
    for (const table of REQUIRED) {
      const described = await query('DESCRIBE SELECT * FROM read_parquet($file)', { file: path.join(out, fileName(table)) });
      // The CSV's columns: the required ones and, on lines, complementary.
      const columns = table.columns.filter((c) => CSV[table.name]!.split('\n')[0]!.split(',').includes(c.name));
      const expected = columns.map((c) => [c.name, c.kind === 'numeric' ? 'DECIMAL(18,3)' : c.sqlType]);
      expect(
        described.map((d) => [d.column_name, d.column_type]),
        table.name,
      ).toEqual(expected);
    }
  });

  it('keeps accents, quoted commas, signs, decimals and empty nullable fields', async () => {
    const out = tempDir("build-out-o'quote-");
    await buildDrop(sources(), out, OPTS);
    const orgs = await query('SELECT name FROM read_parquet($file) ORDER BY id', { file: path.join(out, 'organizations.parquet') });
    expect(orgs.map((o) => o.name)).toEqual([
      'État — budget général (toutes missions)',
      "Ministère de l'Agriculture, des Ressources hydrauliques et de la Pêche",
    ]);
    const expenses = await query('SELECT amount::VARCHAR AS amount, complementary FROM read_parquet($file) ORDER BY id', {
      file: path.join(out, 'expenses.parquet'),
    });
    expect(expenses).toEqual([
      { amount: '47166.000', complementary: false },
      { amount: '-201.500', complementary: true },
      { amount: '0.125', complementary: false },
    ]);
    const resources = await query('SELECT organization_id FROM read_parquet($file) ORDER BY id', { file: path.join(out, 'resources.parquet') });
    expect(resources.map((r) => r.organization_id)).toEqual([null, '1']);
    const roots = await query('SELECT count(*)::INTEGER AS n FROM read_parquet($file) WHERE parent_id IS NULL', {
      file: path.join(out, 'categories.parquet'),
    });
    expect(roots[0]!.n).toBe(2);
  });

  it('is reproducible with a fixed createdAt', async () => {
    const src = sources();
    const a = (await buildDrop(src, tempDir("build-out-o'quote-"), OPTS)).manifest;
    const b = (await buildDrop(src, tempDir("build-out-o'quote-"), OPTS)).manifest;
    expect(b).toEqual(a);
  });

  it('rejects a bad number, naming the CSV, and leaves the previous drop untouched', async () => {
    const out = tempDir("build-out-o'quote-");
    await buildDrop(sources(), out, OPTS);
    const before = readFileSync(path.join(out, 'drop.json'), 'utf8');
    const bad = sources({ expenses: 'id,year,amount,category_id,organization_id,complementary\n1,2022,12a,2,1,false' });

    await expect(buildDrop(bad, out, { ...OPTS, version: 'test-2' })).rejects.toThrow(/expenses\.csv.*"12a"/s);
    expect(readFileSync(path.join(out, 'drop.json'), 'utf8')).toBe(before);
    expect(readdirSync(out).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('writes a money column holding 10^15 or more as DECIMAL(38,3), from CSV and .xlsx, and the server serves the exact figures', async () => {
    const gdp = ['year,gdp', '2020,1234567890123456.5', '2021,12345678901234567890123456789012.345'];
    // The largest amount DECIMAL(18,3) holds: its column keeps the recommended type.
    const deficit = ['year,value', '2021,999999999999999.999'];
    // The same table as a sheet, the first figure a number cell (a workbook's numbers are doubles, exact here).
    const sheets = Object.entries({ ...CSV, gdp: gdp.join('\n'), deficit: deficit.join('\n') }).map(([table, text]) => ({
      sheet: table,
      data: (parse(text) as string[][]).map((row) =>
        row.map((value) => (value === '' ? null : value === '1234567890123456.5' ? { value: Number(value), type: Number } : { value })),
      ),
    }));
    const workbook = path.join(tempDir('build-xlsx-'), 'budget.xlsx');
    await writeXlsxFile(sheets as never).toFile(workbook);
    for (const src of [sources({ gdp: gdp.join('\n'), deficit: deficit.join('\n') }), workbook]) {
      const out = tempDir("build-out-o'quote-");
      await buildDrop(src, out, OPTS);
      const type = async (table: string, column: string) =>
        (
          await query('SELECT column_type FROM (DESCRIBE SELECT * FROM read_parquet($file)) WHERE column_name = $column', {
            file: path.join(out, `${table}.parquet`),
            column,
          })
        )[0]!.column_type;
      expect(await type('gdp', 'gdp')).toBe('DECIMAL(38,3)');
      // The other money columns keep the recommended type: their files are byte for byte as before.
      expect(await type('deficit', 'value')).toBe('DECIMAL(18,3)');
      expect(await type('expenses', 'amount')).toBe('DECIMAL(18,3)');
      expect(await loaded(out, 'SELECT year, gdp::VARCHAR AS gdp FROM gdp ORDER BY year'), src).toEqual([
        { year: 2020, gdp: '1234567890123456.500000' },
        { year: 2021, gdp: '12345678901234567890123456789012.345000' },
      ]);
      expect(await loaded(out, 'SELECT value::VARCHAR AS value FROM deficit')).toEqual([{ value: '999999999999999.999000' }]);
    }
  });

  it("reads a spreadsheet's float noise past 15 significant digits as the figure it rounds to", async () => {
    const out = tempDir("build-out-o'quote-");
    await buildDrop(sources({ gdp: 'year,gdp\n2020,3702.2999999999997\n2021,0.30000000000000004' }), out, OPTS);
    expect(await loaded(out, 'SELECT gdp::VARCHAR AS gdp FROM gdp ORDER BY year')).toEqual([{ gdp: '3702.300000' }, { gdp: '0.300000' }]);
  });

  it('takes ids at both ends of the 64-bit integers, as the server takes them in a Parquet file', async () => {
    const out = tempDir("build-out-o'quote-");
    const lines = [
      'id,year,amount,category_id,organization_id,complementary',
      '-9223372036854775808,2022,47166,2,1,false',
      '9223372036854775807,2022,-201.5,2,2,true',
    ];
    await buildDrop(sources({ expenses: lines.join('\n') }), out, OPTS);
    expect(await loaded(out, 'SELECT id::VARCHAR AS id FROM expenses ORDER BY id')).toEqual([
      { id: '-9223372036854775808' },
      { id: '9223372036854775807' },
    ]);
  });

  it.each([
    ['a missing file', { gdp: null }, /^gdp\.csv: not found \(every drop has gdp\)$/],
    [
      'columns in another order',
      { deficit: 'value,year\n9792,2021' },
      /^deficit\.csv, line 1 \(the header\): header is "value,year", expected "year,value"/,
    ],
    [
      'a row with an extra field',
      { debt: 'year,debt_origin_id,value\n2021,1,40100,7' },
      /^debt\.csv, line 2: 4 fields, expected 3 \(the header's columns\)/,
    ],
    [
      'an empty required field',
      { categories: 'id,name,type,parent_id\n1,,expense,' },
      /^categories\.csv, line 2, column name: is empty; expected a text$/,
    ],
    ['a fourth decimal', { gdp: 'year,gdp\n2021,1.2345' }, /^gdp\.csv, line 2, column gdp: "1\.2345" has more than 3 decimals$/],
    [
      'a seventh decimal, past the six money is held to',
      { gdp: 'year,gdp\n2021,1.0000001' },
      /^gdp\.csv, line 2, column gdp: "1\.0000001" has more than 3 decimals$/,
    ],
    [
      'a fraction in an integer column',
      { outstanding_debt: 'year,outstanding_debt\n2021.5,107800' },
      /^outstanding_debt\.csv, line 2, column year: "2021\.5" is not a year such as 2026$/,
    ],
    [
      'a year out of range',
      { deficit: 'year,value\n99999999999,1' },
      /^deficit\.csv, line 2, column year: "99999999999" is not a year from 1 to 9999$/,
    ],
    [
      'an id past the 64-bit integers',
      { expenses: 'id,year,amount,category_id,organization_id,complementary\n9223372036854775808,2022,1,2,1,false' },
      /^expenses\.csv, line 2, column id: "9223372036854775808" is too large for an id \(ids are 64-bit integers, from -9223372036854775808 to 9223372036854775807\)$/,
    ],
    [
      'money of 10^32 or more, which the server refuses',
      { gdp: 'year,gdp\n2020,-100000000000000000000000000000000\n2021,126082' },
      /^gdp\.csv, line 2, column gdp: "-100000000000000000000000000000000" is too large \(money must be less than 10\^32 in absolute value\)$/,
    ],
    [
      'a flag that is not true or false',
      { expenses: 'id,year,amount,category_id,organization_id,complementary\n1,2022,1,2,1,FAUX' },
      /^expenses\.csv, line 2, column complementary: "FAUX" is not true or false/,
    ],
  ])('rejects %s, naming the CSV', async (_, change, message) => {
    const out = tempDir("build-out-o'quote-");
    await expect(buildDrop(sources(change), out, OPTS)).rejects.toThrow(message);
    expect(existsSync(path.join(out, 'drop.json'))).toBe(false);
  });
});

describe('buildDrop with stages and sources', () => {
  const STAGED: Record<string, string> = {
    expenses: [
      'id,year,amount,category_id,organization_id,stage,source_id,derived',
      '1,2022,47166,2,1,initial,1,false',
      '2,2022,-201.5,2,2,amendment,2,false',
      '3,2022,46000.25,2,1,outturn,,true',
    ].join('\n'),
    resources: [
      'id,year,amount,category_id,organization_id,complementary,stage',
      '1,2022,35091,3,,false,initial',
      '2,2022,949,3,1,true,amendment',
    ].join('\n'),
    deficit: ['year,value,stage,source_id', '2021,9792,initial,1', '2021,9800.5,outturn,2'].join('\n'),
    sources: [
      'id,title,url,publisher,published,quote',
      '1,Loi de finances 2022,https://example.org/lf2022.pdf,Ministère des Finances,2021-12-28,',
      '2,"Rapport d\'exécution, 2022",,,,"Dépenses ""exécutées"""',
    ].join('\n'),
    population: ['year,population', '2021,11900000'].join('\n'),
  };

  it('builds the optional columns and tables that the CSV files have, into a drop that loads', async () => {
    const out = tempDir("build-out-o'quote-");
    const { manifest } = await buildDrop(sources(STAGED), out, { ...OPTS, units: { name: 'MDT', currency: 'TND', scale: 1_000_000 } });
    expect(Object.keys(manifest.files)).toContain('sources.parquet');
    expect(Object.keys(manifest.files)).toContain('population.parquet');
    expect(Object.keys(manifest.files)).not.toContain('cpi.parquet');
    expect(manifest.units).toEqual({ name: 'MDT', currency: 'TND', scale: 1_000_000 });
    const lines = await query('SELECT id, stage, source_id::INTEGER AS source_id, derived FROM read_parquet($file) ORDER BY id', {
      file: path.join(out, 'expenses.parquet'),
    });
    expect(lines).toEqual([
      { id: '1', stage: 'initial', source_id: 1, derived: false },
      { id: '2', stage: 'amendment', source_id: 2, derived: false },
      { id: '3', stage: 'outturn', source_id: null, derived: true },
    ]);
    const titles = await query('SELECT title, quote FROM read_parquet($file) ORDER BY id', { file: path.join(out, 'sources.parquet') });
    expect(titles).toEqual([
      { title: 'Loi de finances 2022', quote: null },
      { title: "Rapport d'exécution, 2022", quote: 'Dépenses "exécutées"' },
    ]);
    const drop = await loadDrop(out);
    try {
      expect(drop.shape.hasColumn('expenses', 'stage')).toBe(true);
      expect(drop.shape.hasColumn('expenses', 'complementary')).toBe(false);
      expect(drop.coverage.deficit).toEqual({ initial: [2021], amended: [], outturn: [2021] });
    } finally {
      drop.instance.closeSync();
    }
  });

  it('rejects optional columns out of order, saying which columns may follow', async () => {
    const bad = sources({ debt: 'year,debt_origin_id,value,source_id,stage\n2021,1,40100,,initial' });
    await expect(buildDrop(bad, tempDir("build-out-o'quote-"), OPTS)).rejects.toThrow(
      /debt\.csv, line 1 \(the header\): header is "year,debt_origin_id,value,source_id,stage", expected "year,debt_origin_id,value" \(then, optionally and in this order: stage, source_id, derived\)/,
    );
  });

  it('rejects lines with neither a stage nor a complementary column', async () => {
    const bad = sources({ resources: 'id,year,amount,category_id,organization_id\n1,2022,35091,3,' });
    await expect(buildDrop(bad, tempDir("build-out-o'quote-"), OPTS)).rejects.toThrow(
      /resources\.csv, line 1 \(the header\): header must have a stage or a complementary column/,
    );
  });
});
