/**
 * Places a drop can be published, on loopback, started by the test: a real S3 protocol server
 * (s3rver) and a plain static HTTP server that can be told to fail the ways networks fail.
 */
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export interface S3Server {
  endpoint: string;
  port: number;
  /** Object keys in the order they were written. */
  written: string[];
  stop(): Promise<void>;
}

/** s3rver on 127.0.0.1 with the bucket `bucket`, keeping its objects in `directory` (so a restart keeps them). */
export async function startS3(
  bucket: string,
  directory = mkdtempSync(path.join(tmpdir(), 's3rver-')),
  port = 0,
): Promise<S3Server & { directory: string }> {
  const server = new S3rver({ address: '127.0.0.1', port, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  writtenBeforeAnswering(server);
  const written: string[] = [];
  (server as unknown as import('node:events').EventEmitter).on('event', (event: { Records: { s3: { object: { key: string } } }[] }) =>
    written.push(event.Records[0]!.s3.object.key),
  );
  const address = (await server.run()) as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    port: address.port,
    directory,
    written,
    stop: async () => {
      (server as unknown as { httpServer: Server }).httpServer.closeAllConnections();
      await server.close();
    },
  };
}

interface ObjectStore {
  putObject(object: { bucket: string; key: string }): Promise<{ size: number; md5: string }>;
  getResourcePath(bucket: string, key: string, resource: 'object'): string;
}

/**
 * s3rver 3.7.1 answers a PutObject once the bytes have gone through its MD5, before its file of
 * them is written (lib/stores/filesystem.js, putObject resolves on the hashing stream's 'finish'):
 * a GetObject right after could read the file half written. Under CI's load, a drop uploaded file
 * by file, then read back by the server under test, failed its sha256 check on a file the test had
 * not broken (test/remote-drop.test.ts, on 2026-11-29). Real S3 reads back what a PutObject wrote;
 * so does this server once each put waits until its file holds the bytes it hashed.
 */
function writtenBeforeAnswering(server: S3rver): void {
  const store = (server as unknown as { store: ObjectStore }).store;
  const put = store.putObject.bind(store);
  store.putObject = async (object) => {
    const stored = await put(object);
    const file = store.getResourcePath(object.bucket, object.key, 'object');
    for (let waited = 0; waited < 5_000; waited += 5) {
      const bytes = await readFile(file).catch(() => Buffer.alloc(0));
      if (createHash('md5').update(bytes).digest('hex') === stored.md5) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return stored;
  };
}

/**
 * How the static server answers a .parquet file: whole; `cut` sends the headers with the full
 * Content-Length, half the bytes, then drops the connection (a server that disappears
 * mid-download); `short` sends half the bytes with no Content-Length and ends normally.
 */
export type Serving = 'whole' | 'cut' | 'short';

export interface StaticServer {
  base: string;
  serving: Serving;
  /** File names answered with a 302 to the given URL. */
  redirects: Map<string, string>;
  /** The file names asked for, in order. */
  requests: string[];
  stop(): Promise<void>;
}

/** A plain HTTP server for the files in `dir`. */
export async function startStatic(dir: string): Promise<StaticServer> {
  const state: StaticServer = { base: '', serving: 'whole', redirects: new Map(), requests: [], stop: async () => {} };
  const server = createServer((req, res) => {
    const name = path.basename(decodeURIComponent(new URL(req.url!, 'http://x').pathname));
    state.requests.push(name);
    const redirect = state.redirects.get(name);
    if (redirect && !req.url!.includes('/moved/')) {
      res.writeHead(302, { Location: redirect }).end();
      return;
    }
    const file = path.join(dir, name);
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      res.writeHead(404).end('not found');
      return;
    }
    const mode = file.endsWith('.parquet') ? state.serving : 'whole';
    if (mode === 'whole') {
      res.writeHead(200, { 'Content-Length': size });
      createReadStream(file).pipe(res);
      return;
    }
    const half = createReadStream(file, { end: Math.floor(size / 2) - 1 });
    res.writeHead(200, mode === 'cut' ? { 'Content-Length': size } : {});
    half.on('data', (chunk) => res.write(chunk));
    half.on('end', () => (mode === 'cut' ? res.socket?.destroy() : res.end()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/drops/current/`;
  state.stop = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return state;
}
