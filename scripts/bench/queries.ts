/**
 * How the cost of answering grows with data: loads a drop as the server does (load + validate),
 * then times each endpoint's answer, uncached, straight from the drop (no HTTP).
 */
import { loadDrop } from '../../src/data/drop.js';
import { Store } from '../../src/data/store.js';
import { ENDPOINTS } from '../../src/api/endpoints/index.js';

// The stage= samples page deep into one stage's lines (in a drop from synth --stages, about 65% of
// the lines are initial, 25% outturn, 10% amendments); in a drop without stages they are cheap
// (outturn has no lines) or the same as the default.
export const QUERY_SAMPLES: Record<string, string[]> = {
  '/budget/api/totals/': [
    '',
    'include_complementary=false',
    'stage=outturn',
    'measure=pct_gdp&change=previous_year',
    'measure=real&stage=initial,outturn',
  ],
  '/budget/api/budget-categories/': ['', 'year=2010&type=expense', 'year=2010&stage=initial', 'year=2010&measure=share'],
  '/budget/api/expenses/': [
    '',
    'offset=900000',
    'year=2010&limit=100&offset=30000',
    'organization=7&offset=3000',
    'hierarchy=true',
    'hierarchy=true&year=2010&organization=3',
    'stage=initial&offset=600000',
    'stage=outturn&offset=200000',
    'stage=outturn&year=2010&offset=9000',
    'stage=outturn&organization=7&offset=800',
    'hierarchy=true&stage=outturn',
    'hierarchy=true&year=2010&organization=3&stage=initial',
    // A root category's subtree (111,258 of 1M lines), a small one's (1,904), one of some years.
    'category=1&offset=100000',
    'category=5&offset=1500',
    'stage=outturn&category=40&offset=2000',
    'category=40&year=2010',
    // One organization's lines of one year, of some years, and one category's of some years.
    'organization=7&year=2010',
    'organization=7&year=2008..2012&offset=200',
    'category=5&year=2008..2012',
    // Small pages (limit 50 or less), as the docs' examples and widgets ask for them.
    'year=2013&limit=5',
    'limit=10&offset=5000',
    'organization=7&limit=20&offset=100',
    'category=5&limit=50&offset=500',
  ],
  '/budget/api/resources/': [
    'year=2011',
    'offset=900000',
    'hierarchy=true',
    'stage=outturn&offset=200000',
    'stage=initial&year=2011&offset=20000',
    'category=856&offset=100000',
    'category=790',
    'year=2011&limit=5&offset=100',
  ],
  '/budget/api/organization/': ['', 'year=2012&offset=100', 'stage=outturn&offset=100', 'limit=10&offset=20'],
  '/budget/api/organization/stats/': ['', 'year=2013', 'year=2013&stage=initial', 'year=2013&measure=per_capita&change=previous_year'],
  '/budget/api/debt/': ['', 'parent=null', 'stage=initial'],
  '/budget/api/outstanding-debt/': ['year=last', 'year=last&stage=outturn'],
  '/budget/api/deficit/': ['', 'stage=amended'],
  '/budget/api/sources/': [''],
};

/**
 * What a query is, for the target on uncached answers (docs/performance.md): a `page` of a paged
 * list endpoint (expenses, resources, organization; 100 lines when no limit is given), a `roll-up`
 * (totals, categories, organization stats, debt, outstanding debt, deficit, and the list of
 * sources), or a `tree` (hierarchy=true): each kind has the same target.
 */
export type QueryKind = 'page' | 'roll-up' | 'tree';

export interface QueryFigures {
  rows: number;
  loadMs: number;
  rssMb: number;
  perQuery: { url: string; kind: QueryKind; p50: number; p99: number; errors: number }[];
  /** The machine's own pauses, to read the p99s by: the same number of runs of pure JS arithmetic, about 2 ms each (machinePauses). */
  pureJs: { p50: number; p99: number };
}

const percentiles = (times: number[]) => {
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)]!, p99: times[Math.min(times.length - 1, Math.ceil(times.length * 0.99) - 1)]! };
};

/**
 * `repeat` runs of about 2 ms of arithmetic that allocates nothing and waits for nothing, in the
 * same process just after the queries: what lifts its p99 above its p50 is the machine (other
 * processes, the hypervisor), not the service. On this 2-core VM, 3,000 runs of 2 ms had a p99 of
 * 2.7 and 3.9 ms and a slowest run of 17.5 and 19.5 ms (docs/performance.md#what-is-still-slow).
 */
function machinePauses(repeat: number): { p50: number; p99: number } {
  const work = (n: number) => {
    let x = 0;
    for (let i = 0; i < n; i++) x += Math.sqrt(i);
    return x;
  };
  for (let i = 0; i < 50; i++) work(1e6);
  const started = performance.now();
  work(1e6);
  const perMs = 1e6 / (performance.now() - started);
  const times: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    work(2 * perMs);
    times.push(performance.now() - t0);
  }
  return percentiles(times);
}

async function measureQueries(dir: string, repeat = 200): Promise<QueryFigures> {
  const started = performance.now();
  const store = new Store();
  store.swap(await loadDrop(dir));
  const loadMs = performance.now() - started;
  const rows = store.served!.manifest.files['expenses.parquet']!.rows;
  const rssMb = process.memoryUsage().rss / 2 ** 20;
  const perQuery = [];
  for (const endpoint of ENDPOINTS) {
    for (const query of QUERY_SAMPLES[endpoint.path] ?? ['']) {
      const url = `${endpoint.path}${query ? `?${query}` : ''}`;
      const bound = endpoint.bind(url);
      const kind: QueryKind = /(^|&)hierarchy=true/.test(query) ? 'tree' : endpoint.paged ? 'page' : 'roll-up';
      const times: number[] = [];
      let errors = 0;
      for (let i = 0; i < repeat; i++) {
        const lease = store.lease()!;
        const t0 = performance.now();
        try {
          await bound.answer(lease);
        } catch {
          errors++;
        } finally {
          // A failed answer counts at its time too: an error is no faster answer.
          times.push(performance.now() - t0);
          lease.release();
        }
      }
      perQuery.push({ url, kind, ...percentiles(times), errors });
    }
  }
  store.close();
  return { rows, loadMs, rssMb, perQuery, pureJs: machinePauses(repeat) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await measureQueries(process.argv[2] ?? 'data');
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(figures));
    process.exit(0);
  }
  console.log(`load+validate ${figures.loadMs.toFixed(0)} ms, RSS ${figures.rssMb.toFixed(0)} MB`);
  console.log(`${figures.pureJs.p50.toFixed(2).padStart(8)} ${figures.pureJs.p99.toFixed(2).padStart(8)} ms  the machine: pure JS of about 2 ms`);
  for (const q of figures.perQuery)
    console.log(
      `${q.p50.toFixed(2).padStart(8)} ${q.p99.toFixed(2).padStart(8)} ms  ${q.kind.padEnd(7)} ${q.url}${q.errors ? `  ${q.errors} errors` : ''}`,
    );
}
