/**
 * DuckDB once a drop is loaded (src/data/lockdown.ts; security review, finding 4): a pooled
 * connection, whatever SQL it were given, reads and writes no file and no URL, installs and loads
 * no extension, and cannot unlock any of it; DuckDB's memory limit follows the container's.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckdbMemoryLimit } from '../src/data/lockdown.js';
import { small } from './fixtures/small.js';
import { appFor, type TestApp } from './helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await appFor(small);
});
afterAll(() => t.close());

/** Runs `sql` on a connection of the served drop's pool, as a request's query runs. */
async function onPool(sql: string): Promise<unknown[]> {
  const lease = t.store.lease()!;
  try {
    const chunks = [];
    for await (const chunk of lease.chunks(sql, {})) chunks.push(chunk);
    return chunks;
  } finally {
    lease.release();
  }
}

describe('a pooled connection of a loaded drop', () => {
  it('still answers queries on the drop', async () => {
    expect(await onPool('SELECT count(*) FROM expenses')).toHaveLength(1);
  });
  it("cannot read a file: read_text('/etc/hostname') is refused", async () => {
    await expect(onPool("SELECT * FROM read_text('/etc/hostname')")).rejects.toThrow(/Permission Error/);
  });
  it('cannot write a file with COPY ... TO', async () => {
    const target = path.join(mkdtempSync(path.join(tmpdir(), 'budget-lock-')), 'out.csv');
    await expect(onPool(`COPY (SELECT 1 AS x) TO '${target}'`)).rejects.toThrow(/Permission Error/);
    expect(existsSync(target)).toBe(false);
  });
  it('cannot reach a URL, nor install or load an extension', async () => {
    await expect(onPool("SELECT * FROM read_csv('https://example.com/x.csv')")).rejects.toThrow(/Permission Error/);
    await expect(onPool('INSTALL httpfs')).rejects.toThrow(/Permission Error/);
    await expect(onPool('LOAD httpfs')).rejects.toThrow(/disabled/);
  });
  it('cannot change the configuration back', async () => {
    await expect(onPool('SET enable_external_access = true')).rejects.toThrow(/locked/);
    await expect(onPool("SET allowed_directories = ['/']")).rejects.toThrow(/locked/);
    await expect(onPool("SET memory_limit = '100GB'")).rejects.toThrow(/locked/);
  });
});

describe("DuckDB's memory limit", () => {
  const file = (text: string) => {
    const name = path.join(mkdtempSync(path.join(tmpdir(), 'budget-cgroup-')), 'memory.max');
    writeFileSync(name, `${text}\n`);
    return name;
  };
  it("is half the container's memory limit when that is under 3 GB", () => {
    expect(duckdbMemoryLimit([file(String(512 * 2 ** 20))])).toBe('256MB');
  });
  it('is 1.5 GB without a container limit, or with a larger one', () => {
    expect(duckdbMemoryLimit([file('max')])).toBe('1536MB');
    expect(duckdbMemoryLimit([file('9223372036854771712')])).toBe('1536MB');
    expect(duckdbMemoryLimit([file(String(8 * 2 ** 30))])).toBe('1536MB');
    expect(duckdbMemoryLimit(['/nonexistent/memory.max'])).toBe('1536MB');
  });
});
