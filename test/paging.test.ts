/** The paged envelope and its links (docs/api.md#paging), over a drop of 25 expense lines. */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { appFor, type TestApp } from './helpers/app.js';
import { expectPagesAtEveryStage } from './helpers/pages.js';
import { getCsv } from './helpers/downloads.js';
import { DEFAULT_STAGE, LINE_STAGES, LINES_OF, STAGES } from '../src/domain/stages.js';
import { ANCHOR_EVERY } from '../src/data/line-anchors.js';

const LINES = 25;
let t: TestApp;
beforeAll(async () => {
  const expenses = Array.from({ length: LINES }, (_, i) => ({
    id: 100 + i,
    year: i % 2 ? 2023 : 2024,
    amount: i + 0.5,
    category_id: 11,
    organization_id: 1,
    complementary: false,
  }));
  t = await appFor({ ...small, expenses });
});
afterAll(() => t.close());

describe('GET /budget/api/expenses/ paging', () => {
  it('walks every line exactly once by following next links', async () => {
    const seen: number[] = [];
    let url: string | null = '/budget/api/expenses/?limit=7';
    let pages = 0;
    while (url) {
      const res = await request(t.app).get(url);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(LINES);
      seen.push(...res.body.results.map((r: { id: number }) => r.id));
      url = res.body.next;
      pages += 1;
    }
    expect(pages).toBe(4);
    expect(seen).toEqual(Array.from({ length: LINES }, (_, i) => 100 + i));
  });

  it('defaults to 100 items from offset 0', async () => {
    const res = await request(t.app).get('/budget/api/expenses/');
    expect(res.body.results).toHaveLength(LINES);
    expect(res.body.next).toBeNull();
    expect(res.body.previous).toBeNull();
  });

  it('keeps every other parameter in next and previous, as relative URLs', async () => {
    const res = await request(t.app).get('/budget/api/expenses/?year=2023&limit=5&offset=5&organization=1');
    expect(res.body.count).toBe(12);
    expect(res.body.next).toBe('/budget/api/expenses/?limit=5&offset=10&year=2023&organization=1');
    expect(res.body.previous).toBe('/budget/api/expenses/?limit=5&offset=0&year=2023&organization=1');
  });

  it('uses the canonical path with its slash even when asked without it', async () => {
    const res = await request(t.app).get('/budget/api/expenses?limit=10');
    expect(res.body.next).toBe('/budget/api/expenses/?limit=10&offset=10');
  });

  it('answers an empty page with the true count past the end, previous clamped at 0', async () => {
    const res = await request(t.app).get('/budget/api/expenses/?limit=10&offset=500');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      count: LINES,
      next: null,
      previous: '/budget/api/expenses/?limit=10&offset=490',
      results: [],
    });
    const near = await request(t.app).get('/budget/api/expenses/?limit=10&offset=3');
    expect(near.body.previous).toBe('/budget/api/expenses/?limit=10&offset=0');
  });

  it('answers an offset far past the end so, up to 2^53 - 1, and reads limit and offset with leading zeros', async () => {
    for (const offset of ['1000000000000000', '9007199254740991']) {
      const res = await request(t.app).get(`/budget/api/expenses/?limit=10&offset=${offset}`);
      expect(res.status, offset).toBe(200);
      expect(res.body).toMatchObject({ count: LINES, next: null, results: [] });
    }
    // Past it, no link could say it exactly: refused, naming the bound.
    const huge = await request(t.app).get('/budget/api/expenses/?offset=99999999999999999999999');
    expect(huge.status).toBe(400);
    expect(huge.body.detail).toBe('offset must be an integer between 0 and 9007199254740991');
    for (const url of ['/budget/api/resources/?hierarchy=true&limit=1&offset=999999999999999', '/budget/api/organization/?offset=1000000000000000']) {
      expect((await request(t.app).get(url)).body.results, url).toEqual([]);
    }
    const csv = await getCsv(t.app, '/budget/api/expenses/?format=csv&offset=1000000000000000');
    expect(csv.rows).toEqual([]);
    const padded = await request(t.app).get('/budget/api/expenses/?limit=00000000005&offset=0005');
    expect(padded.status).toBe(200);
    expect(padded.body.next).toBe('/budget/api/expenses/?limit=5&offset=10');
  });

  it('has no next link on the exact last page', async () => {
    const res = await request(t.app).get('/budget/api/expenses/?limit=5&offset=20');
    expect(res.body.results).toHaveLength(5);
    expect(res.body.next).toBeNull();
  });

  it('writes parameter values in links in their canonical spelling', async () => {
    const res = await request(t.app).get('/budget/api/resources/?limit=1&hierarchy=TRUE');
    expect(res.body.next).toBe('/budget/api/resources/?limit=1&offset=1&hierarchy=true');
  });

  describe('with format named in the query', () => {
    it('keeps it in next and previous, so that a client whose Accept asks for CSV stays on JSON', async () => {
      const res = await request(t.app).get('/budget/api/expenses/?format=json&limit=5&offset=5&year=2023').set('Accept', 'text/csv');
      expect(res.type).toBe('application/json');
      expect(res.body.next).toBe('/budget/api/expenses/?limit=5&offset=10&year=2023&format=json');
      expect(res.body.previous).toBe('/budget/api/expenses/?limit=5&offset=0&year=2023&format=json');
      const next = await request(t.app).get(res.body.next).set('Accept', 'text/csv');
      expect(next.type).toBe('application/json');
      expect(next.body.results).toHaveLength(2);
    });

    it('does not put it in the links of the same query asked without it', async () => {
      const named = await request(t.app).get('/budget/api/expenses/?limit=5&year=2024&format=json');
      const plain = await request(t.app).get('/budget/api/expenses/?limit=5&year=2024');
      expect(named.body.next).toBe('/budget/api/expenses/?limit=5&offset=5&year=2024&format=json');
      expect(plain.body.next).toBe('/budget/api/expenses/?limit=5&offset=5&year=2024');
      // Asked again, each from the response cache: still its own links.
      expect((await request(t.app).get('/budget/api/expenses/?limit=5&year=2024')).body.next).toBe(plain.body.next);
      expect((await request(t.app).get('/budget/api/expenses/?limit=5&year=2024&format=json')).body.next).toBe(named.body.next);
    });
  });
});

