/**
 * The ceilings the service is measured against: a server that answers the very bytes the real
 * service answered for each URL, doing no work at all. `express` is the framework's ceiling,
 * `http` the bare node:http one. Usage: ceiling.ts express|http answers.json [busy µs] (prints the port).
 *
 * With `busy µs`, each answer first waits that long in a busy loop: a bare server with that much
 * JavaScript work per answer, against which the service's distance to the ceiling is read.
 *
 * The very bytes: the status, the header lines as the service wrote them (names in the same case
 * and order, Content-Length included), and the body. Only Date, Connection and Keep-Alive are
 * left for node to add, as it adds them to the service's answers. An earlier ceiling replayed
 * headers as fetch() gives them (lower-cased, sorted, without Content-Length), so node sent its
 * answer chunked: slightly different bytes for the same content.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';

export interface RecordedAnswer {
  status: number;
  /** Header names and values in turn, as on the wire (node's rawHeaders). */
  rawHeaders: string[];
  /** The body, base64. */
  body: string;
}

const [mode, file, busy] = process.argv.slice(2);
const busyMs = Number(busy ?? 0) / 1000;
const recorded = JSON.parse(readFileSync(file!, 'utf8')) as Record<string, RecordedAnswer>;
const answers = new Map(Object.entries(recorded).map(([url, a]) => [url, { ...a, bytes: Buffer.from(a.body, 'base64') }]));

function answer(req: IncomingMessage, res: ServerResponse): void {
  if (busyMs > 0) {
    const until = performance.now() + busyMs;
    while (performance.now() < until);
  }
  const found = answers.get(req.url ?? '');
  if (!found) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(found.status, found.rawHeaders).end(found.bytes);
}

const server =
  mode === 'express'
    ? (() => {
        const app = express();
        app.disable('x-powered-by');
        app.set('etag', false);
        app.use((req, res) => answer(req, res));
        return createServer(app);
      })()
    : createServer(answer);

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
