/**
 * The data CLI (budget-data) as an analyst runs it: a real process on real files.
 */
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { appServing } from './helpers/app.js';
import { ROOT, cli } from './helpers/cli.js';
import { writeDrop } from './helpers/drop.js';

const root = mkdtempSync(path.join(tmpdir(), 'budget-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const dir = (name: string) => path.join(root, name);

describe('budget-data build and validate', () => {
  it('builds a drop from CSV files that then validates, with progress on stderr', async () => {
    const built = await cli(
      'build',
      path.join(ROOT, 'data', 'sources'),
      dir('built'),
      '--version',
      'v1',
      '--description',
      'the sample',
      '--license',
      'CC0',
    );
    expect(built).toMatchObject({ code: 0 });
    expect(built.stdout).toMatch(/^built "v1" in .*built in [\d.]+ s: organizations 34, categories 39, expenses 219, resources 86,/);
    expect(built.stderr).toMatch(/^expenses\.parquet +219 rows in [\d.]+ s, [\d,]+ rows\/s$/m);
    expect(JSON.parse(readFileSync(path.join(dir('built'), 'drop.json'), 'utf8'))).toMatchObject({
      version: 'v1',
      description: 'the sample',
      license: 'CC0',
    });

    const validated = await cli('validate', dir('built'));
    expect(validated).toMatchObject({ code: 0, stderr: '' });
    expect(validated.stdout).toMatch(
      /^valid: "v1" in .*; organizations 34, categories 39, expenses 219, .*; years 2010–2025; fingerprint [0-9a-f]{64} \([\d.]+ s\)\n(warning: .*\n)*$/,
    );
  });

  it('reports every broken rule of an invalid drop, with counts and example rows, and exits 1', async () => {
    const broken = await writeDrop({
      ...small,
      expenses: [
        ...(small.expenses as object[]),
        { id: 7, year: 2024, amount: 1, category_id: 99, organization_id: 1, complementary: false },
        { id: 8, year: 2024, amount: 2, category_id: 98, organization_id: 1, complementary: false },
      ] as never,
      deficit: [{ year: 1999, value: 5 }],
    });
    const { code, stdout } = await cli('validate', broken);
    expect(code).toBe(1);
    expect(stdout.trim().split('\n')).toEqual([
      `invalid: 2 problems in ${broken}`,
      'expenses.parquet: category_id must refer to an existing categories.id (2 rows):',
      '    {"id":7,"year":2024,"amount":1,"category_id":99,"organization_id":1,"complementary":false}',
      '    {"id":8,"year":2024,"amount":2,"category_id":98,"organization_id":1,"complementary":false}',
      'deficit.parquet: every year must have a row in gdp.parquet (1 row):',
      '    {"year":1999}',
    ]);
  });

  it("refuses a drop's version with control characters, and prints it escaped, so that it cannot drive the terminal", async () => {
    // OSC 0 sets the terminal's title; CSI 31 m turns the text red; 0x9b is a one-byte CSI.
    const version = 'v1\x1b]0;owned\x07\x1b[31m\u009b2J\u202e';
    const drop = await writeDrop(small, { version });
    const validated = await cli('validate', drop);
    expect(validated.code).toBe(1);
    expect(validated.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
    expect(validated.stdout).toContain('drop.json: version must not hold a control character (U+001B)');
    // A right-to-left override is no control character: such a version is valid, and printed escaped.
    const turned = await cli('validate', await writeDrop(small, { version: 'v1\u202e' }));
    expect(turned.code).toBe(0);
    expect(turned.stdout).toContain('valid: "v1\\u202e" in ');

    const diffed = await cli('diff', drop, await writeDrop(small));
    expect(diffed.code).toBe(2);
    expect(diffed.stderr).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
    expect(diffed.stderr).toContain('drop.json is not a drop manifest (version must not hold a control character (U+001B))');
    const turnedDiff = await cli('diff', await writeDrop(small, { version: 'v1\u202e' }), await writeDrop(small));
    expect(turnedDiff.stdout.split('\n')[0]).toMatch(/^before: "v1\\u202e" \(/);
  });

  it('warns of a definitions key that names no field, which would define nothing unseen; --strict refuses it', async () => {
    const text = { en: 'What the law votes', fr: 'Ce que la loi vote' };
    const drop = await writeDrop(small, {
      manifest: (m) => void (m.definitions = { 'expenses.amout': text, balance: text, 'organization.name': text, 'organization.year': text }),
    });
    const warned = await cli('validate', drop);
    expect(warned.code).toBe(0);
    const says = (key: string) =>
      `warning: drop.json: definitions has "${key}", which names no field, so it defines nothing (keys are FIELD or ENDPOINT.FIELD, as /budget/api/fields/ lists them, such as totals.balance)\n`;
    expect(warned.stdout).toContain(says('expenses.amout'));
    expect(warned.stdout).toContain(says('organization.year'));
    expect(warned.stdout).not.toContain('"balance"');
    expect(warned.stdout).not.toContain('"organization.name"');
    expect((await cli('validate', drop, '--strict')).code).toBe(1);

    // build carries the definitions over with --from, and warns the same.
    const built = await cli('build', path.join(ROOT, 'data', 'sources'), dir('definitions-out'), '--from', drop);
    expect(built.code, built.stdout).toBe(0);
    expect(built.stdout).toContain(says('expenses.amout'));
  });

  it('says which file is wrong when a drop cannot be read at all', async () => {
    const drop = await writeDrop(small);
    writeFileSync(path.join(drop, 'drop.json'), 'not json');
    expect(await cli('validate', drop)).toMatchObject({
      code: 1,
      stdout: `invalid: 1 problem in ${drop}\ndrop.json: must be valid JSON: line 1, column 1: drop.json is one JSON object, starting with {\n`,
    });
  });

  it('stops a build on a bad number, naming the CSV file, the row and the value, and exits 1', async () => {
    const src = dir('bad-src');
    cpSync(path.join(ROOT, 'data', 'sources'), src, { recursive: true });
    const csv = path.join(src, 'expenses.csv');
    writeFileSync(csv, readFileSync(csv, 'utf8').replace('\n16,2018,2787,', '\n16,2018,27x7,'));
    const { code, stdout } = await cli('build', src, dir('bad-out'), '--version', 'v-bad');
    expect(code).toBe(1);
    expect(stdout).toBe(
      'refused "v-bad": 1 problem\n' +
        'expenses.csv, line 3, column amount: "27x7" is not a number with at most 3 decimals, such as 13700.5 (with --locale fr: 13 700,5)\n' +
        `${dir('bad-out')} was left as it was\n`,
    );
  });
});

describe('budget-data synth', () => {
  it('writes a small synthetic drop, labelled synthetic, that validates and serves', async () => {
    const out = dir('synth');
    const made = await cli('synth', out, '--scale', '2', '--seed', '7');
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(
      /^wrote "synthetic-132-lines-seed-7" in .*: organizations 300, categories \d+, expenses 132, resources 134, debt_origins 10, debt 208, gdp 26, outstanding_debt 26, deficit 26, population 26, cpi 26\n$/,
    );
    expect(await cli('validate', out)).toMatchObject({ code: 0 });

    const t = await appServing(out);
    try {
      const meta = (await request(t.app).get('/budget/api/meta/')).body;
      expect(meta.version).toContain('synthetic');
      expect(meta.description).toMatch(/^SYNTHETIC data, not real budget figures/);
      expect(meta.years).toEqual(Array.from({ length: 26 }, (_, i) => 2000 + i));
      expect((await request(t.app).get('/budget/api/expenses/?limit=1')).body.count).toBe(132);
      const trees = (await request(t.app).get('/budget/api/expenses/?hierarchy=true&limit=1000')).body.results;
      const depth = (node: { children: unknown[] }): number => 1 + Math.max(0, ...node.children.map((c) => depth(c as never)));
      expect(Math.max(...trees.map(depth))).toBeGreaterThanOrEqual(3);
      const debt = (await request(t.app).get('/budget/api/debt/?year=2025&parent=null')).body;
      expect(debt.map((d: { debt_origin: { id: number } }) => d.debt_origin.id)).toEqual([1, 2]);
    } finally {
      t.close();
    }
  });

  it('writes lines and series in three stages, with sources, when asked (--stages)', async () => {
    const out = dir('synth-stages');
    const made = await cli('synth', out, '--lines', '600', '--stages');
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/debt 600, gdp 26, outstanding_debt 75, deficit 75, sources 5, population 26, cpi 26\n$/);
    expect(await cli('validate', out)).toMatchObject({ code: 0 });
    const t = await appServing(out);
    try {
      const meta = (await request(t.app).get('/budget/api/meta/')).body;
      const years = Array.from({ length: 26 }, (_, i) => 2000 + i);
      // The series: initial every year, amended up to 2024, outturn up to 2023.
      expect(meta.coverage.deficit).toEqual({ initial: years, amended: years.slice(0, -1), outturn: years.slice(0, -2) });
      expect(Object.values(meta.coverage.expenses).every((stageYears) => (stageYears as number[]).length > 0)).toBe(true);
      const count = async (stage: string) => (await request(t.app).get(`/budget/api/expenses/?stage=${stage}&limit=1`)).body.count;
      const [initial, amended, outturn] = [await count('initial'), await count('amended'), await count('outturn')];
      expect(initial).toBeGreaterThan(0);
      expect(amended).toBeGreaterThan(initial);
      expect(amended + outturn).toBe(600);
      expect((await request(t.app).get('/budget/api/sources/')).body).toHaveLength(5);
      const deficit = (await request(t.app).get('/budget/api/deficit/')).body;
      expect(deficit.slice(-3).map((row: { stage: string }) => row.stage)).toEqual(['outturn', 'amended', 'initial']);
    } finally {
      t.close();
    }
  });

  it('gives the same files for the same seed, and other amounts for another seed', async () => {
    const files = async (name: string, seed: string) => {
      expect((await cli('synth', dir(name), '--lines', '500', '--seed', seed)).code).toBe(0);
      return JSON.parse(readFileSync(path.join(dir(name), 'drop.json'), 'utf8')).files;
    };
    const [a, b, c] = await Promise.all([files('seed-a', '3'), files('seed-b', '3'), files('seed-c', '4')]);
    expect(b).toEqual(a);
    expect(c['expenses.parquet'].sha256).not.toBe(a['expenses.parquet'].sha256);
    expect(a['expenses.parquet'].rows).toBe(500);
  });
});

describe('budget-data usage', () => {
  it.each(['build', 'validate', 'synth'])('explains %s with --help and exits 0', async (command) => {
    const { code, stdout } = await cli(command, '--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^Usage: budget-data ${command} `));
  });

  it('exits 2 with a clear line on a bad command line', async () => {
    expect(await cli('synth', dir('x'))).toMatchObject({ code: 2, stderr: expect.stringContaining('synth takes one of --scale N or --lines L') });
    expect(await cli('validate')).toMatchObject({ code: 2, stderr: expect.stringContaining('validate takes DIR, got nothing') });
    expect(await cli('upload')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown command "upload"; the commands are build, template, validate, synth, publish, keys'),
    });
  });

  it('exits 2 on a build option value it does not know, naming the option and the value, and writes nothing', async () => {
    const src = path.join(ROOT, 'data', 'sources');
    expect(await cli('build', src, dir('bad-encoding'), '--encoding', 'klingon')).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining('--encoding "klingon" is not a character set this tool knows'),
    });
    expect(await cli('build', src, dir('bad-locale'), '--locale', 'de')).toMatchObject({ code: 2, stderr: expect.stringContaining('--locale') });
    expect(readdirSync(root).filter((name) => name.includes('bad-encoding') || name.includes('bad-locale'))).toEqual([]);
  });
});