describe('a page downloaded as CSV, Arrow or Parquet', () => {
  const linksOf = (res: request.Response) =>
    Object.fromEntries([...String(res.headers.link ?? '').matchAll(/<([^>]+)>; rel="(\w+)"/g)].map(([, url, rel]) => [rel, url]));

  it('links to its next and previous pages in a Link header, keeping format', async () => {
    const { res, rows } = await getCsv(t.app, '/budget/api/expenses/?format=csv&limit=5&offset=5');
    expect(rows.map((row) => Number(row.id))).toEqual([105, 106, 107, 108, 109]);
    expect(linksOf(res)).toEqual({
      next: '/budget/api/expenses/?limit=5&offset=10&format=csv',
      prev: '/budget/api/expenses/?limit=5&offset=0&format=csv',
    });
  });

  it('walks every line exactly once by following the Link header', async () => {
    const seen: number[] = [];
    let url: string | undefined = '/budget/api/expenses/?limit=7&format=csv';
    while (url) {
      const { res, rows } = await getCsv(t.app, url);
      seen.push(...rows.map((row) => Number(row.id)));
      url = linksOf(res).next;
    }
    expect(seen).toEqual(Array.from({ length: LINES }, (_, i) => 100 + i));
  });

  it('leaves format out of the links when the format came from Accept', async () => {
    const { res } = await getCsv(t.app, '/budget/api/expenses/?limit=5&year=2023', { Accept: 'text/csv' });
    expect(linksOf(res)).toEqual({ next: '/budget/api/expenses/?limit=5&offset=5&year=2023' });
  });

  it('links Arrow and Parquet pages the same way', async () => {
    for (const format of ['arrow', 'parquet']) {
      const res = await request(t.app).get(`/budget/api/expenses/?format=${format}&limit=20`);
      expect(res.status).toBe(200);
      expect(linksOf(res)).toEqual({ next: `/budget/api/expenses/?limit=20&offset=20&format=${format}` });
    }
  });

  it('has no Link header when one page holds every line, nor on a whole export', async () => {
    expect((await getCsv(t.app, '/budget/api/expenses/?format=csv&limit=100')).res.headers.link).toBeUndefined();
    expect((await getCsv(t.app, '/budget/api/expenses/?format=csv')).res.headers.link).toBeUndefined();
  });
});

