/**
 * The analysts' tools (docs/data-drops.md#from-the-ministrys-table-to-a-published-drop) as an
 * analyst meets them: the real `budget-data` CLI on drops the tests build from CSV files and
 * workbooks, and the real server over the directories it writes.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
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
  resources: [
    'id,year,amount,category_id,organization_id,complementary,stage,source_id,derived',
    '1,2025,59800,3,,false,initial,1,false',
    '2,2026,63000,3,,false,initial,2,false',
  ].join('\n'),
  debt_origins: ['id,parent_id,name', '1,,Dette intérieure'].join('\n'),
  debt: ['year,debt_origin_id,value', '2025,1,9000'].join('\n'),
  gdp: ['year,gdp', '2025,170000', '2026,180000'].join('\n'),
  outstanding_debt: ['year,outstanding_debt', '2025,140000'].join('\n'),
  deficit: ['year,value', '2025,5000'].join('\n'),
  sources: [
    'id,title,url,publisher,published,quote',
    '1,Loi de finances 2025,,Ministère des Finances,2024-12-10,',
    '2,Loi de finances 2026,,Ministère des Finances,2025-12-10,',
  ].join('\n'),
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

  it('removes its half-written drop when stopped by Ctrl-C, a kill or a closed terminal, leaving the directory as it was, and exits 130, 143 or 129', async () => {
    const out = dir('interrupted');
    expect(await cli('build', sources('interrupted-good'), out, '--version', 'v1')).toMatchObject({ code: 0 });
    const before = snapshot(out);
    // Enough lines that the build is still writing and checking when the signal arrives.
    const lines = Array.from({ length: 400_000 }, (_, i) => `${i + 1},2026,1,2,1,false,initial,2,false`);
    const big = sources('interrupted-big', { expenses: [CSV.expenses!.split('\n')[0], ...lines].join('\n') });
    const tmp = dir('interrupted-tmp');
    mkdirSync(tmp);
    const staging = () => readdirSync(root).filter((name) => name.startsWith('.interrupted.new-'));

    for (const [signal, exitCode] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
      ['SIGHUP', 129],
    ] as const) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'build', big, out, '--version', 'v2'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, TMPDIR: tmp },
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      // Signalled once the new drop has its first file: the build is writing beside the directory.
      const deadline = Date.now() + 60_000;
      while (!staging().some((name) => readdirSync(path.join(root, name)).length > 0) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(staging(), signal).toHaveLength(1);
      child.kill(signal);
      expect(await exited, signal).toBe(exitCode);
      expect(staging(), signal).toEqual([]);
      expect(
        readdirSync(tmp).filter((name) => name.startsWith('budget-')),
        signal,
      ).toEqual([]);
      expect(snapshot(out), signal).toEqual(before);
    }
  }, 180_000);

  it('builds to the end, or fails cleanly, when what reads its output has gone (build … | head -1), leaving nothing half-done', async () => {
    const out = dir('closed-output');
    const staging = () => readdirSync(root).filter((name) => name.startsWith('.closed-output.new-'));
    const closed = (src: string, version: string) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'build', src, out, '--version', version], {
        cwd: ROOT,
        env: { PATH: process.env.PATH },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // As `| head -1` once it has its line, or `| true`: every write after this one fails with EPIPE.
      child.stdout.destroy();
      child.stderr.destroy();
      return new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    };
    expect(await closed(sources('closed-good'), 'v1')).toBe(0);
    expect(manifestOf(out).version).toBe('v1');
    expect(staging()).toEqual([]);

    const before = snapshot(out);
    const dangling = CSV.expenses!.replace('\n4,2026,30000,2,2,', '\n4,2026,30000,9,2,');
    expect(await closed(sources('closed-bad', { expenses: dangling }), 'v2')).toBe(1);
    expect(snapshot(out)).toEqual(before);
    expect(staging()).toEqual([]);
  }, 120_000);

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

describe('a version is one content', () => {
  it('refuses to put a drop in place of one of the same version with other content, and rebuilds the same content', async () => {
    const out = dir('version-out');
    expect((await cli('build', sources('version-src'), out, '--version', 'LF 2026')).code).toBe(0);
    const before = readFileSync(path.join(out, 'drop.json'), 'utf8');
    const changed = sources('version-changed', { gdp: 'year,gdp\n2025,171000\n2026,180000' });
    const refused = await cli('build', changed, out, '--version', 'LF 2026');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(`--version LF 2026: ${out} already holds a drop of that version with other content`);
    expect(readFileSync(path.join(out, 'drop.json'), 'utf8')).toBe(before);
    expect((await cli('build', changed, out, '--version', 'LF 2026 rev. 1')).code).toBe(0);
    expect((await cli('build', changed, out, '--version', 'LF 2026 rev. 1')).code).toBe(0);
  }, 120_000);
});

describe('carried over, never dropped by accident', () => {
  it('takes every drop.json field of --from that the command line does not give again, and refuses to lose a table unless --without says so', async () => {
    const prev = dir('from-prev');
    const first = await cli(
      'build',
      sources('from-src'),
      prev,
      '--version',
      'v1',
      '--source',
      'LF 2025',
      '--license',
      'CC-BY-4.0',
      '--units',
      'MDT,TND,1000000',
      '--description',
      'Budget 2025',
    );
    expect(first.code).toBe(0);

    const lacking = sources('from-lacking', { population: null });
    const refused = await cli('build', lacking, dir('from-next'), '--from', prev, '--version', 'v2', '--license', 'CC0');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      `population.csv: not found, but the drop of --from ${prev} has population; add it, or say --without population to leave it out`,
    );
    expect(existsSync(dir('from-next'))).toBe(false);

    const next = await cli('build', lacking, dir('from-next'), '--from', prev, '--version', 'v2', '--license', 'CC0', '--without', 'population');
    expect(next.code).toBe(0);
    const manifest = manifestOf(dir('from-next'));
    expect(manifest).toMatchObject({
      version: 'v2',
      description: 'Budget 2025',
      source: 'LF 2025',
      license: 'CC0',
      units: { name: 'MDT', currency: 'TND', scale: 1000000 },
    });
    expect(Object.keys(manifest.files)).not.toContain('population.parquet');
  }, 120_000);
});

describe('control totals', () => {
  it('refuses a drop whose year does not add up to the law’s total, naming the line and column of control_totals.csv, the year, the stage, both figures and the difference', async () => {
    const src = sources('control-src', {
      control_totals: ['year,stage,total_expenses,total_resources', '2025,initial,59800,59800', '2026,initial,63000,63100'].join('\n'),
    });
    const built = await cli('build', src, dir('control-out'), '--version', 'LF 2026');
    expect(built.code).toBe(1);
    expect(built.stdout).toBe(
      [
        'refused "LF 2026": 1 problem',
        'control_totals.csv, line 3, column total_resources: total_resources of 2026 (stage initial) is 63100 in the law, but the lines add up to 63000 (difference -100) [control_total_mismatch]',
        `${dir('control-out')} was left as it was`,
        '',
      ].join('\n'),
    );
    expect(existsSync(dir('control-out'))).toBe(false);

    // The law's figures: the drop builds, and drop.json keeps them.
    const right = sources('control-right', { control_totals: ['year,stage,total_expenses,total_resources', '2026,initial,63000,63000'].join('\n') });
    expect((await cli('build', right, dir('control-out'), '--version', 'LF 2026')).code).toBe(0);
    expect(manifestOf(dir('control-out')).control_totals).toEqual([{ year: 2026, stage: 'initial', total_expenses: 63000, total_resources: 63000 }]);

    // The server's validation applies the same rule to a drop.json edited by hand.
    const edited = manifestOf(dir('control-out'));
    edited.control_totals[0].total_resources = 62900;
    writeFileSync(path.join(dir('control-out'), 'drop.json'), JSON.stringify(edited));
    const validated = await cli('validate', dir('control-out'));
    expect(validated.code).toBe(1);
    expect(validated.stdout).toContain(
      'drop.json: control_totals: total_resources of 2026 (stage initial) is 62900 in the law, but the lines add up to 63000 (difference +100) [control_total_mismatch]',
    );
  }, 120_000);
});

describe('warnings that catch typos', () => {
  it('warns about a year far from all others, naming its file and line, and about lines without GDP or population, and fails on them with --strict', async () => {
    const typo = CSV.expenses!.replace('\n4,2026,30000,', '\n4,2062,30000,');
    const src = sources('typo-src', { expenses: typo });
    const built = await cli('build', src, dir('typo-out'), '--version', 'typo');
    expect(built.code).toBe(0);
    expect(built.stdout).toContain(
      'warning: expenses.csv, line 5: year 2062 is more than 5 years from every other year of the drop (the nearest is 2026): a typo?\n',
    );
    expect(built.stdout).toContain('warning: gdp: no row for year 2062, which has lines; measure=pct_gdp answers null there\n');
    expect(built.stdout).toContain('warning: population: no row for year 2062, which has lines; measure=per_capita answers null there\n');

    const strict = await cli('build', src, dir('typo-strict'), '--version', 'typo', '--strict');
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('refused "typo": 3 problems\nexpenses.csv, line 5: year 2062 is more than 5 years from every other year');
    expect(existsSync(dir('typo-strict'))).toBe(false);
    const validated = await cli('validate', dir('typo-out'), '--strict');
    expect(validated.code).toBe(1);
    // Of Parquet files, validate names the table and the row's id.
    expect(validated.stdout).toMatch(
      /^invalid with --strict: 3 warnings in .*typo-out\nwarning: expenses\.parquet, id 4: year 2062 is more than 5 years/,
    );
    // The year on several lines: the first is named, and how many more.
    const gdp = sources('typo-gdp', { expenses: typo, gdp: `${CSV.gdp}\n2062,190000` });
    const both = await cli('build', gdp, dir('typo-gdp-out'), '--version', 'typo', '--strict');
    expect(both.stdout).toContain(
      '\nexpenses.csv, line 5: year 2062 is more than 5 years from every other year of the drop (the nearest is 2026): a typo? (and on 1 more line of gdp.csv) (--strict makes warnings errors)\n',
    );
    expect(validated.stdout).not.toContain('valid: ');
    // --without names an optional table, or the command line is wrong (exit 2), before anything is read.
    for (const table of ['nonsense', 'expenses']) {
      const wrong = await cli('build', src, dir('typo-without'), '--without', table);
      expect(wrong.code, table).toBe(2);
      expect(wrong.stderr, table).toMatch(new RegExp(`^budget-data: --without ${table}: `));
    }
  }, 120_000);
});

/** Windows-1252 bytes of a text, as Excel on Windows writes a CSV file. */
const windows1252 = (text: string): Buffer => iconv.encode(text, 'windows-1252');

