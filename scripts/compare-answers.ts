/**
 * The answers of a fixed set of requests, over the sample drop (data/) and a synthetic drop with
 * stages (src/tools/synth.ts), written one a line: drop, URL, status, the headers a client reads,
 * and a hash of the body. Run it before and after a change that should not change behaviour,
 * and compare the two files (`diff`, or `--compare A B` to count identical answers):
 *
 *   npx tsx scripts/compare-answers.ts out/before.txt
 *   npx tsx scripts/compare-answers.ts out/after.txt
 *   npx tsx scripts/compare-answers.ts --compare out/before.txt out/after.txt
 *
 * It runs the real app in process (no network), rate limiting off.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { loadDrop } from '../src/data/drop.js';
import { Store } from '../src/data/store.js';
import { synthDrop } from '../src/tools/synth.js';

/** Headers that vary from one run to the next (request ids, dates) are left out. */
const HEADERS = [
  'content-type',
  'content-disposition',
  'content-length',
  'cache-control',
  'etag',
  'last-modified',
  'vary',
  'link',
  'allow',
  'budget-measure',
  'budget-stage',
  'x-total-count',
  'deprecation',
  'sunset',
];

const P = '/budget/api';
const FORMATS = ['json', 'csv', 'arrow', 'parquet'];
const MEASURES = ['nominal', 'pct_gdp', 'per_capita', 'real', 'share'];
const STAGES = ['initial', 'amended', 'outturn', 'OUTTURN', 'final'];

/** The URLs asked of each drop: every endpoint with its parameters alone and in pairs, and refusals. */
function urls(year: number): string[] {
  const y = String(year);
  const out: string[] = [
    '/healthz',
    '/readyz',
    `${P}/`,
    `${P}`,
    `${P}/openapi.json`,
    `${P}/nope/`,
    `${P}/meta/?x=1`,
    `${P}/totals/?year=1800`,
    `${P}/totals/?year=2020..2010`,
    `${P}/totals/?year=2000..2100`,
    `${P}/totals/?year=a`,
    `${P}/totals/?year=2020&year=2021`,
    `${P}/totals/?year=`,
    `${P}/expenses/?limit=0`,
    `${P}/expenses/?limit=100000`,
    `${P}/expenses/?offset=-1`,
    `${P}/expenses/?category=0`,
    `${P}/expenses/?category=99999999999999999999`,
    `${P}/expenses/?organization=1&ordering=nope`,
    `${P}/debt/?parent=x`,
    `${P}/budget-categories/?type=x`,
    `${P}/budget-categories/?type=dépense&year=${y}`,
    `${P}/budget-categories/?type=RESSOURCE&year=${y}`,
    `${P}/organization/?id=99999`,
    `${P}/organization/stats/?id=99999`,
    `${P}/organization/stats/?year=${y}&change=previous_year`,
    `${P}/totals/?change=previous_year&measure=bogus`,
    `${P}/debt/?measure=share`,
    `${P}/totals/?measure=real&base_year=1901`,
  ];
  const series = ['totals', 'debt', 'outstanding-debt', 'deficit'];
  for (const e of series) {
    out.push(`${P}/${e}/`, `${P}/${e}/?year=${y}`, `${P}/${e}/?year=${year - 3}..${y}`, `${P}/${e}/?year=${year - 30}`);
    for (const m of MEASURES) out.push(`${P}/${e}/?measure=${m}`, `${P}/${e}/?measure=${m}&change=previous_year&year=${year - 2}..${y}`);
    for (const s of STAGES) out.push(`${P}/${e}/?stage=${s}`, `${P}/${e}/?stage=${s}&year=${y}&measure=share`);
    for (const f of FORMATS) out.push(`${P}/${e}/?format=${f}`, `${P}/${e}/?format=${f}&change=previous_year`);
  }
  out.push(
    `${P}/debt/?parent=null`,
    `${P}/debt/?parent=1`,
    `${P}/totals/?include_complementary=false`,
    `${P}/debt/?year=${y}&parent=null&measure=share`,
  );
  for (const type of ['expense', 'resource']) {
    const c = `${P}/budget-categories/?type=${type}`;
    out.push(c, `${c}&year=${y}`, `${c}&hierarchy=true`, `${c}&hierarchy=true&year=${y}`, `${c}&year=${year - 1}..${y}`);
    for (const m of MEASURES)
      out.push(`${c}&year=${y}&measure=${m}`, `${c}&year=${year - 2}..${y}&measure=${m}`, `${c}&year=${y}&measure=${m}&change=previous_year`);
    for (const s of STAGES) out.push(`${c}&year=${y}&stage=${s}`, `${c}&stage=${s}&hierarchy=true`);
    for (const f of FORMATS) out.push(`${c}&year=${y}&format=${f}`, `${c}&hierarchy=true&format=${f}`);
    out.push(`${c}&year=${y}&ordering=-amount`, `${c}&year=${y}&search=a`, `${c}&year=${y}&ordering=name`);
  }
  for (const e of ['expenses', 'resources']) {
    const l = `${P}/${e}/`;
    out.push(
      l,
      `${l}?year=${y}`,
      `${l}?year=${y}&limit=5`,
      `${l}?year=${y}&limit=5&offset=5`,
      `${l}?offset=1000000`,
      `${l}?category=1`,
      `${l}?category=2&year=${y}`,
    );
    out.push(
      `${l}?organization=1`,
      `${l}?organization=2&year=${y}`,
      `${l}?hierarchy=true&limit=3`,
      `${l}?limit=3&offset=1`,
      `${l}?hierarchy=false&year=${y}`,
    );
    for (const s of STAGES) out.push(`${l}?stage=${s}`, `${l}?stage=${s}&year=${y}&limit=7`);
    for (const f of FORMATS) out.push(`${l}?format=${f}`, `${l}?format=${f}&limit=4`, `${l}?format=${f}&year=${y}&stage=initial`);
    for (const m of MEASURES) out.push(`${l}?measure=${m}`);
  }
  const o = `${P}/organization/`;
  out.push(o, `${o}?year=${y}`, `${o}?search=min`, `${o}?search=a&stage=outturn`, `${o}?limit=3&offset=2`);
  for (const f of FORMATS) out.push(`${o}?format=${f}`, `${o}?year=${y}&format=${f}`);
  const s = `${P}/organization/stats/`;
  out.push(`${s}?organization_id=1`, `${s}?organization_id=2&year=${y}`, `${s}?year=${y}`, `${s}?year=${year - 2}..${y}`);
  for (const m of MEASURES)
    out.push(
      `${s}?organization_id=1&year=${y}&measure=${m}`,
      `${s}?year=${year - 1}..${y}&measure=${m}`,
      `${s}?organization_id=1&year=${y}&measure=${m}&change=previous_year`,
    );
  for (const st of STAGES) out.push(`${s}?organization_id=1&stage=${st}`);
  for (const f of FORMATS) out.push(`${s}?year=${y}&format=${f}`);
  out.push(
    `${P}/sources/`,
    `${P}/sources/?format=csv`,
    `${P}/sources/?id=1`,
    `${P}/expenses/?hierarchy=true&year=${y}`,
    `${P}/resources/?hierarchy=true`,
  );
  return out;
}

