/**
 * The SQL macros that let DuckDB's own CSV writer write the bytes of the service's JS writer
 * (formats/csv.ts): js_number writes a double as String() does, csv_text a text field as
 * formulaSafe and csv-stringify's quoting do. Checked on a fresh in-memory DuckDB against JS itself,
 * on values chosen where the notations part and on random ones over every magnitude.
 */
import { readFile } from 'node:fs/promises';
import { DOUBLE, DuckDBInstance, LIST, listValue, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvField } from '../src/formats/csv.js';

let instance: DuckDBInstance;
let connection: DuckDBConnection;
beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  for (const name of ['js_digits', 'js_number', 'csv_text_quoted', 'csv_text']) {
    await connection.run(await readFile(new URL(`../sql/derive/${name}.sql`, import.meta.url), 'utf8'));
  }
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

/** A seeded generator, so that a failure can be run again. */
function random(seed: number): () => number {
  return () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

async function written(macro: string, values: readonly unknown[], type: typeof DOUBLE | typeof VARCHAR): Promise<unknown[]> {
  const reader = await connection.runAndReadAll(`SELECT ${macro}(unnest($v))`, { v: listValue(values as never[]) }, { v: LIST(type) });
  return reader.getRows().map((row) => row[0]);
}

describe('js_number (sql/derive/js_number.sql)', () => {
  it('writes the doubles where DuckDB and JS notations part as String() does', async () => {
    const values = [
      0,
      -0,
      1234,
      -1234,
      0.001,
      -0.001,
      0.1,
      13700.5,
      999999999999.999,
      1e15,
      999999999999999.9,
      1e16,
      12345678901234568,
      1e20,
      1e21,
      1.5e21,
      -1e22,
      1e-4,
      1e-5,
      1e-6,
      1e-7,
      1.5e-7,
      -1e-7,
      5e-324,
      Number.MAX_VALUE,
    ];
    expect(await written('js_number', values, DOUBLE)).toEqual(values.map(String));
  });

  it('writes random doubles of every magnitude, and amounts with three decimals, as String() does', async () => {
    const next = random(7);
    const values: number[] = [];
    for (let i = 0; i < 5000; i++) values.push((next() - 0.3) * 10 ** Math.floor(next() * 60 - 30));
    for (let i = 0; i < 5000; i++) values.push(Number(((next() - 0.5) * 10 ** Math.floor(next() * 20 - 4)).toPrecision(1 + Math.floor(next() * 17))));
    for (let i = 0; i < 5000; i++) values.push(Math.round((next() - 0.2) * 10 ** Math.floor(next() * 18) * 1000) / 1000);
    const got = await written('js_number', values, DOUBLE);
    const wrong = values.filter((v, i) => String(v) !== got[i]).map((v) => `${String(v)} written ${String(got[values.indexOf(v)])}`);
    expect(wrong).toEqual([]);
  });
});

describe('csv_text (sql/derive/csv_text.sql)', () => {
  it('defuses formulas and quotes fields as the JS writer does', async () => {
    const values = [
      '=SUM(A1)',
      '+33',
      '-x',
      '@a',
      '\tt',
      '\rr',
      'a"b',
      'a,b',
      'a\nb',
      'a\r\nb',
      '"',
      'plain',
      '',
      ' sp ',
      'Ministère',
      "l'État",
      '=a,"b"',
    ];
    expect(await written('csv_text', values, VARCHAR)).toEqual(values.map(csvField));
  });
});