/** A table of the sample as a French spreadsheet exports it: `;`, decimal commas, spaces between thousands, VRAI/FAUX. */
function frenchCsv(table: string): string {
  const [header, ...rows] = parse(readFileSync(path.join(SAMPLE, `${table}.csv`), 'utf8')) as string[][];
  const spec = TABLES.find((t) => t.name === table)!;
  const kinds = header!.map((name) => spec.columns.find((c) => c.name === name)?.kind);
  const french = rows.map((row) =>
    row.map((value, i) => {
      if (kinds[i] === 'boolean') return value === 'true' ? 'VRAI' : value === 'false' ? 'FAUX' : value;
      if (kinds[i] === 'numeric' && value !== '') {
        const [whole, decimals] = value.split('.');
        const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, '\u00a0');
        return decimals === undefined ? grouped : `${grouped},${decimals}`;
      }
      return value;
    }),
  );
  return stringify([header!, ...french], { delimiter: ';', record_delimiter: '\r\n' });
}

describe('spreadsheets as they are exported', () => {
  const TABLE_NAMES = TABLES.map((t) => t.name).filter((name) => existsSync(path.join(SAMPLE, `${name}.csv`)));
  const filesOf = (where: string) => manifestOf(where).files;
  const FIXED = ['--version', 'sample', '--created-at', '2026-01-01T00:00:00Z', '--description', 'the sample'];

  it('builds the same rows from a French export (UTF-8 with a byte-order mark) as from the sample’s CSV files', async () => {
    expect((await cli('build', SAMPLE, dir('sample-csv'), ...FIXED)).code).toBe(0);
    const fr = dir('sample-fr');
    mkdirSync(fr);
    for (const table of TABLE_NAMES) writeFileSync(path.join(fr, `${table}.csv`), `\uFEFF${frenchCsv(table)}`);
    const built = await cli('build', fr, dir('sample-fr-out'), ...FIXED, '--locale', 'fr');
    expect(built.code).toBe(0);
    expect(filesOf(dir('sample-fr-out'))).toEqual(filesOf(dir('sample-csv')));

    // The same files without the options: told what to do, in the analyst's terms.
    const plain = await cli('build', fr, dir('sample-fr-plain'), ...FIXED);
    expect(plain.code).toBe(1);
    expect(plain.stdout).toMatch(/: the columns are separated by ";", as a French spreadsheet exports them; build with --locale fr/);
    expect(plain.stdout).not.toMatch(/Conversion Error|CSV Error|DuckDB/i);
  }, 180_000);

  it('builds the same rows from files whose lines end in a mix of CRLF and LF, or in CR alone, as from LF files', async () => {
    const FIXED_SMALL = ['--version', 'small', '--created-at', '2026-01-01T00:00:00Z', '--description', 'small'];
    expect((await cli('build', sources('endings-lf'), dir('endings-lf-out'), ...FIXED_SMALL)).code).toBe(0);
    const crlf = (text: string) => text.replace(/\n/g, '\r\n');
    const [header, ...lines] = CSV.expenses!.split('\n');
    const mixed = sources('endings-mixed', {
      // An Excel export (CRLF) with a line appended by echo (LF), and an LF file with one CRLF line.
      expenses: `${crlf([header, ...lines.slice(0, -1)].join('\n'))}\r\n${lines.at(-1)}`,
      organizations: CSV.organizations!.replace('\n1,', '\r\n1,'),
      // An old Mac's file.
      categories: CSV.categories!.replace(/\n/g, '\r'),
    });
    const built = await cli('build', mixed, dir('endings-mixed-out'), ...FIXED_SMALL);
    expect(built.code, built.stdout).toBe(0);
    expect(filesOf(dir('endings-mixed-out'))).toEqual(filesOf(dir('endings-lf-out')));

    // Lines are numbered as a spreadsheet numbers them, a line break in quotes included.
    const categories = [
      'id,name,type,parent_id',
      '1,"Dépenses\r\n(toutes)",expense,',
      '2,Rémunérations,expense,1',
      '3,Recettes,resource,',
      'z,Autres,expense,',
    ];
    const wrong = sources('endings-wrong', { categories: categories.join('\r') });
    const refused = await cli('build', wrong, dir('endings-wrong-out'));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('categories.csv, line 5, column id: "z" is not a whole number\n');
  }, 120_000);

  it('builds the same rows from a French export in windows-1252 as from UTF-8 CSV files', async () => {
    const FIXED_SMALL = ['--version', 'small', '--created-at', '2026-01-01T00:00:00Z', '--description', 'small'];
    const utf8 = sources('small-utf8');
    expect((await cli('build', utf8, dir('small-utf8-out'), ...FIXED_SMALL)).code).toBe(0);
    const latin = dir('small-1252');
    mkdirSync(latin);
    for (const [table, text] of Object.entries(CSV)) {
      const french = text
        .replace(/,/g, ';')
        .replace(/;false/g, ';FAUX')
        .replace(/;(\d{4,})(?=;|$)/gm, (_, n: string) => `;${n.replace(/\B(?=(\d{3})+$)/g, '\u00a0')}`);
      writeFileSync(path.join(latin, `${table}.csv`), windows1252(`${french}\n`));
    }
    const built = await cli('build', latin, dir('small-1252-out'), ...FIXED_SMALL, '--locale', 'fr', '--encoding', 'windows-1252');
    expect(built.code).toBe(0);
    expect(filesOf(dir('small-1252-out'))).toEqual(filesOf(dir('small-utf8-out')));
  }, 120_000);

  it('reads a file that starts with a UTF-8 byte-order mark, or holds accents written as UTF-8, as UTF-8, whatever --encoding names for the others', async () => {
    const FIXED_SMALL = ['--version', 'small', '--created-at', '2026-01-01T00:00:00Z', '--description', 'small'];
    expect((await cli('build', sources('bom-utf8'), dir('bom-utf8-out'), ...FIXED_SMALL)).code).toBe(0);
    const mixed = dir('bom-mixed');
    mkdirSync(mixed);
    for (const [table, text] of Object.entries(CSV)) writeFileSync(path.join(mixed, `${table}.csv`), windows1252(`${text}\n`));
    writeFileSync(path.join(mixed, 'organizations.csv'), `\uFEFF${CSV.organizations}\n`);
    for (const encoding of ['windows-1252', 'iso-8859-1']) {
      const built = await cli('build', mixed, dir(`bom-${encoding}-out`), ...FIXED_SMALL, '--encoding', encoding);
      expect(built.code, built.stdout).toBe(0);
      expect(filesOf(dir(`bom-${encoding}-out`))).toEqual(filesOf(dir('bom-utf8-out')));
    }
    // Without its mark too: accented text that is valid UTF-8 is not windows-1252 text (É would read Ã‰).
    writeFileSync(path.join(mixed, 'organizations.csv'), `${CSV.organizations}\n`);
    const built = await cli('build', mixed, dir('no-bom-out'), ...FIXED_SMALL, '--encoding', 'windows-1252');
    expect(built.code, built.stdout).toBe(0);
    expect(filesOf(dir('no-bom-out'))).toEqual(filesOf(dir('bom-utf8-out')));
  }, 120_000);

  it('builds the same rows from an .xlsx workbook of the sample, one sheet per table, and writes a template workbook', async () => {
    const sheets = TABLE_NAMES.map((table) => {
      const [header, ...rows] = parse(readFileSync(path.join(SAMPLE, `${table}.csv`), 'utf8')) as string[][];
      const spec = TABLES.find((t) => t.name === table)!;
      const kinds = header!.map((name) => spec.columns.find((c) => c.name === name)?.kind);
      const cell = (value: string, i: number) => {
        if (value === '') return null;
        if (kinds[i] === 'boolean') return { value: value === 'true', type: Boolean };
        if (kinds[i] === 'integer' || kinds[i] === 'numeric') return { value: Number(value), type: Number };
        return { value, type: String };
      };
      return { sheet: table, data: [header!.map((value) => ({ value })), ...rows.map((row) => row.map(cell))] };
    });
    const workbook = dir('sample.xlsx');
    await writeXlsxFile(sheets as never).toFile(workbook);
    expect((await cli('build', SAMPLE, dir('sample-csv2'), ...FIXED)).code).toBe(0);
    const built = await cli('build', workbook, dir('sample-xlsx-out'), ...FIXED);
    expect(built.code).toBe(0);
    expect(filesOf(dir('sample-xlsx-out'))).toEqual(filesOf(dir('sample-csv2')));

    const template = await cli('template', dir('template.xlsx'));
    expect(template).toMatchObject({ code: 0 });
    expect(template.stdout).toMatch(/^wrote .*template\.xlsx: 14 sheets \(organizations, categories, expenses, .*, control_totals, notes\)\n$/);
    // Its one example row per sheet is read as a drop would be: the rules speak of its sheets and lines.
    const fromTemplate = await cli('build', dir('template.xlsx'), dir('template-out'), '--version', 'template');
    expect(fromTemplate.stdout).toContain(
      'resources (sheet of template.xlsx): category_id must refer to an existing categories.id:\n    line 2: {"id":1,"year":2026',
    );
  }, 180_000);
});

