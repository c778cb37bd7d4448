/**
 * What a validating gateway (Prism's proxy, say) would make of the API: every request of a few
 * hundred, one parameter at a time and a few pairs, is checked against the served OpenAPI
 * document's parameter schemas (query strings coerced to integers and booleans as such
 * validators do) and sent to the real server over the sample drop; every answer is checked
 * against the document's schema for its status and media type. Prints the counts:
 *   npx tsx scripts/openapi-conformance.ts
 */
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import request from 'supertest';
import { pino } from 'pino';
import { createApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { loadDrop } from '../src/data/drop.js';
import { Store } from '../src/data/store.js';

type Json = Record<string, any>;
// The real app over the sample drop, as the tests build it (no test helper: scripts/ ships in the image's build).
const dataDir = path.resolve(import.meta.dirname, '..', 'data');
const store = new Store(4);
store.swap(await loadDrop(dataDir));
const t = {
  app: createApp({ config: parseConfig({ RATE_LIMIT: '0', DATA_DIR: dataDir }), store, log: pino({ level: 'silent' }) }),
  close: async () => store.close(),
};
const doc: Json = (await request(t.app).get('/budget/api/openapi.json')).body;
// int64 (OpenAPI's format of ids) names a range, not a check: ajv would warn of it on every compile.
const ajv = new Ajv2020({ strict: false, allErrors: true, formats: { int64: true } });
ajv.addSchema(doc, 'openapi.json');
const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** Whether the document accepts a query value: as the string it is, or coerced to a number or a boolean. */
function documentAccepts(schema: Json, value: string): boolean {
  const validate = ajv.compile(schema);
  const candidates: unknown[] = [value];
  if (/^-?\d+(\.\d+)?$/.test(value)) candidates.push(Number(value));
  if (value === 'true' || value === 'false') candidates.push(value === 'true');
  return candidates.some((v) => validate(v));
}

const VALUES: Record<string, string[]> = {
  year: ['2024', '2019', '1999', '2016,2018', '2016..2020', '2020..2016', '-5,2016', '1899', '2101', 'x', '02016', '2016..2100'],
  include_complementary: ['true', 'false', '1', '0', 'TRUE', 'False', 'yes', '2'],
  hierarchy: ['true', 'false', '1', '0', 'TRUE', 'False', 'yes'],
  stage: ['initial', 'amended', 'outturn', 'Initial', 'OUTTURN', 'initial,outturn', 'amended,outturn', 'amendment', 'draft', 'initial,'],
  type: ['expense', 'resource', 'dépense', 'depense', 'ressource', 'Expense', 'DÉPENSE', 'expenses'],
  measure: ['nominal', 'pct_gdp', 'per_capita', 'real', 'share', 'NOMINAL', 'gdp'],
  base_year: ['2024', '2016', '1899', 'x'],
  change: ['previous_year', 'next_year'],
  organization: ['1', '9', '0', '-1', 'x', '9223372036854775808'],
  organization_id: ['1', '9', '0', 'x'],
  parent: ['null', '1', '2', '0', 'NULL'],
  category: ['1', '2', '0', 'x'],
  search: ['education', 'ÉDUC', 'x'.repeat(201)],
  ordering: ['id', '-expenses', 'total_expenses', '-organization_id', 'bogus'],
  limit: ['1', '100', '1000', '0', '1001', 'x'],
  offset: ['0', '5', '-1', 'x'],
  format: ['json', 'csv', 'arrow', 'parquet', 'xml'],
};

const counts = {
  requests: 0,
  requestOk: 0,
  refusesGood: 0,
  allowsRefused: 0,
  pairs: 0,
  pairsRefusedByTiedRule: 0,
  responses: 0,
  responseViolations: 0,
};
const problems: string[] = [];

async function check(url: string, params: [string, string][], operation: Json, single: boolean) {
  counts.requests++;
  const accepted = params.every(([name, value]) => {
    const p = (operation.parameters as Json[]).find((q) => q.name === name);
    return p !== undefined && value !== '' && documentAccepts(p.schema, value);
  });
  const res = await request(t.app).get(url).buffer(true);
  const ok = res.status === 200;
  if (single) {
    if (accepted && !ok && res.status === 400) {
      counts.allowsRefused++;
      problems.push(`document allows, server refuses: ${url}`);
    } else if (!accepted && ok) {
      counts.refusesGood++;
      problems.push(`document refuses, server answers 200: ${url}`);
    } else counts.requestOk++;
  } else {
    counts.pairs++;
    if (accepted && res.status === 400) counts.pairsRefusedByTiedRule++;
  }
  // The answer against the document's schema for its status and media type (JSON answers).
  const mediaType = String(res.headers['content-type'] ?? '').split(';')[0]!;
  if (!mediaType.includes('json')) return;
  counts.responses++;
  const path = url.split('?')[0]!;
  const response = operation.responses[res.status];
  if (!response) {
    counts.responseViolations++;
    problems.push(`status ${res.status} not documented: ${url}`);
    return;
  }
  const base = response.$ref ? response.$ref.slice(1) : `/paths/${pointer(path)}/get/responses/${res.status}`;
  const validate = ajv.compile({ $ref: `openapi.json#${base}/${pointer('content', mediaType, 'schema')}` });
  const body = JSON.parse(res.text);
  if (!validate(body)) {
    counts.responseViolations++;
    problems.push(`answer does not match the document: ${url}: ${ajv.errorsText(validate.errors)}`);
  }
}

for (const [apiPath, item] of Object.entries<Json>(doc.paths)) {
  const operation = item.get;
  // The query's parameters: the request headers are shared components, referred to.
  const names = ((operation.parameters ?? []) as Json[]).filter((p) => p.in === 'query').map((p) => p.name as string);
  await check(apiPath, [], operation, true);
  for (const name of names) {
    for (const value of [...(VALUES[name] ?? []), '']) {
      await check(`${apiPath}?${name}=${encodeURIComponent(value)}`, [[name, value]], operation, true);
    }
  }
  // Pairs: the rules that tie two parameters (written in their descriptions).
  const pairs: [string, string][][] = [
    [
      ['measure', 'pct_gdp'],
      ['hierarchy', 'true'],
    ],
    [
      ['measure', 'pct_gdp'],
      ['hierarchy', 'false'],
    ],
    [
      ['change', 'previous_year'],
      ['year', '2024'],
    ],
    [
      ['change', 'previous_year'],
      ['year', '2019..2024'],
    ],
    [
      ['include_complementary', 'false'],
      ['stage', 'initial'],
    ],
    [
      ['include_complementary', 'false'],
      ['stage', 'outturn'],
    ],
  ];
  for (const pair of pairs) {
    if (!pair.every(([name]) => names.includes(name))) continue;
    await check(`${apiPath}?${pair.map(([n, v]) => `${n}=${encodeURIComponent(v)}`).join('&')}`, pair, operation, false);
  }
}
console.log(JSON.stringify(counts, null, 2));
for (const p of problems.slice(0, 30)) console.log(p);
await t.close();