/**
 * Pages lie between anchors found at load (src/data/line-anchors.ts), after the lines are sorted
 * by id. Lines written in shuffled order, with gaps between ids, over three years, two
 * organizations, three categories and the three line stages, must page exactly as sorting,
 * filtering and slicing them would, at every stage. A page of every category is counted from the
 * line counts made at load, a page of one category (and its subtree) with its page.
 */
describe('pages of lines written out of id order', () => {
  const N = 240;
  // A fixed permutation of 0..N-1 (97 is coprime with 240), so ids arrive far from sorted.
  const order = Array.from({ length: N }, (_, i) => (i * 97) % N);
  const expenses = order.map((k) => ({
    id: 5 + k * 3,
    year: 2021 + (k % 3),
    amount: (k * 53) % N, // not in id order: positions numbered in another order (say by amount) page other ids
    category_id: [11, 13, 12][k % 3]!, // 13 is under 11, both under 10
    organization_id: 1 + (Math.floor(k / 5) % 2),
    stage: LINE_STAGES[Math.floor(k / 4) % 3]!,
  }));
  const resources = order.map((k) => ({
    id: 1000 - k * 2,
    year: 2021 + (Math.floor(k / 7) % 3),
    amount: (k * 53) % N,
    category_id: [31, 32][Math.floor(k / 2) % 2]!,
    organization_id: null,
    stage: LINE_STAGES[(k * 7) % 3]!,
  }));
  let shuffled: TestApp;
  beforeAll(async () => {
    shuffled = await appFor({ ...small, expenses, resources });
  });
  afterAll(() => shuffled.close());

  const expected = <L extends { id: number }>(lines: L[], keep: (line: L) => boolean, limit: number, offset: number) => {
    const matching = lines.filter(keep).sort((a, b) => a.id - b.id);
    return { count: matching.length, ids: matching.slice(offset, offset + limit).map((l) => l.id) };
  };
  const got = async (url: string) => {
    const res = await request(shuffled.app).get(url);
    expect(res.status).toBe(200);
    return { count: res.body.count, ids: res.body.results.map((r: { id: number }) => r.id) };
  };
  const PAGES = [
    [100, 0],
    [7, 0],
    [7, 35],
    [13, 70],
    [50, 200],
    [10, 235],
    [10, 240],
    [5, 1000],
  ] as const;

  it.each(PAGES)('GET /budget/api/expenses/ with limit=%i&offset=%i, under every filter', async (limit, offset) => {
    const filters: [string, (e: (typeof expenses)[number]) => boolean][] = [
      ['', () => true],
      ['&year=2022', (e) => e.year === 2022],
      ['&organization=1', (e) => e.organization_id === 1],
      ['&organization=2', (e) => e.organization_id === 2],
      ['&year=2023&organization=1', (e) => e.year === 2023 && e.organization_id === 1],
      ['&year=2021,2023', (e) => e.year === 2021 || e.year === 2023],
      ['&year=2019', () => false],
      ['&category=10', () => true],
      ['&category=11', (e) => e.category_id === 11 || e.category_id === 13],
      ['&category=12&year=2022', (e) => e.category_id === 12 && e.year === 2022],
      ['&category=20', () => false],
    ];
    await expectPagesAtEveryStage(shuffled.app, '/budget/api/expenses/', expenses, filters, limit, offset);
    // Without stage=, the default stage's lines.
    expect(await got(`/budget/api/expenses/?limit=${limit}&offset=${offset}`)).toEqual(
      expected(expenses, (e) => LINES_OF[DEFAULT_STAGE].includes(e.stage), limit, offset),
    );
  });

  it('exports every matching line in id order, as CSV', async () => {
    const csvIds = async (url: string) => (await getCsv(shuffled.app, url)).rows.map((row) => Number(row.id));
    const sortedIds = (lines: { id: number }[]) => lines.map((l) => l.id).sort((a, b) => a - b);
    const counted = (line: { stage: (typeof LINE_STAGES)[number] }) => LINES_OF[DEFAULT_STAGE].includes(line.stage);
    expect(await csvIds('/budget/api/expenses/?format=csv')).toEqual(sortedIds(expenses.filter(counted)));
    expect(await csvIds('/budget/api/expenses/?format=csv&year=2022&organization=2')).toEqual(
      sortedIds(expenses.filter((e) => counted(e) && e.year === 2022 && e.organization_id === 2)),
    );
    expect(await csvIds('/budget/api/resources/?format=csv')).toEqual(sortedIds(resources.filter(counted)));
    expect(await csvIds('/budget/api/resources/?format=csv&year=2023')).toEqual(sortedIds(resources.filter((r) => counted(r) && r.year === 2023)));
  });

  it.each(PAGES)('GET /budget/api/resources/ with limit=%i&offset=%i, with and without year', async (limit, offset) => {
    for (const stage of STAGES) {
      const counted = (r: (typeof resources)[number]) => LINES_OF[stage].includes(r.stage);
      const url = `/budget/api/resources/?limit=${limit}&offset=${offset}&stage=${stage}`;
      expect(await got(url), url).toEqual(expected(resources, counted, limit, offset));
      expect(await got(`${url}&year=2021`), `${url}&year=2021`).toEqual(expected(resources, (r) => counted(r) && r.year === 2021, limit, offset));
      expect(await got(`${url}&year=2021,2023`), `${url}&year=2021,2023`).toEqual(
        expected(resources, (r) => counted(r) && r.year !== 2022, limit, offset),
      );
      expect(await got(`${url}&category=32`), `${url}&category=32`).toEqual(
        expected(resources, (r) => counted(r) && r.category_id === 32, limit, offset),
      );
      expect(await got(`${url}&category=30`), `${url}&category=30`).toEqual(expected(resources, counted, limit, offset));
    }
  });
});