describe('errors in the analyst’s terms', () => {
  it('names every line of an id or a code given twice, not only the first, with its column and value in words', async () => {
    const twice = CSV.expenses!.replace('\n4,2026,30000,', '\n1,2026,30000,');
    const built = await cli('build', sources('twice-src', { expenses: twice }), dir('twice-out'), '--version', 'twice');
    expect(built.code).toBe(1);
    expect(built.stdout).toContain('expenses.csv: (id) must be unique:\n    lines 2, 5: id 1 is given 2 times\n');

    const organizations = CSV.organizations!.replace(',ME', ',MF');
    const code = await cli('build', sources('twice-code', { organizations }), dir('twice-out'), '--version', 'twice');
    expect(code.code).toBe(1);
    expect(code.stdout).toContain('organizations.csv: (code) must be unique:\n    lines 2, 3: code "MF" is given 2 times\n');
    // The same in a workbook, whose sheets are named as the CSV files.
    const sheets = Object.entries({ ...CSV, organizations }).map(([table, text]) => ({
      sheet: table,
      data: text.split('\n').map((line) => line.split(',').map((value) => (value === '' ? null : { value }))),
    }));
    await writeXlsxFile(sheets as never).toFile(dir('twice.xlsx'));
    const sheet = await cli('build', dir('twice.xlsx'), dir('twice-out'), '--version', 'twice');
    expect(sheet.stdout).toContain('organizations (sheet of twice.xlsx): (code) must be unique:\n    lines 2, 3: code "MF" is given 2 times\n');
  }, 60_000);
  it('names the file, the spreadsheet line, the column, the value and what was expected, never an engine’s message', async () => {
    const cases: [string, Record<string, string | null>, RegExp][] = [
      [
        'an unquoted decimal comma',
        { gdp: 'year,gdp\n2025,170000\n2026,13700,5' },
        /^gdp\.csv, line 3: 3 fields, expected 2 \(the header's columns\); a value holding a comma must be in "quotes"/m,
      ],
      [
        'FAUX without --locale fr',
        { expenses: CSV.expenses!.replace('\n3,2026,33000,2,1,false,', '\n3,2026,33000,2,1,FAUX,') },
        /^expenses\.csv, line 4, column complementary: "FAUX" is not true or false \(also 1 or 0; with --locale fr, VRAI or FAUX\)$/m,
      ],
    ];
    for (const [, change, message] of cases) {
      const run = await cli('build', sources(`errors-${Object.keys(change)[0]}`, change), dir('errors-out'));
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(message);
      expect(run.stdout).not.toMatch(/Conversion Error|CSV Error|Binder Error|Parser Error/);
    }
    const latin = dir('errors-latin');
    mkdirSync(latin);
    cpSync(sources('errors-latin-src'), latin, { recursive: true });
    writeFileSync(path.join(latin, 'organizations.csv'), windows1252(`${CSV.organizations}\n`));
    const run = await cli('build', latin, dir('errors-out'));
    expect(run.stdout).toMatch(/^organizations\.csv, line 2: is not UTF-8 text; name its character set with --encoding/m);
  }, 180_000);

  it('names the line the header is on when empty lines come before it, in a CSV file and in a sheet', async () => {
    const organizations = `\n\nid,nom,code\n1,Ministère des Finances,MF`;
    const cases: [Record<string, string>, string][] = [
      [{ organizations }, 'organizations.csv, line 3 (the header): header is "id,nom,code", expected "id,name,code"'],
      [{ control_totals: '\nyear,stage,expenses\n2026,initial,63000' }, 'control_totals.csv, line 2 (the header): header is "year,stage,expenses"'],
    ];
    for (const [change, message] of cases) {
      const csv = await cli('build', sources(`header-line-${Object.keys(change)[0]}`, change), dir('header-line-out'));
      expect(csv.code, message).toBe(1);
      expect(csv.stdout, message).toContain(`\n${message}`);
    }

    const sheets = Object.entries({ ...CSV, organizations }).map(([table, text]) => ({
      sheet: table,
      data: text.split('\n').map((line) => line.split(',').map((value) => (value === '' ? null : { value }))),
    }));
    await writeXlsxFile(sheets as never).toFile(dir('header-line.xlsx'));
    const sheet = await cli('build', dir('header-line.xlsx'), dir('header-line-out'));
    expect(sheet.code).toBe(1);
    expect(sheet.stdout).toContain('\norganizations (sheet of header-line.xlsx), line 3 (the header): header is "id,nom,code"');
  }, 120_000);

  it('refuses a workbook with two sheets of one table, naming both, rather than reading the last', async () => {
    const sheetsOf = (tables: Record<string, string>) =>
      Object.entries(tables).map(([sheet, text]) => ({
        sheet,
        data: text.split('\n').map((line) => line.split(',').map((value) => (value === '' ? null : { value }))),
      }));
    const twice = { ...CSV, 'expenses.csv': CSV.expenses!.split('\n').slice(0, 2).join('\n'), ' gdp': CSV.gdp! };
    await writeXlsxFile(sheetsOf(twice) as never).toFile(dir('two-sheets.xlsx'));
    const run = await cli('build', dir('two-sheets.xlsx'), dir('two-sheets-out'));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('\ntwo-sheets.xlsx: sheets "expenses" and "expenses.csv" are both the expenses table; keep one of them\n');
    expect(run.stdout).toContain('\ntwo-sheets.xlsx: sheets "gdp" and " gdp" are both the gdp table; keep one of them\n');
    expect(existsSync(dir('two-sheets-out'))).toBe(false);
  }, 60_000);

  it('numbers the lines as a spreadsheet numbers its rows: an empty line is one, a cell’s line breaks are not, however the file is read', async () => {
    const rows = ['id,name,code', '1,"Ministère\ndes Finances",MF', '', '2,Ministère de l’Éducation,ME', 'z,Ministry C,MC'];
    const organizations = rows.join('\n');
    // Without the empty line, DuckDB reads the file where it is; with it, or with mixed line
    // endings, or in French, the file is converted first: the rows are numbered alike.
    const noEmptyLine = rows.filter((row) => row !== '').join('\n');
    const french = (text: string) => text.replace(/,/g, ';');
    const cases: [string, Record<string, string>, string[], number][] = [
      ['LF', { organizations }, [], 5],
      ['CRLF', { organizations: organizations.replace(/\n/g, '\r\n') }, [], 5],
      ['fr', Object.fromEntries(Object.entries({ ...CSV, organizations }).map(([table, text]) => [table, french(text)])), ['--locale', 'fr'], 5],
      ['plain', { organizations: noEmptyLine }, [], 4],
      ['mixed', { organizations: noEmptyLine.replace('\nz,', '\r\nz,') }, [], 4],
    ];
    for (const [name, change, options, line] of cases) {
      const run = await cli('build', sources(`empty-lines-${name}`, change), dir('empty-lines-out'), ...options);
      expect(run.code, name).toBe(1);
      expect(run.stdout, name).toContain(`organizations.csv, line ${line}, column id: "z" is not a whole number\n`);
    }
  }, 120_000);

  /** `build --locale fr` of the CSV files above separated by `;` (they hold no decimals), with `changes`, into `<name>-out`. */
  const buildFrench = (name: string, changes: Record<string, string>) => {
    const french = Object.fromEntries(Object.entries(CSV).map(([table, text]) => [table, text.replace(/,/g, ';')]));
    return cli('build', sources(name, { ...french, ...changes }), dir(`${name}-out`), '--locale', 'fr');
  };

  it('reads control_totals.csv under --locale fr as the tables are, and says when it is not separated as they are', async () => {
    // 2026's initial law: expenses 33,000 + 30,000, resources 63,000, written as a French spreadsheet does.
    const totals = 'year;stage;total_expenses;total_resources\n2026;initial;63\u00a0000;63 000,0';
    const built = await buildFrench('fr-totals', { control_totals: totals });
    expect(built.stdout + built.stderr).not.toMatch(/is not a number/);
    expect(built.code).toBe(0);
    expect(manifestOf(dir('fr-totals-out')).control_totals).toEqual([
      { year: 2026, stage: 'initial', total_expenses: 63000, total_resources: 63000 },
    ]);

    const commas = 'year,stage,total_expenses,total_resources\n2026,initial,63000,63000';
    const refused = await buildFrench('fr-totals-commas', { control_totals: commas });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      'control_totals.csv, line 1 (the header): the columns are separated by ",", but --locale fr reads ";"-separated files\n',
    );
  }, 120_000);

  it('refuses a number with a dot under --locale fr, where 1.000 may mean one thousand, but reads a workbook’s number cells', async () => {
    const run = await buildFrench('fr-dot', { gdp: 'year;gdp\n2025;170.000\n2026;180000,5' });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'gdp.csv, line 2, column gdp: "170.000" has a dot, which --locale fr does not read (1.000 may mean one or one thousand); write decimals with a comma and thousands with a space or nothing, such as 13 700,5\n',
    );
    expect(existsSync(dir('fr-dot-out'))).toBe(false);

    // A number cell's decimal point is not a writer's dot: 170000.5 typed in a cell builds.
    const sheets = Object.entries({ ...CSV, gdp: 'year,gdp\n2025,170000.5\n2026,180000' }).map(([table, text]) => ({
      sheet: table,
      data: text
        .split('\n')
        .map((line, row) =>
          line
            .split(',')
            .map((value) => (value === '' ? null : row > 0 && /^[\d.]+$/.test(value) ? { value: Number(value), type: Number } : { value })),
        ),
    }));
    await writeXlsxFile(sheets as never).toFile(dir('fr-dot.xlsx'));
    const workbook = await cli('build', dir('fr-dot.xlsx'), dir('fr-dot-xlsx-out'), '--locale', 'fr');
    expect(workbook.code, workbook.stdout).toBe(0);
  }, 120_000);

  it('tells a --locale fr file’s header and fields with its own separator, ";"', async () => {
    const wide = await buildFrench('fr-wide', { gdp: 'year;gdp\n2025;170000;5' });
    expect(wide.code).toBe(1);
    expect(wide.stdout).toContain('gdp.csv, line 2: 3 fields, expected 2 (the header\'s columns); a value holding a ";" must be in "quotes"\n');
    const header = await buildFrench('fr-header', { gdp: 'year;produit\n2025;170000' });
    expect(header.code).toBe(1);
    expect(header.stdout).toContain('gdp.csv, line 1 (the header): header is "year;produit", expected "year;gdp"');
  }, 120_000);

  it('quotes a refused value under --locale fr as the analyst wrote it, not as it was read', async () => {
    const run = await buildFrench('fr-as-written', { gdp: 'year;gdp\n2025;170 000,12345\n2026;1\u00a0e5' });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('gdp.csv, line 2, column gdp: "170 000,12345" has more than 3 decimals\n');
    expect(run.stdout).toContain('gdp.csv, line 3, column gdp: "1\u00a0e5" is not a number with at most 3 decimals');
  }, 120_000);

  it('reads a space under --locale fr only between groups of three digits, and refuses 58 25 or an id 1 0, quoting it as written', async () => {
    const french = CSV.expenses!.replace(/,/g, ';');
    const run = await buildFrench('fr-spaces', {
      expenses: french.replace('\n2;2025;29800;', '\n1 0;2025;29 800;'),
      gdp: 'year;gdp\n2025;58 25\n2026;1\u00a0234\u202f567,5',
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^refused "[^"]+": 2 problems\n/);
    expect(run.stdout).toContain('expenses.csv, line 3, column id: "1 0" is not a whole number\n');
    expect(run.stdout).toContain('gdp.csv, line 2, column gdp: "58 25" is not a number with at most 3 decimals');
  }, 120_000);

  it('tells a bad line of control_totals.csv or notes.csv in the analyst’s terms, never the CSV parser’s or the validation library’s', async () => {
    const TOTALS = 'year,stage,total_expenses,total_resources';
    const cases: [Record<string, string>, string][] = [
      [
        { control_totals: `${TOTALS}\n2026,initial,63000,63000,5` },
        'control_totals.csv, line 2: 5 fields, expected 4 (the header\'s columns); a value holding a comma must be in "quotes"',
      ],
      [
        { notes: 'table,id,text,source_id\nexpenses,1,fixed,,z' },
        'notes.csv, line 2: 5 fields, expected 4 (the header\'s columns); a value holding a comma must be in "quotes"',
      ],
      [
        { control_totals: 'year,stage,expenses\n2026,initial,63000' },
        'control_totals.csv, line 1 (the header): header is "year,stage,expenses", expected "year,stage,total_expenses,total_resources" (total_expenses and total_resources may be left out)',
      ],
      [
        { control_totals: `${TOTALS}\n2026,initial,63000,63000\n2025,initial,10x,` },
        'control_totals.csv, line 3, column total_expenses: "10x" is not a number, such as 63000',
      ],
    ];
    for (const [change, message] of cases) {
      const run = await cli('build', sources(`manifest-tables-${Object.keys(change)[0]}`, change), dir('manifest-tables-out'));
      expect(run.code, message).toBe(1);
      expect(run.stderr, message).toBe('');
      expect(run.stdout, message).toMatch(/^refused "[^"]+": 1 problem\n/);
      expect(run.stdout, message).toContain(`\n${message}\n${dir('manifest-tables-out')} was left as it was\n`);
    }
  }, 120_000);

  it('says a UTF-16 file (Excel\'s "Unicode text") is one, and reads it with --encoding utf-16le', async () => {
    const wide = dir('errors-utf16');
    mkdirSync(wide);
    cpSync(sources('errors-utf16-src'), wide, { recursive: true });
    writeFileSync(path.join(wide, 'organizations.csv'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${CSV.organizations}\n`, 'utf16le')]));
    const refused = await cli('build', wide, dir('utf16-out'));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^organizations\.csv: is UTF-16LE text, not UTF-8; name its character set with --encoding utf-16le/m);
    // --encoding names the character set of every input file.
    for (const file of readdirSync(wide)) {
      const text = readFileSync(path.join(wide, file));
      if (text[0] !== 0xff)
        writeFileSync(path.join(wide, file), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text.toString('utf8'), 'utf16le')]));
    }
    const built = await cli('build', wide, dir('utf16-out'), '--encoding', 'utf-16le');
    expect(built.code, built.stdout + built.stderr).toBe(0);
  }, 180_000);

  it('gives the position of a broken drop.json and refuses a created_at that is not ISO 8601', async () => {
    const built = dir('manifest-out');
    expect((await cli('build', sources('manifest-src'), built)).code).toBe(0);
    const text = readFileSync(path.join(built, 'drop.json'), 'utf8');
    writeFileSync(path.join(built, 'drop.json'), text.replace('"description":', '"description"'));
    expect((await cli('validate', built)).stdout).toMatch(/^drop\.json: must be valid JSON: line 4, column \d+/m);
    writeFileSync(path.join(built, 'drop.json'), text.replace(/"created_at": "[^"]*"/, '"created_at": "yesterday"'));
    expect((await cli('validate', built)).stdout).toMatch(/^drop\.json: created_at must be an ISO 8601 date or date-time/m);
  }, 60_000);

  it('refuses a created_at that is no real date or time, in drop.json and in build --created-at, naming it and the value', async () => {
    const built = dir('calendar-out');
    expect((await cli('build', sources('calendar-src'), built, '--created-at', '2028-02-29T23:59:59+14:00')).code).toBe(0);
    const text = readFileSync(path.join(built, 'drop.json'), 'utf8');
    for (const impossible of ['2026-13-45', '2026-02-30T25:00:00Z', '2026-02-29', '2026-01-01T12:60:00Z']) {
      writeFileSync(path.join(built, 'drop.json'), text.replace(/"created_at": "[^"]*"/, `"created_at": "${impossible}"`));
      const validated = await cli('validate', built);
      expect(validated.code).toBe(1);
      expect(validated.stdout).toContain(
        `drop.json: created_at must be an ISO 8601 date or date-time that exists, such as 2026-12-01T09:00:00Z, not "${impossible}"`,
      );
    }
    // A date-time without an offset is ISO 8601 too, as Python's datetime.isoformat() writes it.
    writeFileSync(path.join(built, 'drop.json'), text.replace(/"created_at": "[^"]*"/, '"created_at": "2026-11-29T21:13:33.123456"'));
    expect((await cli('validate', built)).code).toBe(0);
    const refused = await cli('build', sources('calendar-src'), dir('calendar-refused'), '--created-at', '2026-02-30');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      '--created-at must be an ISO 8601 date or date-time that exists, such as 2026-12-01T09:00:00Z, not "2026-02-30"',
    );
    expect(existsSync(dir('calendar-refused'))).toBe(false);
  }, 60_000);

  it('refuses build --version given empty or only spaces, and writes nothing', async () => {
    for (const version of ['', '  ']) {
      const refused = await cli('build', sources('empty-version-src'), dir('empty-version-out'), '--version', version);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('--version must name the drop: it must not be empty or only spaces');
      expect(existsSync(dir('empty-version-out'))).toBe(false);
    }
  }, 60_000);
});

describe('paths from where the analyst stands', () => {
  it('resolves relative paths from the directory the command was started in, under npm run data -- too', async () => {
    const run = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn('npm', ['run', '--silent', 'data', '--', 'validate', '.'], {
        cwd: path.join(ROOT, 'data'),
        env: { PATH: process.env.PATH },
      });
      let stdout = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.on('close', (code) => resolve({ code, stdout }));
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^valid: ".*" in ${path.join(ROOT, 'data').replace(/[/\\]/g, '\\$&')};`));
  }, 60_000);
});

