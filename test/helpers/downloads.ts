/**
 * Reads CSV, Arrow and Parquet answers back with real readers (csv-parse, apache-arrow's
 * tableFromIPC, DuckDB's read_parquet), so tests compare what a client would get, not what the
 * server meant to write.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, DuckDBListValue } from '@duckdb/node-api';
import { tableFromIPC, Vector, type Table } from 'apache-arrow';
import { parse } from 'csv-parse/sync';
import type { Express } from 'express';
import request from 'supertest';
import { expect } from 'vitest';

export type Cells = Record<string, unknown>;

/** Collects the body as bytes, whatever the content type. */
export const bytes = (res: request.Response, done: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

export interface CsvAnswer {
  res: request.Response;
  text: string;
  header: string[];
  /** One object per record, every value a string, as CSV has it. */
  rows: Record<string, string>[];
}

export async function getCsv(app: Express, url: string, headers: Record<string, string> = {}): Promise<CsvAnswer> {
  const res = await request(app).get(url).set(headers).buffer(true).parse(bytes);
  expect(res.status, `${url}: ${res.body}`).toBe(200);
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
  const text = (res.body as Buffer).toString('utf8');
  const records: string[][] = parse(text);
  const [header = [], ...data] = records;
  return { res, text, header, rows: data.map((r) => Object.fromEntries(header.map((name, i) => [name, r[i]!]))) };
}

export interface ArrowAnswer {
  res: request.Response;
  table: Table;
  /** One object per row; Int64 values (bigints) turned into numbers to compare with JSON. */
  rows: Cells[];
}

export async function getArrow(app: Express, url: string, headers: Record<string, string> = {}): Promise<ArrowAnswer> {
  const res = await request(app).get(url).set(headers).buffer(true).parse(bytes);
  expect(res.status, `${url}: ${res.body}`).toBe(200);
  expect(res.headers['content-type']).toBe('application/vnd.apache.arrow.stream');
  const table = tableFromIPC(res.body as Buffer);
  const rows = table.toArray().map((row) => Object.fromEntries(Object.entries(row.toJSON()).map(([k, v]) => [k, arrowCell(v)])));
  return { res, table, rows };
}

/** An Arrow cell as JSON has it: bigints as numbers, a list (a Vector) as an array. */
const arrowCell = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : v instanceof Vector ? [...(v as Vector)].map(arrowCell) : v);

/** What CSV makes of a JSON value: null is an empty field, numbers as JSON writes them. */
export const csvCells = (row: Cells): Record<string, string> =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]));

export interface ParquetAnswer {
  res: request.Response;
  /** Each column's DuckDB type and whether the file lets it hold nulls, in file order. */
  columns: { name: string; type: string; nullable: boolean }[];
  /** The rows as DuckDB reads them back; BIGINTs as bigints. */
  rows: Cells[];
  /** How many row groups the file has. */
  rowGroups: number;
  /** The [min, max] the footer gives each column of each row group, as DuckDB prints them; null for none. */
  ranges: Record<string, [string | null, string | null]>[];
}

/** Reads a Parquet answer back with DuckDB (read_parquet on the bytes written to a temp file), as an analyst would. */
export async function getParquet(app: Express, url: string, headers: Record<string, string> = {}): Promise<ParquetAnswer> {
  const res = await request(app).get(url).set(headers).buffer(true).parse(bytes);
  expect(res.status, `${url}: ${res.body}`).toBe(200);
  expect(res.headers['content-type']).toBe('application/vnd.apache.parquet');
  return { res, ...(await readParquet(res.body as Buffer)) };
}

export async function readParquet(body: Buffer): Promise<Omit<ParquetAnswer, 'res'>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'budget-parquet-'));
  const file = path.join(dir, 'answer.parquet');
  writeFileSync(file, body);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const read = async (sql: string) => (await connection.runAndReadAll(sql, [file])).getRowObjects();
    const described = await read('DESCRIBE SELECT * FROM read_parquet($1)');
    const schema = await read("SELECT name, repetition_type FROM parquet_schema($1) WHERE name <> 'root'");
    const repetition = new Map(schema.map((r) => [r.name, r.repetition_type]));
    const columns = described.map((c) => ({
      name: String(c.column_name),
      type: String(c.column_type),
      nullable: repetition.get(c.column_name) === 'OPTIONAL',
    }));
    // A LIST column (a roll-up's source_ids) as an array of its items.
    const rows = (await read('SELECT * FROM read_parquet($1)')).map((row) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof DuckDBListValue ? v.items : v])),
    );
    const groups = await read('SELECT count(DISTINCT row_group_id) AS n FROM parquet_metadata($1)');
    const stats = await read('SELECT row_group_id, path_in_schema, stats_min_value, stats_max_value FROM parquet_metadata($1) ORDER BY ALL');
    const ranges: ParquetAnswer['ranges'] = [];
    for (const s of stats) {
      const range = (ranges[Number(s.row_group_id)] ??= {});
      range[String(s.path_in_schema)] = [s.stats_min_value as string | null, s.stats_max_value as string | null];
    }
    return { columns, rows, rowGroups: Number(groups[0]!.n), ranges };
  } finally {
    connection.closeSync();
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}
