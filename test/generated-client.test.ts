/**
 * A client generated from the served OpenAPI document (openapi-typescript + openapi-fetch), as an
 * integrator would make one (docs/api.md#query-parameters): it must compile with no cast, typed
 * parameters in, typed rows out, and its calls must be answered 200 by the real server.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staged } from './fixtures/staged.js';
import { appFor, listen, type TestApp } from './helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await appFor(staged);
});
afterAll(() => t.close());

/** The client an integrator would write: every answer read through its generated type, no `as`. */
const CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export async function use(baseUrl: string): Promise<string[]> {
  // The answers this client reads: JSON (the data endpoints also offer CSV, Arrow and Parquet).
  // A row's fields are typed optional, since fields= may leave any out: a list is read with its default.
  const api = createClient<paths, 'application/json'>({ baseUrl });
  const out: string[] = [];
  const totals = await api.GET('/budget/api/totals/', { params: { query: { year: 2024, stage: 'initial,outturn', include_complementary: undefined } } });
  if (totals.data) for (const row of totals.data) out.push(\`\${row.year} \${row.stage} \${row.balance ?? 'null'} [\${(row.source_ids ?? []).join(';')}] \${row.derived}\`);
  const deficit = await api.GET('/budget/api/deficit/', { params: { query: { year: '2023..2025' } } });
  if (deficit.data) for (const row of deficit.data) out.push(\`\${row.year} \${row.stage ?? 'none'} \${row.value ?? 'null'} \${row.percent} \${row.published_percent ?? 'null'}\`);
  const lines = await api.GET('/budget/api/expenses/', { params: { query: { hierarchy: false, limit: 2 } } });
  if (lines.data) out.push(\`count \${lines.data.count}\`);
  const fields = await api.GET('/budget/api/fields/');
  const balance = fields.data?.find((f) => f.endpoint === 'totals' && f.field === 'balance');
  if (balance) out.push(balance.definition.en.slice(0, 40));
  const meta = await api.GET('/budget/api/meta/');
  if (meta.data) out.push(String(meta.data.known_gaps.length));
  return out;
}
`;

describe('a client generated from the served document', () => {
  it('compiles with no cast and its typed calls are answered', async () => {
    const doc = (await request(t.app).get('/budget/api/openapi.json')).body;
    const dir = mkdtempSync(path.join(import.meta.dirname, 'client', 'gen-'));
    writeFileSync(path.join(dir, 'api.d.ts'), astToString(await openapiTS(doc)));
    writeFileSync(path.join(dir, 'client.ts'), CLIENT);
    expect(CLIENT).not.toMatch(/\bas\b|<any>|@ts-/);
    const tsc = path.join(import.meta.dirname, '..', 'node_modules', '.bin', 'tsc');
    const options = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck'];
    const compiled = await promisify(execFile)(tsc, [...options, path.join(dir, 'client.ts')]).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    expect(compiled).toBe('');

    const server = await listen(t.app);
    try {
      const { use } = (await import(path.join(dir, 'client.ts'))) as { use(base: string): Promise<string[]> };
      expect(await use(server.base)).toEqual([
        '2024 initial 0 [1] false',
        '2024 outturn 4.75 [3] true',
        '2023 outturn 33 3 null',
        '2024 amended 45 3.75 null',
        '2025 initial 50 3.85 null',
        'count 4',
        'total_resources − total_expenses. Resour',
        '0',
      ]);
    } finally {
      await server.stop();
      // Not left behind for ESLint, which would lint the generated client on the next `npm run lint`.
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