/**
 * Lines written in id order are anchored in one pass as stored, a running count per stage, year,
 * category (under each ancestor, in every year and in each) and organization carried from one
 * chunk of 2,048 rows to the next (src/data/line-anchors.ts).
 * A pass that finds a line out of order, chunks in, stops; the lines are sorted by id and
 * anchored again, and the next table's pass must still work. Every page of every filter at every
 * stage must be what sorting, filtering and slicing give.
 */
describe.each([
  ['in id order', false],
  ['in id order but for two expense lines past the first chunk', true],
])('pages of lines written %s, over several chunks', (_, twoSwapped) => {
  const N = 5000;
  const lines = Array.from({ length: N }, (_, k) => ({
    id: 7 + k * 2 + (k > 2500 ? 1_000_000 : 0),
    year: 2019 + ((k * 7) % 5),
    amount: k,
    // Categories 11 and 13 (its child), and 12: 10 is the root of all three.
    category_id: [11, 12, 13][Math.floor(k / 5) % 3]!,
    organization_id: 1 + (Math.floor(k / 3) % 2),
    stage: LINE_STAGES[(k * 5 + Math.floor(k / 11)) % 3]!,
  }));
  const expenses = twoSwapped ? [...lines.slice(0, 2100), lines[2101]!, lines[2100]!, ...lines.slice(2102)] : lines;
  const resources = lines.map((e, k) => ({ ...e, category_id: 31, organization_id: k % 4 ? null : 1 }));
  let inOrder: TestApp;
  beforeAll(async () => {
    inOrder = await appFor({ ...small, expenses, resources });
  });
  afterAll(() => inOrder.close());

  /** Every page of `url`, 1,000 lines at a time, as the ids listed and the count each page gave. */
  const allPages = async (url: string) => {
    const ids: number[] = [];
    const counts = new Set<number>();
    for (let offset = 0; ; offset += 1000) {
      const res = await request(inOrder.app).get(`${url}&limit=1000&offset=${offset}`);
      expect(res.status, url).toBe(200);
      counts.add(res.body.count);
      expect(res.body.results.length, `${url} at ${offset}`).toBe(Math.max(0, Math.min(1000, res.body.count - offset)));
      ids.push(...res.body.results.map((r: { id: number }) => r.id));
      if (res.body.results.length < 1000) return { ids, counts: [...counts] };
    }
  };
  const matching = <L extends { id: number }>(lines: L[], keep: (line: L) => boolean) => {
    const ids = lines
      .filter(keep)
      .map((l) => l.id)
      .sort((a, b) => a - b);
    return { ids, counts: [ids.length] };
  };

  it.each(STAGES)('GET /budget/api/expenses/?stage=%s pages through every line, under every filter', async (stage) => {
    const counted = (e: (typeof expenses)[number]) => LINES_OF[stage].includes(e.stage);
    const filters: [string, (e: (typeof expenses)[number]) => boolean][] = [
      ['', () => true],
      ['&year=2021', (e) => e.year === 2021],
      ['&organization=2', (e) => e.organization_id === 2],
      ['&year=2023&organization=1', (e) => e.year === 2023 && e.organization_id === 1],
      ['&category=10', () => true],
      ['&category=11', (e) => e.category_id === 11 || e.category_id === 13],
      ['&category=11&year=2022', (e) => (e.category_id === 11 || e.category_id === 13) && e.year === 2022],
      ['&category=13&year=2021', (e) => e.category_id === 13 && e.year === 2021],
      ['&category=10&year=2020,2022', (e) => e.year === 2020 || e.year === 2022],
    ];
    for (const [query, keep] of filters) {
      const url = `/budget/api/expenses/?stage=${stage}${query}`;
      expect(await allPages(url), url).toEqual(matching(expenses, (e) => counted(e) && keep(e)));
    }
  });

  // Pages that start or end on an anchor, one line before or after it, or span several.
  const K = ANCHOR_EVERY;
  const NEAR_ANCHORS = [
    [1, K - 1],
    [1, K],
    [1, K + 1],
    [5, K - 3],
    [K, K],
    [K + 1, 2 * K - 1],
    [3 * K + 2, K - 1],
    [7, 5 * K - 7],
  ] as const;
  it.each(NEAR_ANCHORS)('gives the page of limit=%i&offset=%i, near anchors, under every filter and stage', async (limit, offset) => {
    const filters: [string, (e: (typeof expenses)[number]) => boolean][] = [
      ['', () => true],
      ['&year=2021', (e) => e.year === 2021],
      ['&organization=2', (e) => e.organization_id === 2],
      ['&category=11', (e) => e.category_id === 11 || e.category_id === 13],
      ['&category=10&year=2022', (e) => e.year === 2022],
    ];
    await expectPagesAtEveryStage(inOrder.app, '/budget/api/expenses/', expenses, filters, limit, offset);
  });

  it.each(STAGES)('GET /budget/api/resources/?stage=%s pages through every line, with and without year', async (stage) => {
    const counted = (r: (typeof resources)[number]) => LINES_OF[stage].includes(r.stage);
    const url = `/budget/api/resources/?stage=${stage}`;
    expect(await allPages(url), url).toEqual(matching(resources, counted));
    expect(await allPages(`${url}&year=2020`)).toEqual(matching(resources, (r) => counted(r) && r.year === 2020));
  });
});