describe('what changed, ready for a release note', () => {
  const LINES_2025 = CSV.expenses!.split('\n').slice(0, 3).join('\n');
  const RESOURCES_2025 = CSV.resources!.split('\n').slice(0, 2).join('\n');

  it('lists every added line with its year, amount, category, organization, stage and source, and the totals by year and stage, in Markdown and JSON', async () => {
    const old = dir('diff-2025');
    expect(
      (await cli('build', sources('diff-2025-src', { expenses: LINES_2025, resources: RESOURCES_2025 }), old, '--version', 'LF 2025')).code,
    ).toBe(0);
    const next = dir('diff-2026');
    expect((await cli('build', sources('diff-2026-src'), next, '--version', 'LF 2026', '--from', old)).code).toBe(0);

    const markdown = await cli('diff', old, next, '--format', 'markdown');
    expect(markdown.code).toBe(1);
    expect(markdown.stdout).toContain('## Changes from "LF 2025" to "LF 2026"');
    expect(markdown.stdout).toContain('| expenses | 2 | 4 | 2 | 0 | 0 |');
    expect(markdown.stdout).toContain(
      '| added | expenses | 3 | 2026 | — | 33,000 | Rémunérations | Ministère des Finances | initial | Loi de finances 2026 |',
    );
    expect(markdown.stdout).toContain('| added | resources | 2 | 2026 | — | 63,000 | Recettes fiscales | — | initial | Loi de finances 2026 |');
    expect(markdown.stdout).toContain('| 2026 | initial | — | 63,000 | +63,000 | — | 63,000 | +63,000 |');

    const json = await cli('diff', old, next, '--format', 'json');
    const parsed = JSON.parse(json.stdout);
    expect(parsed.lines).toHaveLength(3);
    expect(parsed.totals_by_stage).toContainEqual({
      year: 2026,
      stage: 'amended',
      expenses_before: null,
      expenses_after: 63000,
      expenses_change: 63000,
      resources_before: null,
      resources_after: 63000,
      resources_change: 63000,
    });
  }, 120_000);
});

