/**
 * The explorer page in a real headless browser (Debian's chromium driven by playwright-core, as
 * test/docs-page.test.ts does), against the real app listening on loopback: over the small test
 * drop, whose figures are worked out by hand below, over a drop without debt, and over the
 * sample drop in data/. Screenshots at desktop and phone widths go to a folder under the system's
 * temporary directory, printed by the test; the time to the first chart is printed too.
 *
 * Small drop, amended law (all lines): 2023 expenses 100.1 + 200.2 + 50.05 = 350.35, resources
 * 1000 + 500.5 + 99.999 = 1600.499, balance 1250.149; 2024 expenses 300 + 0.1 + 0.2 = 300.3,
 * resources 800, balance 499.7. Its years (GDP 2022-2024) make 2024 the default year.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { small } from './fixtures/small.js';
import { appFor, appServing, listen, type TestApp } from './helpers/app.js';

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
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()}`));
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
  page.$$eval(`#${figure} details.table tbody tr`, (trs) => trs.map((tr) => [...tr.children].map((cell) => (cell.textContent ?? '').replace(/[\u00a0\u202f]/g, ' ').trim())));

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
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!hasBrowser)('the explorer page in a real browser', () => {
  describe('on the small test drop', () => {
    let t: TestApp;
    let s: Session;
    beforeAll(async () => {
      t = await appFor(small);
      s = await session(t);
    });
    afterAll(async () => {
      await s.close();
      t.close();
    });

    it('opens on the overview of the latest year, with its totals in English, and both charts drawn', async () => {
      await s.page.goto(`${s.base}/?lang=en`);
      await ready(s.page);
      expect(await s.page.$eval('#year', (el) => (el as HTMLSelectElement).value)).toBe('2024');
      expect(await text(s.page, '#totals .summary')).toBe(
        'In 2024, the amended law plans 300.3 MDT of expenses and 800 MDT of resources: a balance of 499.7 MDT.',
      );
      const drawn = await drawnCanvases(s.page);
      expect(drawn).toHaveLength(2);
      for (const pixels of drawn) expect(pixels).toBeGreaterThan(1000);
      expect(query(s.page)).toEqual({ view: 'overview', year: '2024', lang: 'en' });
    });

    it('links every chart to its API URL and CSV, under the drop\'s version', async () => {
      const links = await s.page.$$eval('#totals .provenance a', (as) => as.map((a) => a.getAttribute('href')));
      expect(links).toEqual([
        '/budget/api/totals/?include_complementary=true',
        '/budget/api/totals/?include_complementary=true&format=csv',
        '/budget/api/totals/?include_complementary=false',
        '/budget/api/totals/?include_complementary=false&format=csv',
      ]);
      // The test drop has no source: its description stands in, with its version.
      expect(await text(s.page, '#ratios .provenance p')).toBe('Data: a drop built by a test, version test.');
      const csv = await s.page.evaluate(async (url) => (await fetch(url)).text(), links[1]!);
      expect(csv.split('\r\n')[0]).toBe('year,total_expenses,total_resources,balance');
    });

    it('follows the year chosen with the keyboard alone, and keeps it in the URL', async () => {
      await tabTo(s.page, '#year');
      await s.page.keyboard.press('ArrowDown'); // years run from the latest down: 2024, then 2023
      await s.page.waitForURL(/year=2023/);
      await ready(s.page);
      expect(await text(s.page, '#totals .summary')).toBe(
        'In 2023, the amended law plans 350.35 MDT of expenses and 1,600.499 MDT of resources: a balance of 1,250.149 MDT.',
      );
      // 2023: outstanding debt 1000 of a GDP of 3000 is 33.33%; no deficit row that year.
      expect(await text(s.page, '#ratios .summary')).toBe('In 2023: deficit — of GDP, outstanding debt 33.33% of GDP.');
    });

    it('switches labels and number formats to French, and a reload of the URL restores the view', async () => {
      await s.page.locator('#lang').click();
      await s.page.waitForURL(/lang=fr/);
      await ready(s.page);
      expect(await text(s.page, 'h1')).toBe('Explorateur du budget');
      expect(await s.page.getAttribute('html', 'lang')).toBe('fr');
      expect(await text(s.page, '#totals .summary')).toBe(
        'En 2023, la loi rectifiée prévoit 350,35 MDT de dépenses et 1 600,499 MDT de ressources, soit un solde de 1 250,149 MDT.',
      );
      expect(await text(s.page, '#ratios .summary')).toBe('En 2023 : déficit de — du PIB, encours de la dette de 33,33 % du PIB.');
      await s.page.reload();
      await ready(s.page);
      expect(await s.page.$eval('#year', (el) => (el as HTMLSelectElement).value)).toBe('2023');
      expect(await text(s.page, 'h1')).toBe('Explorateur du budget');
      expect(await text(s.page, '#totals .summary')).toContain('En 2023,');
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
        ['1', "Ministère de l'Éducation", '300.3 MDT', '500.5 MDT'],
        ['2', 'Ministère de la Santé', '50.05 MDT', '0 MDT'],
      ]);
      expect(await text(s.page, '#organization h2')).toBe("Ministère de l'Éducation: budget over the years");
      await s.page.getByRole('button', { name: 'Ministère de la Santé' }).click();
      await s.page.waitForURL(/org=2/);
      await ready(s.page);
      expect(await text(s.page, '#organization h2')).toBe('Ministère de la Santé: budget over the years');
      await s.page.locator('#organization details.table summary').click();
      expect(await rows(s.page, 'organization')).toEqual([
        ['2023', '50.05 MDT', '0 MDT'],
        ['2024', '300 MDT', '800 MDT'],
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
        expect(await s.page.$$eval('#measure option', (options) => options.map((o) => (o as HTMLOptionElement).value))).toEqual(['nominal', 'pct_gdp']);
        await s.page.selectOption('#measure', 'pct_gdp');
        await s.page.waitForURL(/measure=pct_gdp/);
        await ready(s.page);
        expect(await s.page.getAttribute('#totals .provenance a.api-url', 'href')).toContain('measure=pct_gdp');
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
    ] as const)('draws every view with no error at %s width, and saves screenshots', async (name, viewport) => {
      const s = await session(t, viewport);
      try {
        const started = Date.now();
        await s.page.goto(`${s.base}/`);
        await ready(s.page);
        const firstChart = await s.page.evaluate(() => performance.getEntriesByName('explorer:first-chart')[0]?.startTime);
        console.log(`explorer, ${name}: first chart drawn ${firstChart?.toFixed(0)} ms after navigation start (${Date.now() - started} ms to ready, as seen by the test)`);
        expect(firstChart).toBeGreaterThan(0);
        for (const view of VIEWS) {
          await s.page.getByRole('button', { name: new RegExp(`^(${{ overview: 'Overview|Vue', expenses: 'Expenses|Dépenses', resources: 'Resources|Ressources', organizations: 'Organizations|Organismes', debt: 'Debt|Dette' }[view]})`) }).first().click();
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
    }, 60_000);
  });
});
