/**
 * Reads CSV and Arrow answers back with real parsers (csv-parse, apache-arrow's tableFromIPC), so
 * tests compare what a client would get, not what the server meant to write.
 */
import { tableFromIPC, type Table } from 'apache-arrow';
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
  const rows = table.toArray().map((row) =>
    Object.fromEntries(Object.entries(row.toJSON()).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])),
  );
  return { res, table, rows };
}

/** What CSV makes of a JSON value: null is an empty field, numbers as JSON writes them. */
export const csvCells = (row: Cells): Record<string, string> =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]));