/**
 * A category's lines of one year are anchored under the category and each ancestor in that year,
 * in a table whose room for years grows as years are found (here, 11 years in the first chunks,
 * then 76), and an organization's below the first one seen by more than the room left under it.
 */
describe('pages of one category or organization in one year, once more years and lower ids turn up', () => {
  const lines = Array.from({ length: 8000 }, (_, k) => ({
    id: 7 + k * 2,
    year: k < 3000 ? 1990 + (k % 11) : k % 2 ? 1990 : 1950 + ((k * 37) % 76),
    amount: k,
    category_id: [11, 12, 13][Math.floor(k / 5) % 3]!,
    // 200 and 201 first, then 1 and 2, below the room left under 200.
    organization_id: [200, 201, 1, 2][k % 4]!,
    stage: LINE_STAGES[(k * 5 + Math.floor(k / 11)) % 3]!,
  }));
  const resources = lines.map((line) => ({ ...line, category_id: 31, organization_id: null }));
  let many: TestApp;
  beforeAll(async () => {
    const organizations = [
      ...small.organizations!,
      { id: 200, name: 'Office des années', code: 'YEARS' },
      { id: 201, name: 'Office des mois', code: 'MONTHS' },
    ];
    many = await appFor({ ...small, organizations, expenses: lines, resources });
  });
  afterAll(() => many.close());

  const K = ANCHOR_EVERY;
  it.each([
    [50, 0],
    [K, K + 1],
    [7, 5 * K - 7],
    [100, 1500],
  ] as const)('gives the page of limit=%i&offset=%i of a category or organization and year, at every stage', async (limit, offset) => {
    const filters: [string, (line: (typeof lines)[number]) => boolean][] = [
      ['&category=11&year=1990', (e) => (e.category_id === 11 || e.category_id === 13) && e.year === 1990],
      ['&category=10&year=1995', (e) => e.year === 1995],
      ['&category=13&year=1960', (e) => e.category_id === 13 && e.year === 1960],
      ['&category=12&year=2025', (e) => e.category_id === 12 && e.year === 2025],
      ['&category=12&year=1949', () => false],
      ['&organization=1', (e) => e.organization_id === 1],
      ['&organization=2', (e) => e.organization_id === 2],
      ['&organization=201', (e) => e.organization_id === 201],
      ['&organization=201&year=1990', (e) => e.organization_id === 201 && e.year === 1990],
      ['&organization=2&year=1960', (e) => e.organization_id === 2 && e.year === 1960],
      // Several years: counted per year, found from the category's or organization's first line.
      ['&category=11&year=1990,1995,2020', (e) => (e.category_id === 11 || e.category_id === 13) && [1990, 1995, 2020].includes(e.year)],
      ['&organization=201&year=1960..1990', (e) => e.organization_id === 201 && e.year >= 1960 && e.year <= 1990],
      ['&organization=2&year=1949,2026', () => false],
      ['&organization=2&category=11', (e) => e.organization_id === 2 && (e.category_id === 11 || e.category_id === 13)],
      ['&organization=2&category=13&year=1990,1991', (e) => e.organization_id === 2 && e.category_id === 13 && [1990, 1991].includes(e.year)],
      ['&year=1951', (e) => e.year === 1951],
    ];
    await expectPagesAtEveryStage(many.app, '/budget/api/expenses/', lines, filters, limit, offset);
    await expectPagesAtEveryStage(many.app, '/budget/api/resources/', resources, [['&category=31&year=1990', (r) => r.year === 1990]], limit, offset);
  });
});

