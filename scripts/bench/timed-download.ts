/**
 * One download, timed in a process of its own, the bytes read and dropped:
 *
 *   tsx scripts/bench/timed-download.ts URL [ACCEPT_ENCODING]
 *
 * prints {"status","firstByteMs","totalMs","bytes"} as JSON. exports.ts holds a loaded drop and
 * DuckDB in its process; a download timed there waited whenever that process was busy. During the
 * slow "asked again" downloads of one year's Arrow (40-63 ms, where the same file took 7-15 ms and
 * the server used 0-10 ms of CPU), it spent 85-170 ms of CPU on 5-6 of its threads, likely its
 * garbage collector's (2026-11-29). A process that holds nothing else reads at the pace the
 * server sends.
 */
import http from 'node:http';

const [url, encoding = 'identity'] = process.argv.slice(2);
const started = performance.now();
http
  .get(url!, { headers: { 'Accept-Encoding': encoding } }, (res) => {
    let firstByteMs = NaN;
    let bytes = 0;
    res.on('data', (chunk: Buffer) => {
      if (bytes === 0) firstByteMs = performance.now() - started;
      bytes += chunk.length;
    });
    res.on('end', () => {
      const totalMs = performance.now() - started;
      process.stdout.write(JSON.stringify({ status: res.statusCode, firstByteMs, totalMs, bytes }));
    });
  })
  .on('error', (error) => {
    process.stderr.write(`${url}: ${error.message}\n`);
    process.exitCode = 1;
  });
