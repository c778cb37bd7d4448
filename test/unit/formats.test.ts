/** The registry's download encoders, fed chunks of rows as the pipeline feeds them. */
import { tableFromIPC } from 'apache-arrow';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { FORMATS, FORMAT_NAMES } from '../../src/formats/registry.js';
import { float64, int64, utf8, type FlatRow } from '../../src/formats/table.js';
import { readParquet } from '../helpers/downloads.js';

const COLUMNS = [int64('id'), utf8('name'), float64('amount', { nullable: true })];
const encode = (format: 'csv' | 'arrow' | 'parquet', chunks: FlatRow[][]) => buffer(Readable.from(chunks).pipe(FORMATS[format].encoder(COLUMNS)));

describe('the format registry', () => {
  it('lists json, csv, arrow and parquet, JSON first', () => {
    expect(FORMAT_NAMES).toEqual(['json', 'csv', 'arrow', 'parquet']);
    expect(FORMAT_NAMES.map((name) => [FORMATS[name].mediaType, FORMATS[name].extension])).toEqual([
      ['application/json', 'json'],
      ['text/csv', 'csv'],
      ['application/vnd.apache.arrow.stream', 'arrow'],
      ['application/vnd.apache.parquet', 'parquet'],
    ]);
  });
});

describe('the encoders', () => {
  const chunks = [[{ id: 1, name: 'Réserve, "nord"', amount: 0.3 }], [], [{ id: 9007199254740993n, name: 'b', amount: null }]];
  it('CSV: one header, then every chunk, quoted where needed, null as an empty field', async () => {
    expect((await encode('csv', chunks)).toString('utf8')).toBe('id,name,amount\r\n1,"Réserve, ""nord""",0.3\r\n9007199254740993,b,\r\n');
  });
  it('CSV: just the header when no row comes', async () => {
    expect((await encode('csv', [])).toString('utf8')).toBe('id,name,amount\r\n');
  });
  it('Arrow: one record batch per non-empty chunk, ids as Int64', async () => {
    const table = tableFromIPC(await encode('arrow', chunks));
    expect(table.batches).toHaveLength(2);
    expect(table.toArray().map((row) => row.toJSON())).toEqual([
      { id: 1n, name: 'Réserve, "nord"', amount: 0.3 },
      { id: 9007199254740993n, name: 'b', amount: null },
    ]);
  });
  it('Parquet: one file DuckDB reads back, with the column types and nullability', async () => {
    const { columns, rows } = await readParquet(await encode('parquet', chunks));
    expect(columns).toEqual([
      { name: 'id', type: 'BIGINT', nullable: false },
      { name: 'name', type: 'VARCHAR', nullable: false },
      { name: 'amount', type: 'DOUBLE', nullable: true },
    ]);
    expect(rows).toEqual([
      { id: 1n, name: 'Réserve, "nord"', amount: 0.3 },
      { id: 9007199254740993n, name: 'b', amount: null },
    ]);
  });
  it('Parquet: a valid file without rows when no row comes', async () => {
    const { columns, rows } = await readParquet(await encode('parquet', []));
    expect(columns.map((c) => c.name)).toEqual(['id', 'name', 'amount']);
    expect(rows).toEqual([]);
  });
});
