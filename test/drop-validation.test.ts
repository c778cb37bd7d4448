/**
 * loadDrop's validation (docs/data-drops.md#rules), on real drops written to disk by test/helpers/drop.ts.
 * Every rejected drop starts from the valid `small` fixture and breaks exactly one rule; each test
 * checks that the error names the file, says what is wrong, and shows an offending row.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DropError, loadDrop, type LoadOptions, type LoadedDrop } from '../src/data/drop.js';
import type { Manifest } from '../src/data/manifest.js';
import { TABLES } from '../src/data/schema.js';
import { small } from './fixtures/small.js';
import { staged } from './fixtures/staged.js';
import { sha256, writeDrop, writtenColumns, type DropData, type TableRows, type TableSource } from './helpers/drop.js';

type TableName = keyof DropData;
type Row = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Writing drops

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Writes `data` as a drop in a fresh temporary directory; `manifest` may also change the files. */
async function dropOf(data: DropData, manifest?: (manifest: Manifest, dir: string) => void): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'budget-validation-'));
  dirs.push(dir);
  return writeDrop(data, { dir, manifest: manifest && ((m) => manifest(m, dir)) });
}

/** A deep copy of small's rows of one table. */
const rowsOf = (table: TableName): TableRows => structuredClone(small[table] as TableRows);

/** small with one table replaced. */
const smallWith = (table: TableName, source: TableSource): DropData => ({ ...small, [table]: source });

/** small with `patch` applied to the row at `index` of one table. */
function changed(table: TableName, index: number, patch: Row): DropData {
  const rows = rowsOf(table);
  rows[index] = { ...rows[index], ...patch };
  return smallWith(table, rows);
}

/** small with rows appended to one table. */
const added = (table: TableName, ...rows: Row[]): DropData => smallWith(table, [...rowsOf(table), ...rows]);

/** An SQL expression written as-is in a table's SELECT, e.g. raw("'inf'"). */
const raw = (sql: string) => ({ raw: sql });

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'object' && 'raw' in value) return String(value.raw);
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  return String(value);
}

/**
 * Rows of `table` as a SELECT that writes each column in the type docs/data-drops.md#types recommends, or in
 * `types[column]` (any DuckDB type: what another tool would have written); `null` leaves it out.
 */
function written(table: TableName, rows: TableRows, types: Record<string, string | null> = {}): { sql: string } {
  const spec = TABLES.find((t) => t.name === table)!;
  const optional = writtenColumns(spec, rows);
  const columns = spec.columns
    .filter((c) => types[c.name] !== null && (optional.includes(c) || c.name in types))
    .map((c) => ({ name: c.name, type: types[c.name] ?? (c.sqlType.startsWith('DECIMAL') ? 'DECIMAL(18,3)' : c.sqlType) }));
  const select = (row: Row) => `SELECT ${columns.map((c) => `CAST(${literal(row[c.name])} AS ${c.type}) AS ${c.name}`).join(', ')}`;
  return { sql: rows.length ? rows.map(select).join(' UNION ALL ') : `${select({})} LIMIT 0` };
}

/** small with one table written in other physical types (and optionally other rows). */
const retyped = (table: TableName, types: Record<string, string | null>, rows = rowsOf(table)): DropData =>
  smallWith(table, written(table, rows, types));

// ---------------------------------------------------------------------------------------------
// Loading drops

const opened: LoadedDrop[] = [];
afterEach(() => {
  for (const drop of opened.splice(0)) drop.instance.closeSync();
});

/** Loads a drop that must be valid; it is closed after the test. */
async function load(data: DropData | string): Promise<LoadedDrop> {
  const drop = await loadDrop(typeof data === 'string' ? data : await dropOf(data));
  opened.push(drop);
  return drop;
}

/** The DropError that loading the drop (data, or a directory already written) must throw. */
async function rejection(data: DropData | string, options: LoadOptions = {}): Promise<DropError> {
  const dir = typeof data === 'string' ? data : await dropOf(data);
  try {
    const drop = await loadDrop(dir, options);
    drop.instance.closeSync();
  } catch (e) {
    if (e instanceof DropError) return e;
    throw e;
  }
  throw new Error('drop was accepted');
}

/**
 * The first problem is about `file`; its rule says `rule`; the one-line message names both and,
 * when `row` is given, shows an offending row holding those values.
 */
function expectProblem(err: DropError, file: string, rule: string | RegExp, row?: Row): void {
  const problem = err.problems[0]!;
  expect(problem.file).toBe(file);
  expect(problem.rule).toMatch(rule);
  expect(err.message).toContain(`${file}: ${problem.rule}`);
  if (row) {
    expect(problem.examples[0]).toMatchObject(row);
    // A bigint is shown as the exact JSON integer.
    const json = (value: unknown) => (typeof value === 'bigint' ? String(value) : JSON.stringify(value));
    for (const [key, value] of Object.entries(row)) expect(err.message).toContain(`${JSON.stringify(key)}:${json(value)}`);
  }
}

async function query(drop: LoadedDrop, sql: string): Promise<Row[]> {
  const connection = await drop.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjects();
  } finally {
    connection.closeSync();
  }
}

