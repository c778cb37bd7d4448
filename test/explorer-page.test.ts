/**
 * The explorer page in a real headless browser (Debian's chromium driven by playwright-core, as
 * test/docs-page.test.ts does), against the real app listening on loopback: over the small test
 * drop, whose figures are worked out by hand below, over a drop without debt, and over the
 * sample drop in data/. Screenshots at desktop and phone widths go to a folder under the system's
 * temporary directory, printed by the test; the time to the first chart is printed too.
 *
 * Small drop, in MDT as its drop.json states, amended law (all lines): 2023 expenses 100.1 + 200.2 + 50.05 = 350.35, resources
 * 1000 + 500.5 + 99.999 = 1600.499, balance 1250.149; 2024 expenses 300 + 0.1 + 0.2 = 300.3,
 * resources 800, balance 499.7. Its years (GDP 2022-2024) make 2024 the default year.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LONG_NAME, newsroom, newsroomManifest } from './fixtures/newsroom.js';
import { small } from './fixtures/small.js';
import { appFor, appServing, listen, type TestApp } from './helpers/app.js';
import { type DropData, type TableRows } from './helpers/drop.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasBrowser = existsSync(CHROMIUM);
if (!hasBrowser) {
  console.warn(`SKIPPED: the explorer page browser tests need chromium at ${CHROMIUM} (apt-get install chromium; .ci/run does it where it can)`);
}

const SAMPLE = path.join(import.meta.dirname, '..', 'data');
const VIEWS = ['overview', 'expenses', 'resources', 'organizations', 'debt'] as const;

/** French numbers use (narrow) no-break spaces; the assertions write plain ones. */
const plain = (text: string | null) => (text ?? '').replace(/[\u00a0\u202f]/g, ' ');

/** A served drop and a browser page on it that records every console error, page error and failed request. */
interface Session {
  base: string;
  page: Page;
  problems: string[];
  close(): Promise<void>;
}

let browser: Browser;
let shots: string;

async function session(t: TestApp, viewport = { width: 1280, height: 800 }): Promise<Session> {
  const server = await listen(t.app);
  const page = await browser.newPage({ viewport });
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console: ${message.text()}`);
  });
  page.on('requestfailed', (req) => {
    // A request the browser cancels because the test navigates on (the favicon, a page still
    // loading) did not fail: only requests the server or the network failed are problems.
    if (req.failure()?.errorText === 'net::ERR_ABORTED') return;
    problems.push(`request failed: ${req.url()} (${req.failure()?.errorText ?? 'unknown'})`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`${res.status()}: ${res.url()}`);
  });
  return {
    base: server.base,
    page,
    problems,
    close: async () => {
      await page.close();
      await server.stop();
    },
  };
}

/** Waits until the view is drawn (main.ts sets data-state once every figure is on the page). */
async function ready(page: Page): Promise<void> {
  await page.waitForSelector('#view[data-state="ready"]');
}

/** Whether a canvas has any pixel drawn. */
function drawnCanvases(page: Page): Promise<number[]> {
  return page.$$eval('#view canvas', (canvases) =>
    (canvases as HTMLCanvasElement[]).map((canvas) => {
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let drawn = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) drawn++;
      return drawn;
    }),
  );
}

const text = (page: Page, selector: string) => page.locator(selector).first().textContent().then(plain);
const query = (page: Page) => Object.fromEntries(new URL(page.url()).searchParams);
const rows = (page: Page, figure: string) =>
  page.$$eval(`#${figure} details.table tbody tr`, (trs) =>
    trs.map((tr) => [...tr.children].map((cell) => (cell.textContent ?? '').replace(/[\u00a0\u202f]/g, ' ').trim())),
  );

/** Presses Tab until the focused element matches `selector` (keyboard only: no click, no focus()). */
async function tabTo(page: Page, selector: string, { backwards = false, max = 40 } = {}): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

