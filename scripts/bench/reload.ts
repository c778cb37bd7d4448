/**
 * A reload under load, for `npm run bench -- --reload`: the built service on one drop, a light
 * steady stream of requests (cached answers and uncached pages of lines), then the drop directory
 * re-pointed to a second drop and SIGHUP. Measures the start-up's load + validate time, the
 * process's peak RSS from the signal until the change summary is worked out (VmHWM, reset just
 * before the signal), and the RSS the service serves from afterwards.
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { startService } from './service.js';

export interface ReloadFigures {
  loadMs: number;
  /** RSS serving the first drop, 5 s after start-up. */
  servingBeforeMb: number;
  /** Peak RSS from SIGHUP until the change summary is known. */
  peakMb: number;
  /** RSS serving the second drop, 5 s after its change summary. */
  servingAfterMb: number;
  reloadMs: number;
  requests: number;
  failed: number;
}

const vm = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function reloadUnderLoad(first: string, second: string): Promise<ReloadFigures> {
  // DATA_DIR is gen/drop, gen a symlink re-pointed from g1 to g2: the file watch does not see the
  // flip, so the one reload is SIGHUP's.
  const work = mkdtempSync(path.join(tmpdir(), 'bench-reload-'));
  for (const [name, dir] of [
    ['g1', first],
    ['g2', second],
  ] as const) {
    mkdirSync(path.join(work, name));
    symlinkSync(path.resolve(dir), path.join(work, name, 'drop'));
  }
  symlinkSync(path.join(work, 'g1'), path.join(work, 'gen'));
  const service = await startService(path.join(work, 'gen', 'drop'), '0');
  const pid = service.child.pid!;
  const base = `http://127.0.0.1:${service.port}`;
  try {
    const loadMs = Number(/"ms":(\d+)[^\n]*"msg":"data drop loaded"/.exec(service.stderr())?.[1]);
    await sleep(5000);
    const servingBeforeMb = vm(pid, 'VmRSS');
    const meta = async () => (await (await fetch(`${base}/budget/api/meta/`)).json()) as { version: string; changes: unknown; years: number[] };
    const { version, years } = await meta();

    // Two connections on the same few cached answers, two on pages of lines nobody asked before.
    const cached = ['/budget/api/totals/', `/budget/api/expenses/?year=${years[0]}&limit=100`, `/budget/api/organization/?year=${years.at(-1)}`];
    let n = 0;
    const uncached = () => `/budget/api/expenses/?year=${years[n % years.length]}&offset=${(n++ * 7919) % 200_000}&limit=20`;
    let finished!: (result: autocannon.Result) => void;
    const done = new Promise<autocannon.Result>((resolve) => (finished = resolve));
    const load = autocannon(
      {
        url: base,
        connections: 4,
        duration: 3600,
        requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: n % 2 ? cached[n++ % cached.length]! : uncached() }) }],
      },
      (_error, result) => finished(result),
    );
    await sleep(3000);

    // Writing 5 to clear_refs resets VmHWM (Linux), so the peak read later is the reload's.
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    const next = path.join(work, 'next');
    symlinkSync(path.join(work, 'g2'), next);
    renameSync(next, path.join(work, 'gen'));
    const signalled = performance.now();
    process.kill(pid, 'SIGHUP');
    let reloadMs = 0;
    for (;;) {
      const now = await meta();
      if (!reloadMs && now.version !== version) reloadMs = performance.now() - signalled;
      if (reloadMs && now.changes) break;
      await sleep(200);
    }
    const peakMb = vm(pid, 'VmHWM');
    load.stop();
    const result = await done;
    await sleep(5000);
    return {
      loadMs,
      servingBeforeMb,
      peakMb,
      servingAfterMb: vm(pid, 'VmRSS'),
      reloadMs,
      requests: result.requests.total,
      failed: result.errors + result.timeouts + result.non2xx,
    };
  } finally {
    const exited = new Promise((resolve) => service.child.once('exit', resolve));
    service.child.kill('SIGTERM');
    await exited;
    rmSync(work, { recursive: true, force: true });
  }
}
