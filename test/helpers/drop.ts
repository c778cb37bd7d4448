/**
 * Builds small, real data drops for tests: Parquet files written by DuckDB from JS rows, and a
 * drop.json with true checksums and row counts. A test states its data and its expected answers
 * side by side; a test of a broken drop replaces a table's SQL or tampers with the manifest.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Manifest } from '../../src/data/manifest.js';
import { TABLES, fileName, type ColumnSpec, type TableSpec } from '../../src/data/schema.js';

export type TableRows = Record<string, unknown>[];
/** Rows in the recommended types, or a SELECT statement that produces the table as it should be written. */
export type TableSource = TableRows | { sql: string };
export type DropData = Partial<Record<(typeof TABLES)[number]['name'], TableSource>>;
/** A drop given as rows only, whose tables a test can map over. */
export type DropRows = Partial<Record<(typeof TABLES)[number]['name'], TableRows>>;

export interface DropOptions {
  dir?: string;
  version?: string;
  /** Change the manifest before it is written (to test checksum, row count, missing entries, units...). */
  manifest?: (manifest: Manifest) => void;
}

/** The types a careful analyst would write: DECIMAL(18,3) money, as docs/data-drops.md#types recommends. */
const fileType = (sqlType: string) => (sqlType.startsWith('DECIMAL') ? 'DECIMAL(18,3)' : sqlType);

/**
 * Writes each table of `data` (a missing required table is written empty; a missing optional one,
 * such as sources, is left out of the drop). Rows given as objects write the required columns and
 * the optional ones (stage, source_id, derived, complementary) that any row names.
 */
export async function writeDrop(data: DropData, options: DropOptions = {}): Promise<string> {
  const dir = options.dir ?? mkdtempSync(path.join(tmpdir(), 'budget-drop-'));
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const files: Manifest['files'] = {};
    for (const table of TABLES) {
      const given = data[table.name as keyof DropData];
      if (given === undefined && table.optional) continue;
      const source = given ?? [];
      const target = path.join(dir, fileName(table));
      if (Array.isArray(source)) {
        const written = writtenColumns(table, source);
        const columns = written.map((c) => `"${c.name}" ${fileType(c.sqlType)}`).join(', ');
        await connection.run(`CREATE OR REPLACE TABLE t (${columns})`);
        for (const row of source) {
          const values = written.map((c) => row[c.name] ?? null);
          const placeholders = values.map((_, i) => `$${i + 1}`).join(', ');
          await connection.run(`INSERT INTO t VALUES (${placeholders})`, values as never);
        }
        await connection.run(`COPY t TO '${target}' (FORMAT parquet)`);
      } else {
        await connection.run(`COPY (${source.sql}) TO '${target}' (FORMAT parquet)`);
      }
      const rows = Number((await connection.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${target}')`)).getRowObjects()[0]!.n);
      files[fileName(table)] = { sha256: sha256(target), rows };
    }
    const manifest: Manifest = {
      version: options.version ?? 'test',
      created_at: '2026-01-01T00:00:00Z',
      description: 'a drop built by a test',
      files,
    };
    options.manifest?.(manifest);
    writeFileSync(path.join(dir, 'drop.json'), JSON.stringify(manifest, null, 2));
    return dir;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The required columns, and the optional ones that some row names; complementary when no row names a stage either. */
export function writtenColumns(table: TableSpec, rows: TableRows): ColumnSpec[] {
  const named = (name: string) => rows.some((row) => name in row);
  const fallback = table.oneOf && !table.oneOf.some(named) ? table.oneOf[1] : undefined;
  return table.columns.filter((c) => c.absent === undefined || named(c.name) || c.name === fallback);
}

export function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}
