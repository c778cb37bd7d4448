/**
 * A fresh process runs its first requests on code V8 has not compiled yet and on pooled DuckDB
 * connections not opened yet: its first full export sent its first byte after 45-60 ms, where later
 * ones took 14-29 ms, and its first page took 32 ms, later ones 1-2 ms (docs/performance.md,
 * "Warmed before it listens"). So before the server listens, the process asks itself what first
 * users ask: every data endpoint, a page, and the start of each full export, every line and one
 * year's. A download is dropped after its first bytes: what is warmed is the way to them.
 *
 * The requests go to an app of their own over a loopback port of its own, so nothing a client sees
 * carries a trace of them: no rate limit counted, no request log line, no answer cached, no export
 * file kept. They share the drop, its connections and the code.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createHttpServer } from './listener.js';

/** How long one warm-up request may take. */
const WAIT_MS = 10_000;

export interface WarmUp {
  requests: number;
  ms: number;
  /** Requests answered with a 5xx, or not at all: a bug the first user would have met. */
  failed: string[];
}

/** The requests a first user is likeliest to make, of these endpoints (api/endpoints), for a drop with these years. */
export function warmUpPaths(endpoints: readonly { path: string; paged: boolean }[], years: readonly number[]): string[] {
  const year = years[Math.floor(years.length / 2)];
  const paths = endpoints.map((endpoint) => endpoint.path);
  const paged = endpoints.filter((endpoint) => endpoint.paged);
  for (const endpoint of paged) {
    paths.push(`${endpoint.path}?limit=5&offset=5`);
    if (year !== undefined) paths.push(`${endpoint.path}?year=${year}&limit=5&offset=5`);
  }
  // The formats' code is the same for every endpoint's exports; one endpoint's warm it. A year's
  // export may be small enough to be made another way than every line's (api/pipeline.ts).
  for (const format of paged.length > 0 ? ['csv', 'arrow', 'parquet'] : []) {
    paths.push(`${paged[0]!.path}?format=${format}`);
    if (year !== undefined) paths.push(`${paged[0]!.path}?year=${year}&format=${format}`);
  }
  return paths;
}

/** Asks `app` for each path in turn, on a loopback port open only meanwhile. */
export async function warmUp(app: Express, paths: readonly string[]): Promise<WarmUp> {
  const started = performance.now();
  const server = createHttpServer(app);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // One connection for all: each request is answered before the next is asked.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const failed: string[] = [];
  try {
    for (const path of paths) {
      const status = await firstBytes(`http://127.0.0.1:${port}${path}`, agent);
      if (status >= 500 || status === 0) failed.push(`${path}: ${status}`);
    }
  } finally {
    agent.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  return { requests: paths.length, ms: performance.now() - started, failed };
}

/** The answer's status, once its first bytes (or all of a short one) have come; a download is then dropped. */
function firstBytes(url: string, agent: http.Agent): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent }, (res) => {
      const status = res.statusCode ?? 0;
      if (res.headers['content-disposition']?.startsWith('attachment')) {
        res.once('data', () => {
          request.destroy();
          resolve(status);
        });
      } else res.resume();
      res.once('end', () => resolve(status));
      res.once('error', () => resolve(status));
    });
    // A request that hangs would keep the server from ever listening: it counts as failed instead.
    request.setTimeout(WAIT_MS, () => request.destroy());
    request.once('error', () => resolve(0));
  });
}