interface Served {
  name: string;
  dir: string;
  year: number;
}

async function answers(served: Served): Promise<string[]> {
  const config = parseConfig({ RATE_LIMIT: '0', DATA_DIR: served.dir });
  const log = pino({ level: 'silent' });
  const store = new Store(2, { maxConcurrent: config.MAX_CONCURRENT_QUERIES, timeoutMs: config.QUERY_TIMEOUT_MS });
  store.swap(await loadDrop(served.dir));
  const app = createApp({ config, store, log });
  const lines: string[] = [];
  for (const url of urls(served.year)) {
    for (const accept of url.includes('format=') ? [undefined] : [undefined, 'text/csv']) {
      const res = await request(app)
        .get(url)
        .set(accept ? { Accept: accept } : {})
        .buffer(true)
        .parse((r, done) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => done(null, Buffer.concat(chunks)));
        });
      const body = res.body as Buffer;
      const headers = HEADERS.filter((h) => res.headers[h] !== undefined).map((h) => `${h}=${String(res.headers[h])}`);
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
      lines.push([served.name, url, accept ?? '-', res.status, hash, headers.join(' | ')].join('\t'));
    }
  }
  store.close();
  return lines;
}

async function compare(a: string, b: string): Promise<void> {
  const [before, after] = await Promise.all([a, b].map(async (f) => (await readFile(f, 'utf8')).trim().split('\n')));
  const key = (line: string) => line.split('\t').slice(0, 3).join('\t');
  const afterByKey = new Map(after!.map((l) => [key(l), l]));
  let same = 0;
  const differ: string[] = [];
  for (const line of before!) {
    if (afterByKey.get(key(line)) === line) same++;
    else differ.push(`- ${line}\n+ ${afterByKey.get(key(line)) ?? '(missing)'}`);
  }
  console.log(`${same} of ${before!.length} answers identical (${after!.length} after)`);
  for (const d of differ) console.log(d);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--compare') return compare(args[1]!, args[2]!);
  const out = args[0] ?? 'answers.txt';
  const synth = await mkdtemp(join(tmpdir(), 'compare-answers-'));
  try {
    await synthDrop(synth, { expenseLines: 400, seed: 7, stages: true, createdAt: '2025-01-01T00:00:00Z' });
    const lines = [...(await answers({ name: 'sample', dir: 'data', year: 2024 })), ...(await answers({ name: 'synth', dir: synth, year: 2023 }))];
    await writeFile(out, `${lines.join('\n')}\n`);
    console.log(`${lines.length} answers written to ${out}`);
  } finally {
    await rm(synth, { recursive: true, force: true });
  }
}

await main();
