/**
 * A lean HTTP/1.1 load generator for the throughput bench: keep-alive connections over raw
 * sockets, one request in flight on each, the paths taken in turn, each answer counted when its
 * Content-Length bytes have arrived. What it costs per request is a few string and buffer scans.
 *
 * Why not autocannon: on a 2-core machine the client shares the cores with the server it drives,
 * and autocannon spends about as much CPU on a request as a bare node:http server does to answer
 * it, so every server looked alike (about 10k req/s each on the 22 KB hot answer): the ratio of
 * the service to bare node:http read 0.79-1.08x because both were capped by the client, not by
 * their own work (docs/performance.md, "Cache hits against bare node:http").
 *
 * Every answer must carry Content-Length (the service's cached answers and the ceilings' replays
 * do); one that does not, or a status other than 2xx/3xx, counts as an error.
 */
import net from 'node:net';

export interface BlastResult {
  /** Answers per second over the run. */
  rps: number;
  p50: number;
  p99: number;
  /** Non-2xx/3xx answers, answers without Content-Length, socket errors. */
  errors: number;
  requests: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;

export function blast(
  port: number,
  paths: readonly string[],
  seconds: number,
  connections = 20,
  headers: Record<string, string> = {},
): Promise<BlastResult> {
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const requests = paths.map((p) => Buffer.from(`GET ${p} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${extra}\r\n`, 'latin1'));
  const latencies: number[] = []; // µs
  let done = 0;
  let errors = 0;
  let next = 0;
  let stopping = false;
  const started = process.hrtime.bigint();

  const connection = () =>
    new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.setNoDelay(true);
      let head: Buffer | undefined; // bytes of an answer's head not yet complete
      let body = 0; // body bytes still to come
      let sentAt = 0n;
      const send = () => {
        if (stopping) return socket.end();
        sentAt = process.hrtime.bigint();
        socket.write(requests[next++ % requests.length]!);
      };
      const answered = () => {
        latencies.push(Number((process.hrtime.bigint() - sentAt) / 1000n));
        done++;
        send();
      };
      socket.on('connect', send);
      socket.on('data', (chunk: Buffer) => {
        let at = 0;
        while (at < chunk.length) {
          if (body > 0) {
            const take = Math.min(body, chunk.length - at);
            body -= take;
            at += take;
            if (body === 0) answered();
            continue;
          }
          const data = head ? Buffer.concat([head, chunk.subarray(at)]) : chunk.subarray(at);
          const end = data.indexOf(HEADER_END);
          if (end < 0) {
            head = Buffer.from(data);
            return;
          }
          head = undefined;
          const text = data.toString('latin1', 0, end);
          const status = Number(text.slice(9, 12));
          const length = CONTENT_LENGTH.exec(text);
          if (status < 200 || status >= 400 || !length) errors++;
          if (!length) return socket.destroy();
          // `data` may be a copy (head + chunk): continue in the chunk from the same place.
          const consumed = end + 4 - (data.length - (chunk.length - at));
          at += consumed;
          body = Number(length[1]);
          if (body === 0) answered();
        }
      });
      socket.on('error', () => errors++);
      socket.on('close', () => resolve());
    });

  const all = Array.from({ length: connections }, connection);
  const timer = setTimeout(() => (stopping = true), seconds * 1000);
  return Promise.all(all).then(() => {
    clearTimeout(timer);
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    const sorted = Float64Array.from(latencies).sort();
    const at = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! / 1000 : NaN);
    return {
      rps: done / elapsed,
      p50: at(0.5),
      p99: at(0.99),
      errors,
      requests: done,
    };
  });
}
