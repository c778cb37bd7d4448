/**
 * The explorer page over HTTP: an HTML page at / and /budget/ under a strict Content-Security-Policy,
 * whose script and stylesheet (built by the vitest globalSetup, as `npm run build` builds them)
 * have hashed names and are cached for a year. test/explorer-page.test.ts drives it in a browser.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPLORER_DIR } from '../src/api/explorer.js';
import { small } from './fixtures/small.js';
import { appFor, type TestApp } from './helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await appFor(small);
});
afterAll(() => t.close());

/** The asset URLs the page loads, in the order it names them. */
async function assetUrls(): Promise<string[]> {
  const page = await request(t.app).get('/');
  return [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((url) => url.startsWith('/budget/explorer/'));
}

describe('GET / and /budget/', () => {
  it.each(['/', '/budget/', '/budget'])('%s answers the HTML page with a CSP that allows this origin only', async (url) => {
    const res = await request(t.app).get(url);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; " +
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'",
    );
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers.etag).toMatch(/^"[\w-]+"$/);
    expect(res.text).toContain('<main id="view"');
    expect(res.text).not.toMatch(/<script>|<script [^>]*>[^<]/); // no inline script
  });

  it('keeps the explorer unframeable by other sites', async () => {
    const res = await request(t.app).get('/');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  it.each(['/budget/embed/', '/budget/embed'])(
    '%s answers the page of one chart, which any site may frame, under the same strict policy otherwise',
    async (url) => {
      const res = await request(t.app).get(`${url}?view=overview&chart=deficit`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toBe(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; " +
          "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors *",
      );
      expect(res.headers['x-frame-options']).toBeUndefined();
      expect(res.text).toContain('<body data-page="embed">');
      expect(res.text).not.toMatch(/<script>|<script [^>]*>[^<]/);
      const again = await request(t.app).get(url).set('If-None-Match', res.headers.etag!);
      expect(again.status).toBe(304);
      expect(again.headers['content-security-policy']).toContain('frame-ancestors *');
      expect(again.headers['x-frame-options']).toBeUndefined();
    },
  );

  it('answers a matching If-None-Match with a 304, and HEAD with no body', async () => {
    const first = await request(t.app).get('/budget/');
    const again = await request(t.app).get('/').set('If-None-Match', first.headers.etag!);
    expect(again.status).toBe(304);
    const head = await request(t.app).head('/');
    expect(head.status).toBe(200);
    expect(head.text).toBeUndefined();
  });

  it('refuses other methods with a 405 problem', async () => {
    const res = await request(t.app).post('/');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(res.headers['content-type']).toBe('application/problem+json');
  });
});

describe("the page's assets", () => {
  it('are one hashed script, one hashed stylesheet and a hashed icon, all served from this server', async () => {
    const urls = await assetUrls();
    expect(urls.map((url) => url.replace(/-[A-Za-z0-9]{8}\./, '-HASH.')).sort()).toEqual([
      '/budget/explorer/explorer-HASH.css',
      '/budget/explorer/explorer-HASH.js',
      '/budget/explorer/favicon-HASH.svg',
    ]);
  });

  it('are cached for a year as immutable, with their true Content-Type and the common headers', async () => {
    const types: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };
    for (const url of await assetUrls()) {
      const res = await request(t.app).get(url).buffer(true);
      expect(res.status, url).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-type']).toBe(types[path.extname(url)]);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers.etag).toMatch(/^"[\w-]+"$/);
    }
  });

  it('weigh less than 300 KB gzipped, the page included', async () => {
    const files = ['index.html', ...(await assetUrls()).map((url) => path.basename(url))];
    const gzipped = files.reduce((sum, name) => sum + gzipSync(readFileSync(path.join(EXPLORER_DIR, name))).length, 0);
    expect(gzipped).toBeLessThan(300 * 1024);
  });

  it.each(['/budget/explorer/explorer.js', '/budget/explorer/index.html', '/budget/explorer/..%2F..%2Fpackage.json'])(
    'serves nothing else under /budget/explorer/ (%s is a 404 problem)',
    async (url) => {
      const res = await request(t.app).get(url);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe('application/problem+json');
    },
  );

  it('leaves every other unknown path a 404 problem', async () => {
    const res = await request(t.app).get('/budget/elsewhere');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.body.code).toBe('not_found');
  });
});