const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(path.join(dir, 'drop.json'), 'utf8')) as Manifest;
const writeManifest = (dir: string, manifest: unknown) => writeFileSync(path.join(dir, 'drop.json'), JSON.stringify(manifest));

// ---------------------------------------------------------------------------------------------

describe('loadDrop', () => {
  describe('accepts the valid small drop', () => {
    it('and lists the years that have data', async () => {
      const drop = await load(small);
      expect(drop.years).toEqual([2022, 2023, 2024]);
      expect(drop.manifest.version).toBe('test');
    });

    it('with a fingerprint of 64 hex digits that follows the content, not the version', async () => {
      const dir = await dropOf(small);
      const first = (await load(dir)).fingerprint;
      expect(first).toMatch(/^[0-9a-f]{64}$/);

      writeManifest(dir, { ...readManifest(dir), version: 'another version' });
      expect((await load(dir)).fingerprint).toBe(first);

      const other = await load(changed('gdp', 2, { gdp: 9 }));
      expect(other.fingerprint).toMatch(/^[0-9a-f]{64}$/);
      expect(other.fingerprint).not.toBe(first);
    });
  });

  describe('rejects a drop whose drop.json is missing', () => {
    it('names the file and the rule', async () => {
      const dir = await dropOf(small);
      unlinkSync(path.join(dir, 'drop.json'));
      expectProblem(await rejection(dir), 'drop.json', 'drop.json must exist');
    });
  });

  describe('rejects a drop whose drop.json is not JSON', () => {
    it('names the file and the rule', async () => {
      const dir = await dropOf(small);
      writeFileSync(path.join(dir, 'drop.json'), '{"version": "1", "files": {');
      expectProblem(await rejection(dir), 'drop.json', 'must be valid JSON');
    });
  });

  describe('rejects a drop whose drop.json has no files', () => {
    it('names the file and the missing key', async () => {
      const dir = await dropOf(small, (m) => delete (m as Partial<Manifest>).files);
      expectProblem(await rejection(dir), 'drop.json', /^files /);
    });
  });

  describe('rejects a drop whose drop.json lacks a field or has one of the wrong type', () => {
    it("says so in plain words, not the schema library's", async () => {
      const missing = await dropOf(small, (m) => delete (m as Partial<Manifest>).version);
      expectProblem(await rejection(missing), 'drop.json', 'version is required (a string)');
      const mistyped = await dropOf(small, (m) => Object.assign(m, { version: 3 }));
      expectProblem(await rejection(mistyped), 'drop.json', 'version must be a string, not a number');
    });
  });

  describe('rejects a drop.json number out of its range', () => {
    it.each([
      [
        'a negative row count',
        (m: Manifest) => (m.files['gdp.parquet']!.rows = -1),
        `files."gdp.parquet".rows must be a whole number >= 0 (the file's row count)`,
      ],
      [
        'a fractional row count',
        (m: Manifest) => (m.files['gdp.parquet']!.rows = 2.0000001),
        `files."gdp.parquet".rows must be a whole number >= 0 (the file's row count)`,
      ],
      [
        'a negative scale',
        (m: Manifest) => (m.units = { name: 'MDT', currency: 'TND', scale: -1 }),
        'units.scale must be a number > 0 (one unit of the amounts is this many units of the currency, such as 1000000)',
      ],
    ])('says %s in plain words, naming the field as drop.json has it', async (_, change, rule) => {
      const err = await rejection(await dropOf(small, change));
      expect(err.problems.map((p) => `${p.file}: ${p.rule}`)).toEqual([`drop.json: ${rule}`]);
    });

    it("words every other mistake of a field in plain words, never the schema library's", async () => {
      const err = await rejection(
        await dropOf(small, (m) =>
          Object.assign(m, {
            units: { name: 'MDT', currency: 'TND', scale: 0 },
            stages: { draft: { label: { en: 'Draft', fr: '' }, basis: { en: 'b', fr: 'b' }, comparable_with: ['later'] } },
            known_gaps: [{ table: 'budget', stage: null, years: [1800, 2000.5], reason: { en: 'r', fr: 'r' } }],
            definitions: { 'Deficit Value': { en: 'd', fr: 'd' } },
            control_totals: [{ year: 2100.5, stage: 'initial', total_expenses: 1, by: 'hand' }],
            notes: [{ table: 'deficit', id: 1.5, text: '' }],
            files: { ...m.files, 'gdp.parquet': { ...m.files['gdp.parquet']!, bytes: -3 } },
          }),
        ),
      );
      expect(err.problems.map((p) => p.rule)).toEqual([
        'units.scale must be a number > 0 (one unit of the amounts is this many units of the currency, such as 1000000)',
        'stages takes no field "draft"',
        'known_gaps.0.table must be one of organizations, categories, expenses, resources, debt_origins, debt, gdp, outstanding_debt, deficit, sources, population, cpi',
        'known_gaps.0.years.0 must be a year from 1900 to 2100',
        'known_gaps.0.years.1 must be a year from 1900 to 2100',
        'definitions."Deficit Value" is not a valid key (keys are FIELD or ENDPOINT.FIELD, such as deficit.value or expenses.organization.name)',
        `files."gdp.parquet".bytes must be a whole number >= 0 (the file's size in bytes)`,
        'control_totals.0.year must be a year from 1900 to 2100',
        'control_totals.0 takes no field "by"',
        'notes.0.id must be a whole number, not 1.5',
        'notes.0.text must not be empty',
      ]);
    });
  });

  describe('rejects a drop whose version is empty or only spaces', () => {
    it('says it must name the drop: its releases and permalinks are known by it', async () => {
      for (const version of ['', '  ']) {
        const dir = await dropOf(small, (m) => (m.version = version));
        expectProblem(await rejection(dir), 'drop.json', 'version must name the drop: it must not be empty or only spaces');
      }
    });
  });

  describe('rejects a drop whose version a permalink or the feed could not carry', () => {
    it('says why for . and .., which a client drops from a URL, and for a control character', async () => {
      for (const version of ['.', '..']) {
        const dir = await dropOf(small, (m) => (m.version = version));
        expectProblem(await rejection(dir), 'drop.json', `version must not be "${version}": a permalink's URL would lose it`);
      }
      const dir = await dropOf(small, (m) => (m.version = 'v\u0001'));
      expectProblem(await rejection(dir), 'drop.json', 'version must not hold a control character (U+0001)');
    });
  });

  describe('rejects a drop whose drop.json does not list a table', () => {
    it('names the file and the table', async () => {
      const dir = await dropOf(small, (m) => delete m.files['debt.parquet']);
      expectProblem(await rejection(dir), 'drop.json', 'files must list debt.parquet');
    });
  });

  describe('rejects a data directory that does not exist', () => {
    it('names the directory', async () => {
      const missing = path.join(tmpdir(), 'budget-validation-no-such-dir', 'drop');
      const err = await rejection(missing);
      expectProblem(err, 'drop.json', 'does not exist');
      expect(err.message).toContain(missing);
    });
  });

  describe('rejects a drop whose listed file is missing', () => {
    it('names the file and the rule', async () => {
      const dir = await dropOf(small);
      unlinkSync(path.join(dir, 'expenses.parquet'));
      expectProblem(await rejection(dir), 'expenses.parquet', 'file listed in drop.json must exist');
    });
  });

  describe('rejects a drop whose drop.json lists a file by a path', () => {
    it('names the file, the name and the rule, for a name going up or down a directory', async () => {
      for (const name of ['../x.parquet', 'sub/x.parquet']) {
        const dir = await dropOf(small, (m) => (m.files[name] = { sha256: 'ab'.repeat(32), rows: 1 }));
        expectProblem(await rejection(dir), 'drop.json', `files lists "${name}", which is not a plain file name (no /, no ..)`);
      }
    });

    it('accepts a plain name of a file that is no Parquet file, such as a README beside the tables', async () => {
      const dir = await dropOf(small, (m, at) => {
        writeFileSync(path.join(at, 'README.md'), 'What this drop holds.');
        m.files['README.md'] = { sha256: 'ab'.repeat(32), rows: 0 };
      });
      writeManifest(dir, {
        ...readManifest(dir),
        files: { ...readManifest(dir).files, 'README.md': { sha256: sha256(path.join(dir, 'README.md')), rows: 0 } },
      });
      expect((await load(dir)).manifest.files['README.md']).toMatchObject({ rows: 0 });
    });
  });

  describe('rejects a drop whose drop.json lists a file of no table that is not there as listed', () => {
    it('names the file and the rule when it is missing', async () => {
      const dir = await dropOf(small, (m) => (m.files['foo.parquet'] = { sha256: 'ab'.repeat(32), rows: 1 }));
      expectProblem(await rejection(dir), 'foo.parquet', 'file listed in drop.json must exist');
    });

    it('names the file and both checksums when it differs, and accepts it when it matches', async () => {
      const dir = await dropOf(small, (m, at) => {
        writeFileSync(path.join(at, 'foo.parquet'), 'not read by the service');
        m.files['foo.parquet'] = { sha256: 'ab'.repeat(32), rows: 1 };
      });
      const err = await rejection(dir);
      expectProblem(err, 'foo.parquet', 'sha256 must match drop.json');
      expect(err.message).toContain(sha256(path.join(dir, 'foo.parquet')));
      writeManifest(dir, {
        ...readManifest(dir),
        files: { ...readManifest(dir).files, 'foo.parquet': { sha256: sha256(path.join(dir, 'foo.parquet')), rows: 1 } },
      });
      expect((await load(dir)).manifest.files['foo.parquet']).toMatchObject({ rows: 1 });
    });
  });

  describe('rejects a drop whose file does not match its sha256', () => {
    it('names the file, the rule and both checksums', async () => {
      const dir = await dropOf(small, (m) => (m.files['expenses.parquet']!.sha256 = 'ab'.repeat(32)));
      const err = await rejection(dir);
      expectProblem(err, 'expenses.parquet', 'sha256 must match drop.json');
      expect(err.message).toContain('ab'.repeat(32));
      expect(err.message).toContain(sha256(path.join(dir, 'expenses.parquet')));
    });
  });

  describe('rejects a drop whose file does not have the size drop.json gives it in bytes', () => {
    it('names the file and both sizes, for a file of no table and for a table, and accepts the true sizes', async () => {
      const dir = await dropOf(small, (m, at) => {
        writeFileSync(path.join(at, 'README.md'), 'What this drop holds.');
        m.files['README.md'] = { sha256: sha256(path.join(at, 'README.md')), rows: 0, bytes: 1 };
        m.files['gdp.parquet']!.bytes = 1;
      });
      const size = (name: string) => statSync(path.join(dir, name)).size;
      const manifest = readManifest(dir);
      expectProblem(await rejection(dir), 'README.md', `bytes must match drop.json (manifest 1, file ${size('README.md')})`);
      manifest.files['README.md']!.bytes = size('README.md');
      writeManifest(dir, manifest);
      expectProblem(await rejection(dir), 'gdp.parquet', `bytes must match drop.json (manifest 1, file ${size('gdp.parquet')})`);
      manifest.files['gdp.parquet']!.bytes = size('gdp.parquet');
      writeManifest(dir, manifest);
      expect((await load(dir)).manifest.files['gdp.parquet']).toMatchObject({ bytes: size('gdp.parquet') });
    });
  });

  describe('rejects a drop whose file does not have the row count of drop.json', () => {
    it('names the file, the rule and both counts', async () => {
      const dir = await dropOf(small, (m) => (m.files['expenses.parquet']!.rows = 7));
      expectProblem(await rejection(dir), 'expenses.parquet', 'row count must match drop.json (manifest 7, file 6)');
    });
  });

  describe('rejects a drop whose file is not Parquet (with a matching checksum)', () => {
    it('names the file and the rule', async () => {
      const dir = await dropOf(small, (m, dir) => {
        const file = path.join(dir, 'gdp.parquet');
        writeFileSync(file, 'year,gdp\n2022,1000\n');
        m.files['gdp.parquet']!.sha256 = sha256(file);
      });
      expectProblem(await rejection(dir), 'gdp.parquet', 'must be a readable Parquet file');
    });
  });

  describe('rejects a drop whose file lacks a column', () => {
    it('names the file and the column', async () => {
      const err = await rejection(retyped('expenses', { amount: null }));
      expectProblem(err, 'expenses.parquet', 'column amount must exist');
    });
  });

  describe('rejects a drop whose id column holds strings', () => {
    it('names the file, the column and the type', async () => {
      const err = await rejection(retyped('expenses', { id: 'VARCHAR' }));
      expectProblem(err, 'expenses.parquet', 'column id must be an integer, not VARCHAR');
    });
  });

  describe('rejects a drop whose money column holds strings', () => {
    it('names the file, the column and the type', async () => {
      const err = await rejection(retyped('expenses', { amount: 'VARCHAR' }));
      expectProblem(err, 'expenses.parquet', 'column amount must be a number, not VARCHAR');
    });
  });

  describe('rejects a drop whose non-nullable column holds a null', () => {
    it('names the file, the rule and an offending row (expenses.year)', async () => {
      const err = await rejection(changed('expenses', 2, { year: null }));
      expectProblem(err, 'expenses.parquet', 'column year must not be missing (null)', { id: 3, year: null });
    });
    it('names the file, the rule and an offending row (categories.name)', async () => {
      const err = await rejection(changed('categories', 1, { name: null }));
      expectProblem(err, 'categories.parquet', 'column name must not be missing (null)', { id: 11, name: null });
    });
  });

  describe('rejects a drop whose DOUBLE money column holds a non-finite number', () => {
    it.each([
      ["'inf'", 'Infinity'],
      ["'-inf'", '-Infinity'],
      ["'nan'", 'NaN'],
    ])('names the file, the rule and an offending row (%s)', async (value, shown) => {
      const rows = rowsOf('expenses');
      rows[3]!.amount = raw(value);
      const err = await rejection(retyped('expenses', { amount: 'DOUBLE' }, rows));
      expectProblem(err, 'expenses.parquet', 'column amount must be a finite number', { id: 4, amount: shown });
    });
  });

  describe('rejects a drop whose DOUBLE id holds a fraction', () => {
    it('names the file, the rule and an offending row', async () => {
      const rows = rowsOf('expenses');
      rows[1]!.id = 1.5;
      const err = await rejection(retyped('expenses', { id: 'DOUBLE' }, rows));
      expectProblem(err, 'expenses.parquet', 'column id must hold whole numbers', { id: 1.5, year: 2023 });
    });
  });

  describe('rejects a drop whose id does not fit a 64-bit integer', () => {
    // Parquet has no 128-bit integers (DuckDB writes HUGEINT as DOUBLE): UBIGINT is the one integer type wider than BIGINT.
    it.each([
      ['UBIGINT', '18446744073709551615', 18446744073709551615n],
      ['UBIGINT', '9223372036854775808', 9223372036854775808n],
      ['DOUBLE', '1e19', 1e19],
    ])('names the file, the rule and an offending row (%s %s)', async (type, value, shown) => {
      const rows = rowsOf('expenses');
      rows[1]!.id = raw(value);
      const err = await rejection(retyped('expenses', { id: type }, rows));
      expectProblem(err, 'expenses.parquet', 'column id must fit a 64-bit integer', { id: shown, year: 2023 });
    });
  });

  describe('rejects a drop whose year is out of range', () => {
    it('names the file, the rule and an offending row', async () => {
      const err = await rejection(changed('expenses', 0, { year: 20230 }));
      expectProblem(err, 'expenses.parquet', 'column year must be a year between 1 and 9999', { id: 1, year: 20230 });
    });
  });

  describe('accepts the physical types other tools write', () => {
    it('DOUBLE ids with whole values and nulls (pandas, for an integer column with nulls)', async () => {
      const drop = await load(retyped('categories', { id: 'DOUBLE', parent_id: 'DOUBLE' }));
      const rows = await query(drop, 'SELECT id, parent_id FROM categories WHERE id IN (10, 13) ORDER BY id');
      expect(rows).toEqual([
        { id: 10n, parent_id: null },
        { id: 13n, parent_id: 11n },
      ]);
    });

    it('a complementary flag written as INTEGER 0/1', async () => {
      const drop = await load(retyped('expenses', { complementary: 'INTEGER' }));
      const rows = await query(drop, 'SELECT id FROM expenses WHERE complementary ORDER BY id');
      expect(rows).toEqual([{ id: 3n }]);
    });

    it.each([
      ['DOUBLE', '650.650000'],
      ['BIGINT', '650.000000'],
      ['DECIMAL(38,10)', '650.650000'],
      ['DECIMAL(18,3)', '650.650000'],
    ])('money written as %s', async (type, total) => {
      const drop = await load(retyped('expenses', { amount: type }));
      const rows = await query(drop, 'SELECT sum(amount)::VARCHAR AS total FROM expenses');
      expect(rows).toEqual([{ total }]);
    });

    it.each(['INTEGER', 'SMALLINT', 'UBIGINT', 'UTINYINT', 'UINTEGER'])('ids written as %s', async (type) => {
      const drop = await load(retyped('expenses', { id: type, category_id: type, organization_id: type }));
      const rows = await query(drop, 'SELECT count(*)::INTEGER AS n FROM expenses e JOIN categories c ON c.id = e.category_id');
      expect(rows).toEqual([{ n: 6 }]);
    });

    it('the largest UBIGINT id that fits a 64-bit integer', async () => {
      const rows = rowsOf('expenses');
      rows[1]!.id = raw('9223372036854775807');
      const drop = await load(retyped('expenses', { id: 'UBIGINT' }, rows));
      const found = await query(drop, 'SELECT id FROM expenses WHERE category_id = 13');
      expect(found).toEqual([{ id: 9223372036854775807n }]);
    });
  });

  describe('rejects a drop whose INTEGER complementary flag holds 2', () => {
    it('names the file, the rule and an offending row', async () => {
      const rows = rowsOf('expenses');
      rows[4]!.complementary = 2;
      const err = await rejection(retyped('expenses', { complementary: 'INTEGER' }, rows));
      expectProblem(err, 'expenses.parquet', 'column complementary must be a boolean (or 0/1)', { id: 5, complementary: 2 });
    });
  });

  // -------------------------------------------------------------------------------------------
  // The rules of rules.ts: each case breaks exactly one (checked with allProblems).

  const expense = { year: 2024, amount: 1, category_id: 11, organization_id: 1, complementary: false };
  const resource = { year: 2024, amount: 1, category_id: 31, organization_id: 1, complementary: false };
  const category = (id: number, parent_id: number | null, type = 'expense') => ({ id, name: `Catégorie ${id}`, type, parent_id });

  const ruleCases: { whose: string; data: DropData; file: string; rule: string; row: Row; count?: number }[] = [
    {
      whose: 'organization id is duplicated',
      data: added('organizations', { id: 2, name: 'Doublon', code: 'DUP' }),
      file: 'organizations.parquet',
      rule: '(id) must be unique',
      row: { id: 2, occurrences: 2 },
    },
    {
      whose: 'organization code is duplicated',
      data: added('organizations', { id: 4, name: 'Doublon', code: 'SAN' }),
      file: 'organizations.parquet',
      rule: '(code) must be unique',
      row: { code: 'SAN', occurrences: 2 },
    },
    {
      whose: 'category id is duplicated',
      data: added('categories', category(12, null)),
      file: 'categories.parquet',
      rule: '(id) must be unique',
      row: { id: 12, occurrences: 2 },
    },
    {
      whose: 'category type is neither expense nor resource',
      data: changed('categories', 9, { type: 'dépense' }),
      file: 'categories.parquet',
      rule: "type must be 'expense' or 'resource'",
      row: { id: 50, type: 'dépense' },
    },
    {
      whose: 'category parent does not exist',
      data: changed('categories', 9, { parent_id: 99 }),
      file: 'categories.parquet',
      rule: 'parent_id must refer to an existing categories.id',
      row: { id: 50, parent_id: 99 },
    },
    {
      whose: 'child category has a type different from its parent',
      data: added('categories', category(14, 10, 'resource')),
      file: 'categories.parquet',
      rule: "a child category must have its parent's type",
      row: { id: 14, type: 'resource', parent_id: 10, parent_type: 'expense' },
    },
    {
      whose: 'categories form a cycle (a → b → a)',
      data: added('categories', category(60, 61), category(61, 60)),
      file: 'categories.parquet',
      rule: 'parent_id must not form a cycle',
      row: { id: 60, parent_id: 61 },
      count: 2,
    },
    {
      whose: 'category is its own parent',
      data: added('categories', category(60, 60)),
      file: 'categories.parquet',
      rule: 'parent_id must not form a cycle',
      row: { id: 60, parent_id: 60 },
      count: 1,
    },
    {
      whose: 'expense id is duplicated',
      data: added('expenses', { id: 6, ...expense }),
      file: 'expenses.parquet',
      rule: '(id) must be unique',
      row: { id: 6, occurrences: 2 },
    },
    {
      whose: 'expense points to a missing category',
      data: changed('expenses', 0, { category_id: 99 }),
      file: 'expenses.parquet',
      rule: 'category_id must refer to an existing categories.id',
      row: { id: 1, category_id: 99 },
    },
    {
      whose: 'expense points to a resource category',
      data: changed('expenses', 0, { category_id: 31 }),
      file: 'expenses.parquet',
      rule: 'category_id must refer to a category of type expense',
      row: { id: 1, category_id: 31, category_type: 'resource' },
    },
    {
      whose: 'expense has a missing organization',
      data: changed('expenses', 0, { organization_id: 9 }),
      file: 'expenses.parquet',
      rule: 'organization_id must refer to an existing organizations.id',
      row: { id: 1, organization_id: 9 },
    },
    {
      whose: 'resource id is duplicated',
      data: added('resources', { id: 4, ...resource }),
      file: 'resources.parquet',
      rule: '(id) must be unique',
      row: { id: 4, occurrences: 2 },
    },
    {
      whose: 'resource points to an expense category',
      data: changed('resources', 1, { category_id: 11 }),
      file: 'resources.parquet',
      rule: 'category_id must refer to a category of type resource',
      row: { id: 2, category_id: 11, category_type: 'expense' },
    },
    {
      whose: 'resource has a missing (non-null) organization',
      data: changed('resources', 1, { organization_id: 9 }),
      file: 'resources.parquet',
      rule: 'organization_id must refer to an existing organizations.id',
      row: { id: 2, organization_id: 9 },
    },
    {
      whose: 'debt origin id is duplicated',
      data: added('debt_origins', { id: 3, parent_id: null, name: 'Doublon' }),
      file: 'debt_origins.parquet',
      rule: '(id) must be unique',
      row: { id: 3, occurrences: 2 },
    },
    {
      whose: 'debt origin parent does not exist',
      data: changed('debt_origins', 3, { parent_id: 9 }),
      file: 'debt_origins.parquet',
      rule: 'parent_id must refer to an existing debt_origins.id',
      row: { id: 4, parent_id: 9 },
    },
    {
      whose: 'debt origins form a cycle',
      data: changed('debt_origins', 1, { parent_id: 3 }),
      file: 'debt_origins.parquet',
      rule: 'parent_id must not form a cycle',
      row: { id: 2, parent_id: 3 },
      count: 3, // 2 and 3 on the cycle, 4 under it
    },
    {
      whose: 'debt has a missing origin',
      data: changed('debt', 0, { debt_origin_id: 9 }),
      file: 'debt.parquet',
      rule: 'debt_origin_id must refer to an existing debt_origins.id',
      row: { year: 2022, debt_origin_id: 9 },
    },
    {
      whose: 'debt has two rows for one (year, origin)',
      data: added('debt', { year: 2022, debt_origin_id: 1, value: 1 }),
      file: 'debt.parquet',
      rule: '(year, debt_origin_id) must be unique',
      row: { year: 2022, debt_origin_id: 1, occurrences: 2 },
    },
    {
      whose: 'gdp year is duplicated',
      data: added('gdp', { year: 2024, gdp: 9 }),
      file: 'gdp.parquet',
      rule: '(year) must be unique',
      row: { year: 2024, occurrences: 2 },
    },
    {
      whose: 'gdp is 0',
      data: changed('gdp', 2, { gdp: 0 }),
      file: 'gdp.parquet',
      rule: 'gdp must be greater than 0',
      row: { year: 2024, gdp: 0 },
    },
    {
      whose: 'gdp is negative',
      data: changed('gdp', 2, { gdp: -8 }),
      file: 'gdp.parquet',
      rule: 'gdp must be greater than 0',
      row: { year: 2024, gdp: -8 },
    },
    {
      whose: 'outstanding_debt year is duplicated',
      data: added('outstanding_debt', { year: 2023, outstanding_debt: 1 }),
      file: 'outstanding_debt.parquet',
      rule: '(year) must be unique',
      row: { year: 2023, occurrences: 2 },
    },
    {
      whose: 'outstanding_debt year has no gdp',
      data: added('outstanding_debt', { year: 2030, outstanding_debt: 1 }),
      file: 'outstanding_debt.parquet',
      rule: 'every year must have a row in gdp.parquet',
      row: { year: 2030 },
    },
    {
      whose: 'deficit year is duplicated',
      data: added('deficit', { year: 2024, value: 2 }),
      file: 'deficit.parquet',
      rule: '(year) must be unique',
      row: { year: 2024, occurrences: 2 },
    },
    {
      whose: 'deficit year has no gdp',
      data: added('deficit', { year: 2030, value: 1 }),
      file: 'deficit.parquet',
      rule: 'every year must have a row in gdp.parquet',
      row: { year: 2030 },
    },
  ];

  for (const c of ruleCases) {
    describe(`rejects a drop whose ${c.whose}`, () => {
      it('names the file, the rule and an offending row', async () => {
        const dir = await dropOf(c.data);
        const err = await rejection(dir);
        expectProblem(err, c.file, c.rule, c.row);
        expect(err.problems).toHaveLength(1);
        if (c.count !== undefined) expect(err.problems[0]!.count).toBe(c.count);

        const all = await rejection(dir, { allProblems: true });
        expect(all.problems, 'the case breaks exactly one rule').toEqual(err.problems);
      });
    });
  }

  describe('accepts a resource with no organization (null)', () => {
    it('and keeps it', async () => {
      const drop = await load(changed('resources', 3, { organization_id: null }));
      const rows = await query(drop, 'SELECT id FROM resources WHERE organization_id IS NULL ORDER BY id');
      expect(rows).toEqual([{ id: 1n }, { id: 3n }, { id: 4n }]);
    });
  });

  // -------------------------------------------------------------------------------------------

  describe('with allProblems', () => {
    const twice = rowsOf('expenses').concat(rowsOf('expenses'));
    const broken: DropData = { ...small, expenses: twice, deficit: [...rowsOf('deficit'), { year: 2030, value: 1 }] };

    it('reports every broken rule, each with its count and at most 5 examples', async () => {
      const err = await rejection(broken, { allProblems: true });
      expect(err.problems.map((p) => [p.file, p.rule, p.count])).toEqual([
        ['expenses.parquet', '(id) must be unique', 6],
        ['deficit.parquet', 'every year must have a row in gdp.parquet', 1],
      ]);
      expect(err.problems[0]!.examples).toEqual([1, 2, 3, 4, 5].map((id) => ({ id, occurrences: 2 })));
      expect(err.problems[1]!.examples).toEqual([{ year: 2030 }]);
      expectProblem(err, 'expenses.parquet', '(id) must be unique', { id: 1, occurrences: 2 });
    });

    it('reports broken files of several tables', async () => {
      const data: DropData = { ...retyped('expenses', { amount: null }), gdp: written('gdp', rowsOf('gdp'), { year: 'VARCHAR' }) };
      const err = await rejection(data, { allProblems: true });
      expect(err.problems.map((p) => [p.file, p.rule])).toEqual([
        ['expenses.parquet', 'column amount must exist'],
        ['gdp.parquet', 'column year must be an integer, not VARCHAR'],
      ]);
    });

    it('and without it, reports only the first broken rule', async () => {
      const err = await rejection(broken);
      expect(err.problems).toHaveLength(1);
      expectProblem(err, 'expenses.parquet', '(id) must be unique', { id: 1, occurrences: 2 });
    });
  });

  describe('rejects a drop whose categories form a long cycle (200 in a ring)', () => {
    it('names the file, the rule and an offending row, and finishes', async () => {
      const ring = Array.from({ length: 200 }, (_, i) => category(1000 + i, 1000 + ((i + 1) % 200)));
      const err = await rejection(added('categories', ...ring));
      expectProblem(err, 'categories.parquet', 'parent_id must not form a cycle', { id: 1000, parent_id: 1001 });
      expect(err.problems[0]!.count).toBe(200);
      expect(err.problems[0]!.examples).toHaveLength(5);
    });
  });

  describe('accepts empty tables', () => {
    it('a drop with no expenses, resources or debt', async () => {
      const drop = await load({ ...small, expenses: [], resources: [], debt: [] });
      expect(drop.years).toEqual([2022, 2023, 2024]);
      expect(await query(drop, 'SELECT count(*)::INTEGER AS n FROM expenses')).toEqual([{ n: 0 }]);
    });

    it('a drop with every table empty', async () => {
      const drop = await load({});
      expect(drop.years).toEqual([]);
    });
  });
});