beforeAll(async () => {
  if (!hasBrowser) return;
  shots = mkdtempSync(path.join(os.tmpdir(), 'explorer-screenshots-'));
  console.log(`explorer screenshots: ${shots}`);
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
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!hasBrowser)('the explorer page in a real browser', () => {
  describe('with the releases kept, as the server keeps them', () => {
    let t: TestApp;
    let s: Session;
    beforeAll(async () => {
      t = await appFor(small, {}, {}, { releases: true });
      s = await session(t);
    });
    afterAll(async () => {
      await s?.close();
      await t?.close();
    });

    it("gives every chart a Cite link to its answer's permanent address, which answers the same figures", async () => {
      await s.page.goto(`${s.base}/?lang=fr`);
      await ready(s.page);
      const links = s.page.locator('#view a.cite-link');
      expect(await links.count()).toBeGreaterThan(0);
      expect(await text(s.page, '#deficit a.cite-link')).toBe('Citer');
      const href = await s.page.locator('#deficit a.cite-link').getAttribute('href');
      // The release is named by the drop's version; the rest is the deficit's own path and query.
      expect(href).toMatch(/^\/budget\/api\/releases\/[^/]+\/deficit\//);
      const cited = await fetch(new URL(href!, s.base));
      expect(cited.status).toBe(200);
      expect(cited.headers.get('cache-control')).toContain('immutable');
      // The same answer as the current one, the release being the one served.
      const current = await fetch(new URL(href!.replace(/\/releases\/[^/]+/, ''), s.base));
      expect(await cited.text()).toBe(await current.text());
      expect(s.problems).toEqual([]);
    });

    it('gives a chart drawn from several answers a Cite link for each, beside its API URL', async () => {
      await s.page.goto(`${s.base}/?lang=en`);
      await ready(s.page);
      // The deficit and outstanding debt as % of GDP: two answers, two permanent addresses.
      const lines = await s.page.$$eval('#ratios .provenance li', (items) =>
        items.map((li) => [li.querySelector('a.api-url')!.getAttribute('href'), li.querySelector('a.cite-url')?.getAttribute('href')]),
      );
      expect(lines.map(([api]) => api)).toEqual(['/budget/api/deficit/', '/budget/api/outstanding-debt/']);
      for (const [api, cite] of lines) expect(cite).toMatch(new RegExp(`^/budget/api/releases/[^/]+/${api!.slice('/budget/api/'.length)}$`));
      // No single Cite link above that would cite one of the two alone.
      expect(await s.page.locator('#ratios .actions a.cite-link').count()).toBe(0);
    });
  });

  describe('on the small test drop', () => {
    let t: TestApp;
    let s: Session;
    beforeAll(async () => {
      t = await appFor(small, {}, { manifest: (m) => Object.assign(m, { units: { name: 'MDT', currency: 'TND', scale: 1_000_000 } }) });
      s = await session(t);
    });
    afterAll(async () => {
      await s.close();
      t.close();
    });

    it('opens on the overview of the latest year, led by its deficit, in English, with every chart drawn', async () => {
      await s.page.goto(`${s.base}/?lang=en`);
      await ready(s.page);
      expect(await s.page.$eval('#year', (el) => (el as HTMLSelectElement).value)).toBe('2024');
      // 2024: deficit 1 of a GDP of 8 is 12.5%; the drop gives no stage, so the sentence claims none.
      expect(await text(s.page, '#deficit .summary')).toBe('In 2024, the deficit is 1 MDT (12.5% of GDP).');
      // Impôts directs is tax; the drop has no borrowing line in 2024.
      expect(await text(s.page, '#financing .summary')).toBe(
        'In 2024 (amended law): expenses 300.3 MDT; own resources 800 MDT, 266.4% of expenses; no borrowing line among the resources.',
      );
      const drawn = await drawnCanvases(s.page);
      expect(drawn).toHaveLength(3);
      for (const pixels of drawn) expect(pixels).toBeGreaterThan(1000);
      expect(query(s.page)).toEqual({ view: 'overview', year: '2024', lang: 'en' });
    });

    it("links every chart to its API URL and CSV, under the drop's version", async () => {
      const links = await s.page.$$eval('#financing .provenance a', (as) => as.map((a) => a.getAttribute('href')));
      // Every year's resource tree, behind the bars of every year, not the chosen year's alone.
      expect(links).toEqual([
        '/budget/api/totals/',
        '/budget/api/totals/?format=csv',
        '/budget/api/resources/?year=2023..2024&hierarchy=true&limit=1000',
        '/budget/api/resources/?year=2023..2024&hierarchy=true&limit=1000&format=csv',
      ]);
      // The test drop has no sources: its version stands in, never a file name.
      expect(await text(s.page, '#ratios .provenance p')).toBe('Data: version test of the drop served.');
      const csv = await s.page.evaluate(async (url) => (await fetch(url)).text(), links[1]!);
      expect(csv.split('\r\n')[0]).toBe('year,total_expenses,total_resources,balance,stage,source_ids,derived');
    });

    it('follows the year chosen with the keyboard alone, and keeps it in the URL', async () => {
      await tabTo(s.page, '#year');
      await s.page.keyboard.press('ArrowDown'); // years run from the latest down: 2024, then 2023
      await s.page.waitForURL(/year=2023/);
      await ready(s.page);
      // 2023: own resources 1000 + 500.5 of expenses 350.35 is 428.29%; Emprunts 99.999.
      expect(await text(s.page, '#financing .summary')).toBe(
        'In 2023 (amended law): expenses 350.35 MDT; own resources 1,500.5 MDT, 428.29% of expenses; borrowing 99.999 MDT.',
      );
      // 2023: outstanding debt 1000 of a GDP of 3000 is 33.33%; no deficit row that year.
      expect(await text(s.page, '#ratios .summary')).toBe('In 2023: no deficit figure, outstanding debt 33.33% of GDP.');
      expect(await text(s.page, '#deficit .headline')).toBe('No deficit figure for 2023 in the drop being served.');
    });

    it('switches labels and number formats to French, and a reload of the URL restores the view', async () => {
      await s.page.locator('#lang').click();
      await s.page.waitForURL(/lang=fr/);
      await ready(s.page);
      expect(await text(s.page, 'h1')).toBe('Explorateur du budget');
      expect(await s.page.getAttribute('html', 'lang')).toBe('fr');
      expect(await text(s.page, '#financing .summary')).toBe(
        'En 2023 (loi rectifiée) : dépenses 350,35 MDT ; ressources propres 1 500,5 MDT, soit 428,29 % des dépenses ; emprunts 99,999 MDT.',
      );
      expect(await text(s.page, '#ratios .summary')).toBe('En 2023 : pas de chiffre de déficit, encours de la dette de 33,33 % du PIB.');
      await s.page.reload();
      await ready(s.page);
      expect(await s.page.$eval('#year', (el) => (el as HTMLSelectElement).value)).toBe('2023');
      expect(await text(s.page, 'h1')).toBe('Explorateur du budget');
      expect(await text(s.page, '#financing .summary')).toContain('En 2023 (');
      await s.page.locator('#lang').click();
      await ready(s.page);
      expect(await text(s.page, 'h1')).toBe('Budget explorer');
    });

    it('drills down the expense tree with Enter and Space, and back up, keyboard only', async () => {
      await tabTo(s.page, 'button[data-view="expenses"]');
      await s.page.keyboard.press('Enter');
      await s.page.waitForURL(/view=expenses/);
      await ready(s.page);
      expect(await text(s.page, '#tree-expenses h2')).toBe('Expenses by category, 2023');
      // 2023 has lines only under 10 Dépenses de gestion: 300.3 (11, with 13) + 50.05 (12).
      expect(await rows(s.page, 'tree-expenses')).toEqual([['▸ Dépenses de gestion', '350.35 MDT', '100%']]);

      await tabTo(s.page, '#tree-expenses button.drill');
      await s.page.keyboard.press('Enter');
      await s.page.waitForURL(/node=10/);
      await ready(s.page);
      expect(await text(s.page, '#tree-expenses .trail')).toBe('All categoriesDépenses de gestion');
      expect(await rows(s.page, 'tree-expenses')).toEqual([
        ['▸ Rémunérations', '300.3 MDT', '85.71%'],
        ['Fonctionnement', '50.05 MDT', '14.29%'],
      ]);

      await tabTo(s.page, '#tree-expenses button.drill');
      await s.page.keyboard.press('Space');
      await s.page.waitForURL(/node=11/);
      await ready(s.page);
      // 11 Rémunérations: 100.1 recorded at the node itself, 200.2 under 13 Primes.
      expect(await rows(s.page, 'tree-expenses')).toEqual([
        ['Primes', '200.2 MDT', '66.67%'],
        ['Recorded at this level', '100.1 MDT', '33.33%'],
      ]);
      const [pixels, ...more] = await drawnCanvases(s.page);
      expect(more).toEqual([]);
      expect(pixels).toBeGreaterThan(1000);

      // Focus is on the current step of the path; one step back is the level above.
      expect(await s.page.evaluate(() => document.activeElement?.getAttribute('aria-current'))).toBe('location');
      await s.page.keyboard.press('Shift+Tab');
      await s.page.keyboard.press('Enter');
      await s.page.waitForURL(/node=10/);
      await ready(s.page);
      expect(await rows(s.page, 'tree-expenses')).toHaveLength(2);
    });

    it('ranks organizations by expenses and shows the one chosen over the years', async () => {
      await s.page.goto(`${s.base}/?view=organizations&year=2023&lang=en`);
      await ready(s.page);
      // 2023: Éducation 100.1 + 200.2 of expenses and 500.5 of resources; Santé 50.05 and none.
      expect(await rows(s.page, 'organizations')).toEqual([
        ['1', "Ministère de l'Éducation", '300.3 MDT', '500.5 MDT', 'Amended law'],
        ['2', 'Ministère de la Santé', '50.05 MDT', '0 MDT', 'Amended law'],
      ]);
      expect(await text(s.page, '#organization h2')).toBe("Ministère de l'Éducation: budget over the years");
      await s.page.getByRole('button', { name: 'Ministère de la Santé' }).click();
      await s.page.waitForURL(/org=2/);
      await ready(s.page);
      expect(await text(s.page, '#organization h2')).toBe('Ministère de la Santé: budget over the years');
      await s.page.locator('#organization details.table summary').click();
      expect(await rows(s.page, 'organization')).toEqual([
        ['2023', '50.05 MDT', '0 MDT', 'Amended law'],
        ['2024', '300 MDT', '800 MDT', 'Amended law'],
      ]);
      for (const pixels of await drawnCanvases(s.page)) expect(pixels).toBeGreaterThan(1000);
    });

    it('shows debt from top-level origins down, and says which years have debt when the chosen one has none', async () => {
      await s.page.goto(`${s.base}/?view=debt&year=2024&lang=en`);
      await ready(s.page);
      expect(await text(s.page, '#debt .empty')).toBe('No data for 2024 in the drop being served.');
      expect(await s.page.locator('#debt .other-years button').allTextContents()).toEqual(['2023', '2022']);
      await s.page.getByRole('button', { name: '2023' }).click();
      await s.page.waitForURL(/year=2023/);
      await ready(s.page);
      expect(await rows(s.page, 'debt')).toEqual([
        ['Dette intérieure', '110 MDT', '62.86%'],
        ['▸ Dette extérieure', '65 MDT', '37.14%'],
      ]);
      await s.page.getByRole('button', { name: 'Open Dette extérieure' }).click();
      await s.page.waitForURL(/node=2/);
      await ready(s.page);
      expect(await rows(s.page, 'debt')).toEqual([
        ['Multilatérale', '60 MDT', '92.31%'],
        ['Recorded at this level', '5 MDT', '7.69%'],
      ]);
      expect(await s.page.$$eval('#debt .provenance a.api-url', (as) => as.map((a) => a.getAttribute('href')))).toEqual([
        '/budget/api/debt/?year=2023&parent=2',
      ]);
    });

    it('shows the measure and stage switches only where the API takes those parameters, and keeps them in the URL', async () => {
      const openapi = await s.page.evaluate(async () => (await fetch('/budget/api/openapi.json')).json());
      const takes = (name: string) => (openapi.paths['/budget/api/totals/'].get.parameters as { name?: string }[]).some((p) => p.name === name);
      await s.page.goto(`${s.base}/?view=overview&year=2023&lang=en`);
      await ready(s.page);
      await s.page.waitForSelector('#controls[data-state="ready"]', { state: 'attached' }); // the switches follow the OpenAPI document
      expect(await s.page.locator('#measure').isVisible()).toBe(takes('measure'));
      expect(await s.page.locator('#stage').isVisible()).toBe(takes('stage'));
      if (takes('measure')) {
        // Real terms need a CPI series and per inhabitant a population, which this drop has not.
        expect(await s.page.$$eval('#measure option', (options) => options.map((o) => (o as HTMLOptionElement).value))).toEqual([
          'nominal',
          'pct_gdp',
        ]);
        await s.page.selectOption('#measure', 'pct_gdp');
        await s.page.waitForURL(/measure=pct_gdp/);
        await ready(s.page);
        expect(await s.page.getAttribute('#financing .provenance a.api-url', 'href')).toContain('measure=pct_gdp');
        await s.page.reload();
        await ready(s.page);
        await s.page.waitForSelector('#controls[data-state="ready"]', { state: 'attached' });
        expect(await s.page.$eval('#measure', (el) => (el as HTMLSelectElement).value)).toBe('pct_gdp');
      }
      if (takes('stage')) {
        await s.page.selectOption('#stage', 'initial');
        await s.page.waitForURL(/stage=initial/);
        await ready(s.page);
        expect(await s.page.getAttribute('#ratios .provenance a.api-url', 'href')).toContain('stage=initial');
      }
    });

    it('loaded everything from this server, with no failed request, no CSP violation and no script error', () => {
      expect(s.problems).toEqual([]);
    });
  });

  /**
   * Read as a newspaper's graphics editor would (issue 23), on a drop with the traps: 2019 has
   * resource lines and no expense line, 2022 is a forecast (2021 is the latest outturn), and the
   * outturn covers another scope than the laws (test/fixtures/newsroom.ts has the figures).
   */
  describe('on a drop with a gap year, a forecast year and stages of different scope', () => {
    let t: TestApp;
    let s: Session;
    beforeAll(async () => {
      t = await appFor(newsroom, {}, { manifest: newsroomManifest });
      s = await session(t);
    });
    afterAll(async () => {
      await s.close();
      t.close();
    });

    /** A drawn chart's datasets: label, and the y of each year (null: no point, the line breaks). */
    const series = (figure: string) =>
      s.page.$eval(`#${figure} canvas`, (canvas) => {
        const chart = (canvas as HTMLCanvasElement & { chart: { data: { datasets: { label: string; data: { x: number; y: number | null }[] }[] } } })
          .chart;
        return chart.data.datasets.map((d) => ({ label: d.label, points: Object.fromEntries(d.data.map((p) => [p.x, p.y])) }));
      });

    it('leads the overview with the year’s deficit, its stage and its forecast mark, and never with the balance', async () => {
      await s.page.goto(`${s.base}/?lang=en`);
      await ready(s.page);
      expect(await s.page.$eval('#view .figure', (el) => el.id)).toBe('deficit');
      expect(await text(s.page, '#deficit .big-number')).toBe('70 MDT');
      expect(await text(s.page, '#deficit .headline-meta')).toBe('7% of GDP · Initial law · forecast');
      expect(await text(s.page, '#deficit .summary')).toBe(
        'In 2022, the initial finance law plans a deficit of 70 MDT (7% of GDP). A forecast: the drop has no outturn for this year yet.',
      );
      // The balance (290 - 300) is a small defined note under the financing, never a headline.
      for (const lead of await s.page.locator('#view .headline, #view .summary, #view h2').allTextContents())
        expect(lead).not.toMatch(/balance|solde/i);
      expect(await text(s.page, '#financing .balance-note')).toBe(
        'Balance as totals/ computes it, 2022: -10 MDT. It is resources including borrowing minus expenses, so it is not the deficit.',
      );
      // The forecast's point is hollow, its table row says so, and a note says what hollow means.
      const hollow = await s.page.$eval('#deficit canvas', (canvas) => {
        const chart = (
          canvas as HTMLCanvasElement & {
            chart: {
              getDatasetMeta(i: number): { data: { options: { backgroundColor: string } }[] };
              data: { datasets: { label: string; data: { x: number; y: number | null }[] }[] };
            };
          }
        ).chart;
        const i = chart.data.datasets.findIndex((d) => d.data.some((p) => p.x === 2022 && p.y !== null));
        const j = chart.data.datasets[i]!.data.findIndex((p) => p.x === 2022);
        return chart.getDatasetMeta(i).data[j]!.options.backgroundColor;
      });
      expect(hollow).toBe('#fff');
      expect((await rows(s.page, 'deficit')).at(-1)).toEqual([
        '2022',
        '70 MDT',
        '7%',
        'Initial law (forecast)',
        'Loi de finances 2022 (Ministère des Finances)',
      ]);
      expect(await s.page.locator('#deficit .note', { hasText: 'Hollow points' }).textContent()).toBe(
        'Hollow points and pale bars are forecasts: a law’s figure for a year after the latest outturn in the drop (2021).',
      );
    });

    it('shows how spending is financed: own resources by kind against borrowing, from the resource tree', async () => {
      expect(await text(s.page, '#financing .summary')).toBe(
        'In 2022 (amended law): expenses 300 MDT; own resources 190 MDT, 63.33% of expenses; borrowing 100 MDT.',
      );
      expect((await series('financing')).map((d) => d.label)).toEqual(['Tax revenue', 'Non-tax revenue', 'Grants', 'Borrowing', 'Expenses']);
      expect(await rows(s.page, 'financing')).toEqual([
        ['2019', 'no data', '100 MDT', '100 MDT', '0 MDT', '0 MDT', '50 MDT', 'Amended law'],
        ['2020', '200 MDT', '150 MDT', '120 MDT', '20 MDT', '10 MDT', '60 MDT', 'Amended law'],
        ['2021', '250 MDT', '150 MDT', '150 MDT', '0 MDT', '0 MDT', '90 MDT', 'Amended law'],
        ['2022', '300 MDT', '190 MDT', '180 MDT', '10 MDT', '0 MDT', '100 MDT', 'Amended law (forecast)'],
      ]);
    });

    it('draws a year without expense lines as a gap, never as zero, and says the known gap there', async () => {
      // totals/ itself answers 0 for 2019's expenses: the page must not believe it.
      const totals = await s.page.evaluate(async () => (await fetch('/budget/api/totals/')).json());
      expect(totals[0]).toMatchObject({ year: 2019, total_expenses: 0 });
      const expenses = (await series('financing')).find((d) => d.label === 'Expenses')!;
      expect(expenses.points).toEqual({ 2019: null, 2020: 200, 2021: 250, 2022: 300 });
      expect(await s.page.locator('#financing .known-gap').allTextContents()).toEqual([
        'Known gap, 2019: The 2019 expense tables are not in the drop.',
      ]);

      await s.page.selectOption('#year', '2019');
      await s.page.waitForURL(/year=2019/);
      await ready(s.page);
      expect(await text(s.page, '#financing .summary')).toBe(
        'In 2019 (amended law): the drop has resource lines but no expense lines: no expense figure for this year.',
      );
      // No deficit row in 2019: no number, no claim.
      expect(await text(s.page, '#deficit .headline')).toBe('No deficit figure for 2019 in the drop being served.');
      expect(await s.page.locator('#deficit .big-number').count()).toBe(0);

      await s.page.getByRole('button', { name: 'Expenses' }).click();
      await s.page.waitForURL(/view=expenses/);
      await ready(s.page);
      expect(await text(s.page, '#tree-expenses .empty')).toBe('No data for 2019 in the drop being served.');
      expect(await text(s.page, '#tree-expenses .known-gap')).toBe('Known gap, 2019: The 2019 expense tables are not in the drop.');

      await s.page.goto(`${s.base}/?view=overview&year=2019&lang=fr`);
      await ready(s.page);
      expect((await rows(s.page, 'financing'))[0]!.slice(0, 2)).toEqual(['2019', 'pas de données']);
    });

    it('puts years on a time scale: 2016 to 2020 is four times as wide as 2020 to 2021', async () => {
      await s.page.goto(`${s.base}/?lang=en`);
      await ready(s.page);
      const [a, b, c] = await s.page.$eval('#ratios canvas', (canvas) => {
        const x = (canvas as HTMLCanvasElement & { chart: { scales: { x: { getPixelForValue(v: number): number } } } }).chart.scales.x;
        return [x.getPixelForValue(2016), x.getPixelForValue(2020), x.getPixelForValue(2021)];
      });
      expect(b! - a!).toBeCloseTo(4 * (c! - b!), 0);
      // 2017-2018 have no ratio: the table says so instead of a number.
      expect((await rows(s.page, 'ratios')).find((r) => r[0] === '2017')).toEqual(['2017', 'no data', '', '', 'no data', '', '']);
    });

    it('never joins stages of different scope into one line, and joins those the drop declares comparable', async () => {
      const lines = await series('ratios');
      expect(lines.map((d) => d.label)).toEqual([
        'Deficit (% of GDP) — Initial law',
        'Deficit (% of GDP) — Outturn',
        'Outstanding debt (% of GDP) — Initial law / Amended law',
        'Outstanding debt (% of GDP) — Outturn',
      ]);
      // The 2021 outturn and the 2022 law are on two lines, never one.
      for (const line of lines) expect(line.points[2021] !== null && line.points[2022] !== null).toBe(false);
      // The amended 2019 and the initial 2022 share a line (comparable), broken by the years between.
      expect(lines[2]!.points).toMatchObject({ 2019: 50, 2020: null, 2021: null, 2022: 60 });
      expect(await s.page.locator('#ratios .note', { hasText: 'separate lines' }).textContent()).toBe(
        'Stages that do not cover the same scope are drawn as separate lines: Initial law / Amended law; Outturn.',
      );
      // What each stage covers, from /meta/ stages, folded under the chart.
      await s.page.locator('#ratios details.bases summary').click();
      expect(await s.page.locator('#ratios details.bases .note').allTextContents()).toEqual([
        'Initial law: expenses including debt principal; resources including borrowing',
        'Amended law: as the initial law',
        'Outturn: expenses excluding debt principal; own resources only',
      ]);
    });

    it('makes the headline and every chart follow the stage switch', async () => {
      await s.page.goto(`${s.base}/?lang=en`);
      await ready(s.page);
      await s.page.waitForSelector('#controls[data-state="ready"]', { state: 'attached' });
      await s.page.selectOption('#stage', 'outturn');
      await s.page.waitForURL(/stage=outturn/);
      await ready(s.page);
      // 2022 has no outturn: no figure is claimed, and the stage it has is named.
      expect(await text(s.page, '#deficit .headline')).toBe('No data for 2022 at the stage shown (outturn); 2022 has figures of: initial law.');
      await s.page.selectOption('#year', '2021');
      await s.page.waitForURL(/year=2021/);
      await ready(s.page);
      expect(await text(s.page, '#deficit .summary')).toBe('In 2021, the deficit was 60 MDT (6.67% of GDP).');
      expect(await text(s.page, '#deficit .headline-meta')).toBe('6.67% of GDP · Outturn');
      expect(await text(s.page, '#financing .summary')).toBe(
        'In 2021 (outturn): expenses 230 MDT; own resources 160 MDT, 69.57% of expenses; no borrowing line among the resources.',
      );
      expect((await series('financing')).find((d) => d.label === 'Expenses')!.points).toEqual({ 2021: 230 });
      for (const href of await s.page.$$eval('#view a.api-url', (as) => as.map((a) => a.getAttribute('href'))))
        expect(href).toContain('stage=outturn');
    });

    it('names sources by title and publisher, linked, the reader’s year first, and no file name anywhere', async () => {
      await s.page.goto(`${s.base}/?lang=en&year=2022`);
      await ready(s.page);
      const links = await s.page.$$eval('#deficit .sources a', (as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
      expect(links).toEqual([
        ['Loi de finances 2022 (Ministère des Finances)', 'https://example.org/lf2022.pdf'],
        ["Rapport d'exécution 2021 (Cour des comptes)", 'https://example.org/execution2021.pdf'],
      ]);
      expect(await s.page.locator('body').textContent()).not.toMatch(/\.parquet|SOURCES\.md/);
    });

    it('abbreviates long labels in the chart and gives the full name in its tooltip and table', async () => {
      await s.page.goto(`${s.base}/?view=organizations&year=2022&lang=en`);
      await ready(s.page);
      const { ticks, labels } = await s.page.$eval('#organizations canvas', (canvas) => {
        const chart = (canvas as HTMLCanvasElement & { chart: { data: { labels: string[] }; scales: { y: { ticks: { label: string }[] } } } }).chart;
        return { ticks: chart.scales.y.ticks.map((tick) => tick.label), labels: chart.data.labels };
      });
      expect(labels).toEqual([LONG_NAME]);
      expect(ticks[0]!.length).toBeLessThan(LONG_NAME.length);
      expect(ticks[0]).toMatch(/…$/);
      expect((await rows(s.page, 'organizations'))[0]![1]).toBe(LONG_NAME);
    });

    it('offers every chart as an embed page: the chart alone, its state in the URL, its sources, and the iframe code', async () => {
      await s.page.goto(`${s.base}/?lang=en&year=2022`);
      await ready(s.page);
      expect(await s.page.locator('#view .figure').count()).toBe(3);
      expect(await s.page.locator('#view .figure .embed-link').count()).toBe(3);
      await s.page.locator('#deficit .embed-link').click();
      await s.page.waitForURL(/\/budget\/embed\//);
      await ready(s.page);
      expect(query(s.page)).toEqual({ view: 'overview', year: '2022', lang: 'en', chart: 'deficit' });
      expect(await s.page.locator('#view .figure').count()).toBe(1);
      expect(await s.page.locator('#controls, header, details.table, .embed-link, button.png').count()).toBe(0);
      expect((await drawnCanvases(s.page))[0]).toBeGreaterThan(1000);
      expect(await text(s.page, '#deficit .sources a')).toBe('Loi de finances 2022 (Ministère des Finances)');
      const code = await s.page.$eval('#embed-code', (el) => (el as HTMLTextAreaElement).value);
      expect(code).toBe(
        `<iframe src="${s.base}/budget/embed/?view=overview&year=2022&lang=en&chart=deficit" title="The deficit" width="100%" height="560" style="border:0" loading="lazy"></iframe>`,
      );

      // Framed by another site (another origin: another port), it draws, and shows no code to copy inside the frame.
      const site = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!DOCTYPE html><p>An article</p>${code}`));
      await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
      const framing = await browser.newPage();
      try {
        await framing.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
        const frame = await (await framing.waitForSelector('iframe')).contentFrame();
        await frame!.waitForSelector('#view[data-state="ready"]');
        expect(await frame!.locator('#deficit canvas').count()).toBe(1);
        expect(await frame!.locator('#embed-code').count()).toBe(0);
        // The explorer itself stays unframeable by other sites.
        const explorer = await s.page.evaluate(async () => (await fetch('/?lang=en')).headers.get('content-security-policy'));
        expect(explorer).toContain("frame-ancestors 'self'");
      } finally {
        await framing.close();
        site.close();
      }
    });

    it('downloads each chart as a PNG image of the chart as drawn', async () => {
      await s.page.goto(`${s.base}/?lang=en&year=2022`);
      await ready(s.page);
      const [download] = await Promise.all([s.page.waitForEvent('download'), s.page.locator('#financing button.png').click()]);
      expect(download.suggestedFilename()).toBe('financing.png');
      const file = path.join(shots, 'newsroom-financing.png');
      await download.saveAs(file);
      const png = readFileSync(file);
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      const canvasWidth = await s.page.$eval('#financing canvas', (c) => (c as HTMLCanvasElement).width);
      expect(png.readUInt32BE(16)).toBeGreaterThan(canvasWidth); // IHDR width: the chart and a margin
      expect(png.length).toBeGreaterThan(5000);
    });

    it('shows the first chart within the first screen of a phone', async () => {
      const phone = await session(t, { width: 390, height: 844 });
      try {
        await phone.page.goto(`${phone.base}/?lang=fr`);
        await ready(phone.page);
        const box = (await phone.page.locator('#deficit canvas').boundingBox())!;
        expect(box.y).toBeLessThan(844 - 150);
        expect(box.height).toBeGreaterThanOrEqual(250);
        await phone.page.screenshot({ path: path.join(shots, 'newsroom-phone-overview.png') });
        expect(phone.problems).toEqual([]);
      } finally {
        await phone.close();
      }
    });

    it('draws an organization’s budget on a time scale, a year without its lines as missing and a law’s later year as a forecast', async () => {
      // The long-named organization has lines in 2020 and 2022 only; 2022 comes after the 2021 outturn.
      await s.page.goto(`${s.base}/?view=organizations&year=2022&org=2&lang=en`);
      await ready(s.page);
      expect(
        await s.page.$eval(
          '#organization canvas',
          (canvas) => (canvas as HTMLCanvasElement & { chart: { scales: { x: { type: string } } } }).chart.scales.x.type,
        ),
      ).toBe('linear');
      expect((await series('organization')).find((d) => d.label === 'Expenses')!.points).toEqual({ 2020: 50, 2021: null, 2022: 300 });
      await s.page.locator('#organization details.table summary').click();
      expect(await rows(s.page, 'organization')).toEqual([
        ['2020', '50 MDT', '0 MDT', 'Amended law'],
        ['2021', 'no data', 'no data', ''],
        ['2022', '300 MDT', '0 MDT', 'Amended law (forecast)'],
      ]);
      const bars = await s.page.$eval('#organization canvas', (canvas) => {
        const chart = (canvas as HTMLCanvasElement & { chart: { getDatasetMeta(i: number): { data: { options: { backgroundColor: string } }[] } } })
          .chart;
        return chart.getDatasetMeta(0).data.map((bar) => bar.options.backgroundColor);
      });
      expect(bars[2]).toBe(`${bars[0]}66`);
      expect(await s.page.locator('#organization .note', { hasText: 'Hollow points' }).count()).toBe(1);
    });

    it('draws no chart and makes no claim for organizations per inhabitant in a year without population', async () => {
      // Population starts in 2021: every 2020 figure per inhabitant is null.
      await s.page.goto(`${s.base}/?view=organizations&year=2020&measure=per_capita&lang=en`);
      await ready(s.page);
      expect(await text(s.page, '#organizations .empty')).toBe('No figure for 2020 per inhabitant: the drop has no population figure for 2020.');
      expect(await s.page.locator('#organizations .summary, #organizations canvas').count()).toBe(0);
      expect((await rows(s.page, 'organizations'))[0]!.slice(2, 4)).toEqual(['no data', 'no data']);
    });

    it('loaded everything from this server, with no failed request, no CSP violation and no script error', () => {
      expect(s.problems).toEqual([]);
    });
  });

  describe('on a drop whose years lack a measure’s series, or have lines of one stage only', () => {
    // 2020 has lines but no GDP and no population; 2022 has a deficit but no population; 2018 has
    // outturn lines only; 2021's law has two
    // categories of 100 MDT for 3 million inhabitants (33.33 TND each, 66.67 TND in all, not the
    // 66.66 of the rounded parts); 2022's debt is an initial law's, a forecast; 2017 has nothing.
    const thin: DropData = {
      ...newsroom,
      expenses: [
        ...(newsroom.expenses as TableRows).map((line) => (line.id === 3 ? { ...line, amount: 100 } : line)),
        { id: 6, year: 2021, amount: 100, category_id: 11, organization_id: 2, stage: 'initial', source_id: 1 },
        { id: 7, year: 2018, amount: 180, category_id: 10, organization_id: 1, stage: 'outturn', source_id: 2 },
      ],
      resources: [
        ...(newsroom.resources as TableRows),
        { id: 13, year: 2018, amount: 170, category_id: 31, organization_id: null, stage: 'outturn', source_id: 2 },
      ],
      debt: [{ year: 2022, debt_origin_id: 1, value: 600, stage: 'initial', source_id: 1 }],
      gdp: (newsroom.gdp as TableRows).filter((row) => row.year !== 2020),
      outstanding_debt: (newsroom.outstanding_debt as TableRows).filter((row) => row.year !== 2020),
      deficit: (newsroom.deficit as TableRows).filter((row) => row.year !== 2020),
      population: [{ year: 2021, population: 3_000_000 }],
    };
    let t: TestApp;
    let s: Session;
    beforeAll(async () => {
      t = await appFor(thin, {}, { manifest: newsroomManifest });
      s = await session(t);
    });
    afterAll(async () => {
      await s.close();
      t.close();
    });
    const open = async (query: string) => {
      await s.page.goto(`${s.base}/?${query}`);
      await ready(s.page);
    };

    it('shows a measure without its series that year as no figure, never as zero, and draws nothing from it', async () => {
      await open('lang=en&year=2020&view=expenses&measure=pct_gdp');
      expect(await text(s.page, '#tree-expenses .empty')).toBe('No figure for 2020 in % of GDP: the drop has no GDP for 2020.');
      expect(await s.page.locator('#tree-expenses .summary, #tree-expenses canvas').count()).toBe(0);
      expect((await rows(s.page, 'tree-expenses')).map((row) => row.slice(1, 3))).toEqual([
        ['no data', 'no data'],
        ['no data', 'no data'],
      ]);

      await open('lang=fr&year=2020&view=resources&measure=per_capita');
      expect(await text(s.page, '#tree-resources .empty')).toBe(
        'Pas de chiffre pour 2020 par habitant : le jeu de données n’a pas de chiffre de population pour 2020.',
      );
      expect(await s.page.locator('#tree-resources .summary, #tree-resources canvas').count()).toBe(0);

      // The financing table keeps every column, and 2020's resources read "no data", not 0.
      await open('lang=en&year=2020&measure=pct_gdp');
      const financing = await rows(s.page, 'financing');
      expect(financing.map((row) => row.length)).toEqual(financing.map(() => 8));
      expect(financing.find((row) => row[0] === '2020')).toEqual([
        '2020',
        'no data',
        'no data',
        'no data',
        'no data',
        'no data',
        'no data',
        'Amended law',
      ]);
      const bars = await s.page.$eval('#financing canvas', (canvas) =>
        (canvas as HTMLCanvasElement & { chart: { data: { datasets: { data: { x: number; y: number | null }[] }[] } } }).chart.data.datasets.map(
          (d) => d.data.find((p) => p.x === 2020)?.y,
        ),
      );
      expect(bars.every((y) => y === null)).toBe(true);
    });

    it('names the missing series as the cause of a missing figure, and makes no claim about lines the drop has', async () => {
      await open('lang=en&year=2020&measure=pct_gdp');
      const cause = 'No figure for 2020 in % of GDP: the drop has no GDP for 2020.';
      expect(await text(s.page, '#financing .summary')).toBe(cause);

      await open('lang=en&year=2020&view=organizations&measure=pct_gdp');
      expect(await text(s.page, '#organizations .empty')).toBe(cause);

      // 2022 has a deficit (an initial law's 70 MDT): only its figure per inhabitant is missing.
      await open('lang=en&year=2022&measure=per_capita');
      expect(await text(s.page, '#deficit .big-none')).toBe('No figure for 2022 per inhabitant: the drop has no population figure for 2022.');
    });

    it('says a year has no data at the stage shown, and which stages it has, rather than that the drop has none', async () => {
      const outturnOnly = 'No data for 2018 at the stage shown (amended law); 2018 has figures of: outturn.';
      await open('lang=en&year=2018&view=expenses');
      expect(await text(s.page, '#tree-expenses .empty')).toBe(outturnOnly);
      await open('lang=en&year=2018');
      expect(await text(s.page, '#financing .summary')).toBe(outturnOnly);
      await open('lang=en&year=2018&view=organizations');
      expect(await text(s.page, '#organizations .empty')).toBe(outturnOnly);
      await s.page.goto(`${s.base}/budget/embed/?view=organizations&year=2018&lang=en&chart=organizations`);
      await ready(s.page);
      expect(await text(s.page, '#organizations .empty')).toBe(outturnOnly);

      await open('lang=fr&year=2022&view=debt&stage=outturn');
      expect(await text(s.page, '#debt .empty')).toBe(
        'Pas de données pour 2022 à l’étape affichée (exécution) ; 2022 a des chiffres de : loi initiale.',
      );
    });

    it('says "% of GDP" wherever a figure is a share of GDP, in the unit, the headline and the sentences', async () => {
      await open('lang=en&year=2022&measure=pct_gdp');
      expect(await text(s.page, '#deficit .big-number')).toBe('7% of GDP');
      expect(await text(s.page, '#deficit .summary')).toBe(
        'In 2022, the initial finance law plans a deficit of 7% of GDP. A forecast: the drop has no outturn for this year yet.',
      );
      expect(await s.page.locator('#view .unit').allTextContents()).toEqual(['Unit: % of GDP', 'Unit: % of GDP', 'Unit: % of GDP']);
      expect(await text(s.page, '#financing .summary')).toBe(
        'In 2022 (amended law): expenses 30% of GDP; own resources 19% of GDP, 63.33% of expenses; borrowing 10% of GDP.',
      );

      await open('lang=fr&year=2022&view=expenses&measure=pct_gdp');
      expect(await text(s.page, '#tree-expenses .unit')).toBe('Unité : % du PIB');
      expect(await text(s.page, '#tree-expenses .summary')).toMatch(/^Toutes les catégories : 30 % du PIB, en 1 partie\./);
    });

    it('gives a level’s figure as totals/ gives it, not as the sum of its rounded parts', async () => {
      await open('lang=en&year=2021&view=expenses&measure=per_capita');
      expect(await text(s.page, '#tree-expenses .summary')).toBe('All categories: 66.67 TND per inhabitant, in 2 parts.');
      // The cent between the total and its rounded parts is rounding, not a line recorded above the categories.
      expect((await rows(s.page, 'tree-expenses')).map((row) => row.slice(0, 2))).toEqual([
        ['Dépenses de gestion', '33.33 TND per inhabitant'],
        [LONG_NAME, '33.33 TND per inhabitant'],
      ]);
      const totals = await s.page.evaluate(async () => (await fetch('/budget/api/totals/?year=2021&measure=per_capita')).json());
      expect(totals[0].total_expenses).toBe(66.67);
    });

    it('says so when the year asked has no data and another year is shown instead', async () => {
      await open('lang=en&year=2017');
      expect(query(s.page).year).toBe('2022');
      expect(await text(s.page, '#view .notice')).toBe('The drop has no data for 2017: showing 2022 instead.');
      await s.page.selectOption('#year', '2021');
      await s.page.waitForURL(/year=2021/);
      await ready(s.page);
      expect(await s.page.locator('#view .notice').count()).toBe(0);
    });

    it('keeps a forecast marked when drilling into a debt origin', async () => {
      await open('lang=en&year=2022&view=debt&node=1');
      expect(await text(s.page, '#debt .summary')).toBe(
        'Dette intérieure: 600 MDT, from 1 origin. A forecast: the drop has no outturn for this year yet.',
      );
      expect((await rows(s.page, 'debt'))[0]!.slice(3, 4)).toEqual(['Initial law (forecast)']);
    });

    it('loaded everything from this server, with no failed request, no CSP violation and no script error', () => {
      expect(s.problems).toEqual([]);
    });
  });

  describe('on a drop whose latest year has expense lines only, and a surplus', () => {
    it('draws no balance from the missing resources, and tells the surplus and its share of GDP as positive', async () => {
      // 2023: an expense line of 40 and no resource line; a deficit of -7 (a surplus) on a GDP of 1000.
      const t = await appFor(
        {
          ...newsroom,
          expenses: [
            ...(newsroom.expenses as TableRows),
            { id: 6, year: 2023, amount: 40, category_id: 10, organization_id: 1, stage: 'initial', source_id: 1 },
          ],
          gdp: [...(newsroom.gdp as TableRows), { year: 2023, gdp: 1000 }],
          deficit: [...(newsroom.deficit as TableRows), { year: 2023, value: -7, stage: 'initial', source_id: 1 }],
        },
        {},
        { manifest: newsroomManifest },
      );
      const s = await session(t);
      try {
        await s.page.goto(`${s.base}/?lang=en&year=2023`);
        await ready(s.page);
        expect(await text(s.page, '#financing .summary')).toBe(
          'In 2023 (amended law): the drop has expense lines but no resource lines: no financing figure for this year.',
        );
        expect(await s.page.locator('#financing .balance-note').count()).toBe(0);
        expect(await text(s.page, '#deficit .big-number')).toBe('7 MDT');
        expect(await text(s.page, '#deficit .big-label')).toBe('Surplus 2023');
        expect(await text(s.page, '#deficit .headline-meta')).toBe('0.7% of GDP · Initial law · forecast');
        expect(await text(s.page, '#deficit .summary')).toContain('a surplus of 7 MDT (0.7% of GDP).');
        // The ratios chart says surplus too, never "deficit -0.7%".
        expect(await text(s.page, '#ratios .summary')).toMatch(/^In 2023: surplus 0\.7% of GDP, /);
        // One root category in 2023: "in 1 part", not "in 1 parts".
        await s.page.goto(`${s.base}/?lang=en&year=2023&view=expenses`);
        await ready(s.page);
        expect(await text(s.page, '#tree-expenses .summary')).toMatch(/, in 1 part\./);
        expect(s.problems).toEqual([]);
      } finally {
        await s.close();
        t.close();
      }
    });
  });

  describe('on a drop whose known gap is of the initial law', () => {
    it('says the gap under the financing of the amended law too, the amended law being the initial law and its amendments', async () => {
      const t = await appFor(
        newsroom,
        {},
        {
          manifest: (manifest) => {
            newsroomManifest(manifest);
            Object.assign(manifest, {
              known_gaps: [
                {
                  table: 'expenses',
                  stage: 'initial',
                  years: [2019],
                  reason: {
                    en: 'The 2019 initial law’s expense tables are lost.',
                    fr: 'Les tableaux de dépenses de la loi initiale 2019 sont perdus.',
                  },
                },
              ],
            });
          },
        },
      );
      const s = await session(t);
      try {
        await s.page.goto(`${s.base}/?year=2019&lang=en`);
        await ready(s.page);
        expect(await text(s.page, '#financing .summary')).toBe(
          'In 2019 (amended law): the drop has resource lines but no expense lines: no expense figure for this year.',
        );
        expect(await s.page.locator('#financing .known-gap').allTextContents()).toEqual([
          'Known gap, 2019 (Initial law): The 2019 initial law’s expense tables are lost.',
        ]);
        expect(s.problems).toEqual([]);
      } finally {
        await s.close();
        t.close();
      }
    });
  });

  describe('on a drop whose debt and organization rows carry their sources', () => {
    it('names the sources of the debt and the organizations by title, linked, under the chart and on its embed page', async () => {
      const t = await appFor(
        { ...newsroom, debt: [{ year: 2022, debt_origin_id: 1, value: 600, stage: 'initial', source_id: 1 }] },
        {},
        { manifest: newsroomManifest },
      );
      const s = await session(t);
      const law = ['Loi de finances 2022 (Ministère des Finances)', 'https://example.org/lf2022.pdf'];
      const sources = (figure: string) => s.page.$$eval(`#${figure} .sources a`, (as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
      try {
        for (const [view, figure] of [
          ['debt', 'debt'],
          ['organizations', 'organizations'],
        ]) {
          await s.page.goto(`${s.base}/?view=${view}&year=2022&lang=en`);
          await ready(s.page);
          expect(await sources(figure!), view).toEqual([law]);
          await s.page.goto(`${s.base}/budget/embed/?view=${view}&year=2022&lang=en&chart=${figure}`);
          await ready(s.page);
          expect(await sources(figure!), `${view}, embedded`).toEqual([law]);
        }
        expect(s.problems).toEqual([]);
      } finally {
        await s.close();
        t.close();
      }
    });
  });

  describe('on a drop whose latest year is a law’s forecast, in the views outside the overview', () => {
    it('marks the expenses, the debt and the organizations of a year after the latest outturn as a forecast', async () => {
      // 2021 is the latest outturn: 2022's initial law is a forecast.
      const t = await appFor(
        { ...newsroom, debt: [{ year: 2022, debt_origin_id: 1, value: 600, stage: 'initial', source_id: 1 }] },
        {},
        { manifest: newsroomManifest },
      );
      const s = await session(t);
      try {
        await s.page.goto(`${s.base}/?view=expenses&year=2022&lang=en`);
        await ready(s.page);
        expect(await text(s.page, '#tree-expenses .summary')).toBe(
          'All categories: 300 MDT, in 1 part. A forecast: the drop has no outturn for this year yet.',
        );
        expect(await rows(s.page, 'tree-expenses')).toEqual([[LONG_NAME, '300 MDT', '100%', 'Amended law (forecast)']]);

        await s.page.goto(`${s.base}/?view=debt&year=2022&lang=en`);
        await ready(s.page);
        expect(await text(s.page, '#debt .summary')).toBe(
          'All origins: 600 MDT, from 1 origin. A forecast: the drop has no outturn for this year yet.',
        );
        expect((await rows(s.page, 'debt'))[0]!.slice(3, 4)).toEqual(['Initial law (forecast)']);

        await s.page.goto(`${s.base}/?view=organizations&year=2022&lang=fr`);
        await ready(s.page);
        expect(plain(await text(s.page, '#organizations .summary'))).toMatch(/ Une prévision : /);
        expect((await rows(s.page, 'organizations'))[0]).toContain('Loi rectifiée (prévision)');

        // The year before is an outturn year: nothing there is called a forecast.
        await s.page.goto(`${s.base}/?view=expenses&year=2021&lang=en`);
        await ready(s.page);
        expect(await s.page.locator('#tree-expenses').textContent()).not.toMatch(/forecast/i);
        expect(s.problems).toEqual([]);
      } finally {
        await s.close();
        t.close();
      }
    });
  });

  describe('on a drop that states no units', () => {
    it("shows its amounts bare and says the unit is not stated, never borrowing another drop's", async () => {
      const t = await appFor(small);
      const s = await session(t);
      try {
        await s.page.goto(`${s.base}/?lang=en`);
        await ready(s.page);
        expect(await text(s.page, '#deficit .summary')).toBe('In 2024, the deficit is 1 (12.5% of GDP).');
        expect(await text(s.page, '#financing .summary')).toBe(
          'In 2024 (amended law): expenses 300.3; own resources 800, 266.4% of expenses; no borrowing line among the resources.',
        );
        expect(await s.page.locator('#financing .unit').first().textContent()).toBe('Unit: not stated by the data');
        await s.page.waitForSelector('#controls[data-state="ready"]', { state: 'attached' });
        expect(await s.page.$eval('#measure option[value="nominal"]', (o) => o.textContent)).toBe('Current prices');
        expect(await s.page.content()).not.toContain('MDT');
        expect(s.problems).toEqual([]);
      } finally {
        await s.close();
        t.close();
      }
    });
  });

  describe('on a drop without debt', () => {
    it('says so in the debt view instead of breaking', async () => {
      const t = await appFor({ ...small, debt: [] });
      const s = await session(t);
      try {
        await s.page.goto(`${s.base}/?view=debt&lang=en`);
        await ready(s.page);
        expect(await text(s.page, '#debt .empty')).toBe('No data for 2024 in the drop being served.');
        expect(await s.page.locator('#debt .other-years').count()).toBe(0);
        expect(await s.page.locator('#debt canvas').count()).toBe(0);
        expect(s.problems).toEqual([]);
      } finally {
        await s.close();
        t.close();
      }
    });
  });

  describe('on the sample drop', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await appServing(SAMPLE);
    });
    afterAll(() => t.close());

    it.each([
      ['desktop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const)(
      'draws every view with no error at %s width, and saves screenshots',
      async (name, viewport) => {
        const s = await session(t, viewport);
        try {
          const started = Date.now();
          await s.page.goto(`${s.base}/`);
          await ready(s.page);
          const firstChart = await s.page.evaluate(() => performance.getEntriesByName('explorer:first-chart')[0]?.startTime);
          console.log(
            `explorer, ${name}: first chart drawn ${firstChart?.toFixed(0)} ms after navigation start (${Date.now() - started} ms to ready, as seen by the test)`,
          );
          expect(firstChart).toBeGreaterThan(0);
          for (const view of VIEWS) {
            await s.page
              .getByRole('button', {
                name: new RegExp(
                  `^(${{ overview: 'Overview|Vue', expenses: 'Expenses|Dépenses', resources: 'Resources|Ressources', organizations: 'Organizations|Organismes', debt: 'Debt|Dette' }[view]})`,
                ),
              })
              .first()
              .click();
            await s.page.waitForURL(new RegExp(`view=${view}`));
            await ready(s.page);
            if (view === 'debt' && (await s.page.locator('#debt .other-years button').count()) > 0) {
              await s.page.locator('#debt .other-years button').first().click();
              await ready(s.page);
            }
            const drawn = await drawnCanvases(s.page);
            expect(drawn.length, view).toBeGreaterThan(0);
            for (const pixels of drawn) expect(pixels, view).toBeGreaterThan(1000);
            await s.page.screenshot({ path: path.join(shots, `${name}-${view}.png`), fullPage: view !== 'overview' });
          }
          expect(s.problems).toEqual([]);
        } finally {
          await s.close();
        }
      },
      60_000,
    );

    it("keeps a data table's rows short on a phone: a long source title takes a wide column that scrolls, not a tall narrow one", async () => {
      const s = await session(t, { width: 390, height: 844 });
      try {
        await s.page.goto(`${s.base}/?view=debt&year=2024&lang=fr`);
        await ready(s.page);
        const heights = await s.page
          .locator('#debt details.table tbody tr')
          .evaluateAll((rows) => rows.map((row) => row.getBoundingClientRect().height));
        expect(heights.length).toBeGreaterThan(0);
        // A few lines of text at most, where a source squeezed into a narrow column made rows 250 px high.
        for (const height of heights) expect(height).toBeLessThan(100);
        expect(s.problems).toEqual([]);
      } finally {
        await s.close();
      }
    });

    it('wraps a long source line in a PNG rather than squeezing it into the width', async () => {
      const s = await session(t);
      try {
        await s.page.goto(`${s.base}/?lang=en`);
        await ready(s.page);
        // The chart's size in pixels, how many device pixels a CSS pixel is, and how many chart
        // widths the source line (12 px type) takes: that many lines at least under the chart.
        const sizes = await s.page.$eval('#deficit', (figure) => {
          const canvas = figure.querySelector('canvas')!;
          const g = document.createElement('canvas').getContext('2d')!;
          g.font = '12px system-ui, sans-serif';
          return {
            height: canvas.height,
            scale: canvas.width / canvas.clientWidth,
            lines: Math.ceil(g.measureText(figure.querySelector('.provenance p')!.textContent!).width / canvas.clientWidth),
          };
        });
        expect(sizes.lines).toBeGreaterThanOrEqual(2);
        const [download] = await Promise.all([s.page.waitForEvent('download'), s.page.locator('#deficit button.png').click()]);
        const file = path.join(shots, 'sample-deficit.png');
        await download.saveAs(file);
        const pngHeight = readFileSync(file).readUInt32BE(20);
        // Margins (12 px each), the title's line (18 px type), the unit's line and every line of the
        // sources (12 px type).
        expect(pngHeight).toBeGreaterThanOrEqual(sizes.height + sizes.scale * (2 * 12 + 18 * 1.3 + (1 + sizes.lines) * 12 * 1.4) - 1);
        expect(s.problems).toEqual([]);
      } finally {
        await s.close();
      }
    });
  });
});
