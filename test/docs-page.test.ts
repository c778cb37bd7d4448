/**
 * The docs page (GET /budget/api/docs/) in a real headless browser: Debian's chromium driven by
 * playwright-core, against the real app listening on loopback over the small test drop. A person
 * opening the page must see every data endpoint and be able to run a request from it.
 *
 * .ci/run installs chromium where it can; where no browser can be had, the browser tests skip and
 * say so. Set DOCS_SCREENSHOT=/some/file.png to keep a screenshot of the page after the request.
 */
import { existsSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../src/api/endpoints/index.js';
import { small } from './fixtures/small.js';
import { appFor, type TestApp } from './helpers/app.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasBrowser = existsSync(CHROMIUM);
if (!hasBrowser) {
  console.warn(`SKIPPED: the docs page browser tests need chromium at ${CHROMIUM} (apt-get install chromium; .ci/run does it where it can)`);
}

let t: TestApp;
beforeAll(async () => {
  // The data's licence and units, which the page shows apart from the software's licence.
  t = await appFor(
    small,
    {},
    { manifest: (m) => Object.assign(m, { license: 'CC-BY-4.0', units: { name: 'MDT', currency: 'TND', scale: 1_000_000 } }) },
  );
});
afterAll(() => t.close());

describe('the docs page over HTTP', () => {
  it('is an HTML page at /budget/api/docs/ and /budget/api/docs, loading Swagger UI from this server only', async () => {
    for (const url of ['/budget/api/docs/', '/budget/api/docs']) {
      const res = await request(t.app).get(url);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      const sources = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(sources.length).toBeGreaterThan(0);
      for (const source of sources) expect(source, 'no CDN: every asset is a path on this server').toMatch(/^\/budget\/api\//);
    }
  });
  it.each([
    ['swagger-ui-bundle.js', /^(text|application)\/javascript; charset=utf-8$/],
    ['init.js', /^text\/javascript; charset=utf-8$/],
    ['swagger-ui.css', /^text\/css; charset=utf-8$/],
    ['favicon-32x32.png', /^image\/png$/],
  ])('serves %s with its true Content-Type, as nosniff requires', async (file, type) => {
    const res = await request(t.app).get(`/budget/api/docs/${file}`).buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(type);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    expect(res.headers.etag).toMatch(/^"[\w-]+"$/);
    const again = await request(t.app).get(`/budget/api/docs/${file}`).set('If-None-Match', res.headers.etag!);
    expect(again.status).toBe(304);
  });
  it.each([
    ['If-Match', '"not-its-tag"'],
    ['If-Unmodified-Since', 'Mon, 01 Jan 1990 00:00:00 GMT'],
  ])('ignores %s, as every other answer of the service does, rather than a 404 for a file that exists', async (header, value) => {
    const res = await request(t.app).get('/budget/api/docs/swagger-ui.css').set(header, value);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/css/);
  });
  it('answers a Range of a file to GET only, and ignores one that is not valid', async () => {
    const url = '/budget/api/docs/swagger-ui.css';
    expect((await request(t.app).get(url).set('Range', 'bytes=0-9')).status).toBe(206);
    expect((await request(t.app).head(url).set('Range', 'bytes=0-9')).status).toBe(200);
    expect((await request(t.app).get(url).set('Range', 'bytes=5-2')).status).toBe(200);
  });
  it('points Swagger UI at the OpenAPI document', async () => {
    expect((await request(t.app).get('/budget/api/docs/init.js')).text).toContain('url: "/budget/api/openapi.json"');
  });
  it.each(['index.html', 'swagger-initializer.js', 'package.json', '..%2Fpackage.json'])(
    'serves nothing else from swagger-ui-dist (%s is a 404 problem)',
    async (file) => {
      const res = await request(t.app).get(`/budget/api/docs/${file}`);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe('application/problem+json');
    },
  );
});

describe.skipIf(!hasBrowser)('the docs page in a real browser', () => {
  let server: Server;
  let base: string;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const origins = new Set<string>();

  beforeAll(async () => {
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // playwright gives each launch a fresh temporary profile of its own.
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()}`));
    page.on('request', (req) => origins.add(new URL(req.url()).origin));
    await page.goto(`${base}/budget/api/docs/`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it("shows the data's licence and units apart from the software's licence", async () => {
    await page.locator('#data-license', { hasText: 'CC-BY-4.0' }).waitFor();
    expect(await page.locator('#data-units').textContent()).toBe('MDT (one unit is 1,000,000 TND)');
    expect(await page.locator('#data-terms').textContent()).toContain("The licence shown below is the software's, not the data's.");
  });

  it('renders the title and lists every data endpoint', async () => {
    expect(await page.locator('.info .title').first().textContent()).toContain('Public Budget Data Service');
    const paths = await page.locator('.opblock-tag-section').first().locator('.opblock-summary-path').allTextContents();
    expect(paths.map((p) => p.replace(/\u200b/g, ''))).toEqual(ENDPOINTS.map((e) => e.path));
  });

  it('runs a request with "Try it out" and "Execute" and shows the data it got', async () => {
    const operation = page.locator('#operations-data-getTotals');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.locator('tr[data-param-name="year"] input').fill('2023');
    await operation.getByRole('button', { name: 'Execute' }).click();
    const live = operation.locator('.live-responses-table');
    await live.locator('.response-col_status', { hasText: /^200$/ }).waitFor({ timeout: 30_000 });
    const body = await live.locator('.response-col_description .microlight').first().textContent();
    // Try it out starts from every parameter's example, change=previous_year included: 2023 has no
    // year before it in this drop, so its changes are null.
    const none = { total_expenses: null, total_resources: null, balance: null };
    expect(JSON.parse(body!)).toEqual([
      {
        year: 2023,
        total_expenses: 350.35,
        total_resources: 1600.499,
        balance: 1250.149,
        stage: 'amended',
        source_ids: [],
        derived: false,
        change: none,
        change_pct: none,
      },
    ]);
    await operation.locator('.live-responses-table').scrollIntoViewIfNeeded();
    if (process.env.DOCS_SCREENSHOT) await page.screenshot({ path: process.env.DOCS_SCREENSHOT });
  }, 60_000);

  it('lets a page of another origin read JSON, CSV and the exposed headers with fetch (CORS)', async () => {
    const other = http.createServer((_req, res) => res.setHeader('Content-Type', 'text/html').end('<!DOCTYPE html><title>elsewhere</title>'));
    other.listen(0, '127.0.0.1');
    await new Promise((resolve) => other.once('listening', resolve));
    const elsewhere = await browser.newPage();
    try {
      await elsewhere.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      const seen = await elsewhere.evaluate(async (api) => {
        const json = await fetch(`${api}/totals/?year=2024`);
        const csv = await fetch(`${api}/deficit/?format=csv`);
        return {
          origin: location.origin,
          totals: await json.json(),
          etag: json.headers.get('ETag'),
          csv: await csv.text(),
          disposition: csv.headers.get('Content-Disposition'),
        };
      }, `${base}/budget/api`);
      expect(seen.origin).not.toBe(base);
      expect(seen.totals).toEqual([
        { year: 2024, total_expenses: 300.3, total_resources: 800, balance: 499.7, stage: 'amended', source_ids: [], derived: false },
      ]);
      expect(seen.etag).toMatch(/^"[\w-]+"$/);
      expect(seen.csv.split('\r\n')[0]).toBe('year,value,percent,published_percent,gdp,stage,source_id,derived');
      expect(seen.disposition).toBe('attachment; filename="deficit.csv"');
    } finally {
      await elsewhere.close();
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('loaded everything from this server, with no failed request and no script error', () => {
    expect([...origins]).toEqual([base]);
    expect(problems).toEqual([]);
  });
});