describe('every answer-changing field is part of the drop’s identity, and corrections say why', () => {
  it('gives a units-only change a new ETag, shows it in diff and /meta/; serves the notes of a correction; names the version refused and every problem', async () => {
    const { appServing, listen } = await import('./helpers/app.js');
    const { Reloader } = await import('../src/data/reloader.js');
    const served = dir('identity');
    const src = sources('identity-src');
    expect((await cli('build', src, served, '--version', 'v1', '--units', 'MDT,TND,1000000', '--created-at', '2026-01-01T00:00:00Z')).code).toBe(0);
    const kept = dir('identity-v1');
    cpSync(served, kept, { recursive: true });

    const t = await appServing(served);
    const reloader = new Reloader({ dataDir: served, store: t.store, debounceMs: 50 });
    reloader.watch();
    const { base, stop } = await listen(t.app);
    try {
      const meta = () => fetch(`${base}/budget/api/meta/`).then((r) => r.json() as Promise<any>);
      const url = `${base}/budget/api/totals/?year=2026&measure=per_capita`;
      const first = await fetch(url);
      const etag = first.headers.get('etag')!;
      const before = (await first.json()) as { total_expenses: number }[];

      // The same CSV files, a unit a thousand times smaller: every per-capita figure changes.
      expect(
        (await cli('build', src, served, '--version', 'v2', '--from', served, '--units', 'kTND,TND,1000', '--created-at', '2026-01-02T00:00:00Z'))
          .code,
      ).toBe(0);
      const swapped = await eventually(meta, (m) => m.version === 'v2');
      await reloader.pendingChange;
      expect((await meta()).changes.drop_json).toEqual([
        { field: 'units', before: { name: 'MDT', currency: 'TND', scale: 1000000 }, after: { name: 'kTND', currency: 'TND', scale: 1000 } },
      ]);
      expect(swapped.version).toBe('v2');
      const second = await fetch(url, { headers: { 'If-None-Match': etag } });
      expect(second.status).toBe(200);
      expect(second.headers.get('etag')).not.toBe(etag);
      expect(((await second.json()) as { total_expenses: number }[])[0]!.total_expenses).not.toBe(before[0]!.total_expenses);

      const diffed = await cli('diff', kept, served);
      expect(diffed.code).toBe(1);
      expect(diffed.stdout).toContain(
        'drop.json:\n  units: {"name":"MDT","currency":"TND","scale":1000000} → {"name":"kTND","currency":"TND","scale":1000}\n',
      );

      // A correction of the 2025 deficit, with its reason.
      const corrected = sources('identity-corrected', {
        deficit: 'year,value\n2025,5200',
        notes: 'table,id,text,source_id\ndeficit,2025,"Corrected to the outturn of the 2026 budget report",2',
      });
      const wrongNote = sources('identity-wrong-note', { notes: 'table,id,text\ndeficit,2030,A year the drop does not have' });
      const refused = await cli('build', wrongNote, served, '--version', 'v3', '--from', served);
      expect(refused.stdout).toContain('notes.csv, line 2: refers to deficit year 2030, which the drop does not have');
      expect((await cli('build', corrected, served, '--version', 'v3', '--from', served)).code).toBe(0);
      await eventually(meta, (m) => m.version === 'v3');
      await reloader.pendingChange;
      const changes = (await meta()).changes;
      expect(changes.notes).toEqual([{ table: 'deficit', id: 2025, text: 'Corrected to the outturn of the 2026 budget report', source_id: 2 }]);
      expect(changes.tables.deficit).toEqual({ added: 0, removed: 0, changed: 1 });

      // A control total the lines do not add up to: refused with its own code.
      const mismatched = manifestOf(served);
      mismatched.version = 'v4-control';
      mismatched.control_totals = [{ year: 2026, stage: 'initial', total_expenses: 1 }];
      writeFileSync(path.join(served, 'drop.json'), JSON.stringify(mismatched));
      const refusedTotal = await eventually(meta, (m) => m.last_reload?.rejected_version === 'v4-control');
      expect(refusedTotal.last_reload).toMatchObject({ status: 'rejected', code: 'control_total_mismatch', file: 'drop.json', version: 'v3' });
      expect(refusedTotal.last_reload.problems).toEqual([
        expect.stringMatching(
          /^drop\.json: control_totals: total_expenses of 2026 .*\(difference \+62999\) \[control_total_mismatch\]; offending row: /,
        ),
      ]);

      // A drop.json edited by hand and broken twice over: refused, naming itself, every problem listed.
      const manifest = manifestOf(served);
      manifest.version = 'v4-by-hand';
      manifest.files['gdp.parquet'].rows = 99;
      manifest.control_totals = [{ year: 2026, stage: 'initial', total_expenses: 1 }];
      writeFileSync(path.join(served, 'drop.json'), JSON.stringify(manifest));
      const rejected = await eventually(meta, (m) => m.last_reload?.rejected_version === 'v4-by-hand');
      expect(rejected.version).toBe('v3');
      expect(rejected.last_reload).toMatchObject({ status: 'rejected', version: 'v3', rejected_version: 'v4-by-hand' });
      expect(rejected.last_reload.problems).toEqual(['gdp.parquet: row count must match drop.json (manifest 99, file 2)']);
    } finally {
      reloader.close();
      await stop();
      await t.close();
    }
  }, 180_000);
});