describe('loadDrop with stages, sources, population and cpi', () => {
  /** staged with `patch` applied to the row at `index` of one table. */
  function stagedChanged(table: TableName, index: number, patch: Row): DropData {
    const rows = structuredClone(staged[table] as TableRows);
    rows[index] = { ...rows[index], ...patch };
    return { ...staged, [table]: rows };
  }
  const stagedAdded = (table: TableName, ...rows: Row[]): DropData => ({ ...staged, [table]: [...(staged[table] as TableRows), ...rows] });
  /** staged's expense lines with a complementary column that agrees with their stage, but for line `id`. */
  const withComplementary = (id: number, complementary: boolean): DropData => ({
    ...staged,
    expenses: (staged.expenses as TableRows).map((line) => ({ ...line, complementary: line.id === id ? complementary : line.stage === 'amendment' })),
  });

  it('accepts the staged drop, and tells which optional parts it has', async () => {
    const drop = await load(staged);
    expect(drop.shape.hasTable('sources')).toBe(true);
    expect(drop.shape.hasTable('population')).toBe(false);
    expect(drop.shape.hasColumn('deficit', 'stage')).toBe(true);
    expect(drop.shape.hasColumn('expenses', 'complementary')).toBe(false);
    // Without a complementary column, the stage gives it.
    expect(await query(drop, 'SELECT id, complementary FROM expenses WHERE complementary ORDER BY id')).toEqual([{ id: 3n, complementary: true }]);
  });

  it('accepts a complementary column that agrees with the stage', async () => {
    await load(withComplementary(3, true));
  });

  it('counts the optional files in the fingerprint', async () => {
    const a = await load(staged);
    const b = await load(stagedChanged('sources', 0, { title: 'Loi de finances 2024 (rectifiée)' }));
    expect(a.fingerprint).not.toBe(b.fingerprint);
  });

  const cases: { whose: string; data: DropData; file: string; rule: string; row: Row }[] = [
    {
      whose: 'expense line has an unknown stage',
      data: stagedChanged('expenses', 0, { stage: 'draft' }),
      file: 'expenses.parquet',
      rule: 'stage must be one of initial, amendment, outturn',
      row: { id: 1, stage: 'draft' },
    },
    {
      whose: 'complementary flag contradicts the stage',
      data: withComplementary(3, false),
      file: 'expenses.parquet',
      rule: "complementary must agree with stage (true for stage 'amendment' only)",
      row: { id: 3, stage: 'amendment', complementary: false },
    },
    {
      whose: 'resource line refers to an unknown source',
      data: stagedChanged('resources', 1, { source_id: 9 }),
      file: 'resources.parquet',
      rule: 'source_id must refer to an existing sources.id',
      row: { id: 2, source_id: 9 },
    },
    {
      whose: 'deficit has two rows of one (year, stage)',
      data: stagedAdded('deficit', { year: 2024, value: 41, stage: 'initial', source_id: 1, derived: false }),
      file: 'deficit.parquet',
      rule: '(year, stage) must be unique',
      row: { year: 2024, stage: 'initial', occurrences: 2 },
    },
    {
      whose: 'debt has two rows of one (year, origin, stage)',
      data: stagedAdded('debt', { year: 2025, debt_origin_id: 1, value: 1, stage: 'initial', source_id: 1, derived: false }),
      file: 'debt.parquet',
      rule: '(year, debt_origin_id, stage) must be unique',
      row: { year: 2025, debt_origin_id: 1, stage: 'initial', occurrences: 2 },
    },
    {
      whose: 'series row has a line stage',
      data: stagedChanged('outstanding_debt', 2, { stage: 'amendment' }),
      file: 'outstanding_debt.parquet',
      rule: 'stage must be one of initial, amended, outturn',
      row: { year: 2025, stage: 'amendment' },
    },
    {
      whose: 'population has a year twice',
      data: {
        ...staged,
        population: [
          { year: 2024, population: 12 },
          { year: 2024, population: 13 },
        ],
      },
      file: 'population.parquet',
      rule: '(year) must be unique',
      row: { year: 2024, occurrences: 2 },
    },
    {
      whose: 'CPI index is not positive',
      data: {
        ...staged,
        cpi: [
          { year: 2024, index: 100 },
          { year: 2025, index: 0 },
        ],
      },
      file: 'cpi.parquet',
      rule: 'index must be greater than 0',
      row: { year: 2025 },
    },
  ];
  for (const c of cases) {
    it(`rejects a drop whose ${c.whose}, naming the file, the rule and an offending row`, async () => {
      const dir = await dropOf(c.data);
      const err = await rejection(dir);
      expectProblem(err, c.file, c.rule, c.row);
      const all = await rejection(dir, { allProblems: true });
      expect(all.problems, 'the case breaks exactly one rule').toEqual(err.problems);
    });
  }

  it('rejects a source id in a drop without sources', async () => {
    const { sources: _, ...withoutSources } = staged;
    const err = await rejection(withoutSources);
    expectProblem(err, 'expenses.parquet', 'source_id must refer to an existing sources.id', { id: 1, source_id: 1 });
  });

  it('rejects lines with neither a stage nor a complementary column', async () => {
    const err = await rejection({ ...staged, expenses: written('expenses', staged.expenses as TableRows, { stage: null }) });
    expectProblem(err, 'expenses.parquet', 'column stage or column complementary must exist');
  });

  it('rejects an optional file that drop.json does not list', async () => {
    const err = await rejection(await dropOf(staged, (manifest) => delete manifest.files['sources.parquet']));
    expectProblem(err, 'drop.json', 'files must list sources.parquet, which is in the drop');
  });

  it('rejects units without a positive scale', async () => {
    const err = await rejection(await dropOf(small, (manifest) => Object.assign(manifest, { units: { name: 'MDT', currency: 'TND', scale: 0 } })));
    expectProblem(err, 'drop.json', /^units\.scale /);
  });

  it('shows offending rows as the file has them, without the columns the service fills in', async () => {
    const err = await rejection(changed('expenses', 1, { category_id: 99 }));
    expect(err.problems[0]!.examples[0]).toEqual({ id: 2, year: 2023, amount: 200.2, category_id: 99, organization_id: 1, complementary: false });
  });
});