/**
 * Organization ids past 2^53 that JavaScript numbers cannot tell apart (9007199254740995 and
 * 9007199254740997 both read as 9007199254740996): each organization's lines are counted and
 * paged apart.
 */
describe('pages of organizations whose ids are past 2^53', () => {
  const FAR = 9007199254740995n;
  const FARTHER = 9007199254740997n;
  let big: TestApp;
  beforeAll(async () => {
    const expenses = Array.from({ length: 3 * ANCHOR_EVERY }, (_, k) => ({
      id: 10 + k,
      year: 2024,
      amount: 1,
      category_id: 11,
      organization_id: k % 3 ? FAR : FARTHER,
      complementary: false,
    }));
    big = await appFor({
      ...small,
      organizations: [
        ...small.organizations!,
        { id: FAR, name: 'Office lointain', code: 'FAR' },
        { id: FARTHER, name: 'Office plus lointain', code: 'FARTHER' },
      ],
      expenses,
    });
  });
  afterAll(() => big.close());

  it.each([
    [FAR, (k: number) => k % 3 !== 0],
    [FARTHER, (k: number) => k % 3 === 0],
    // Every line counts at the default stage: the anchors of all lines fall every ANCHOR_EVERY-th row.
    ['', () => true],
  ])("GET /budget/api/expenses/?organization=%s gives that organization's lines only (none: every line)", async (organization, has) => {
    const ids = Array.from({ length: 3 * ANCHOR_EVERY }, (_, k) => k)
      .filter(has)
      .map((k) => 10 + k);
    for (const offset of [0, ANCHOR_EVERY - 1, ANCHOR_EVERY + 5]) {
      const url = `/budget/api/expenses/?organization=${organization}&limit=20&offset=${offset}`.replace('organization=&', '');
      const res = await request(big.app).get(url);
      expect(res.status, url).toBe(200);
      expect(res.body.count, url).toBe(ids.length);
      expect(
        res.body.results.map((r: { id: number }) => r.id),
        url,
      ).toEqual(ids.slice(offset, offset + 20));
    }
  });
});
