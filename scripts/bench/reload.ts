/**
 * A reload under load, for `npm run bench -- --reload`: the built service on one drop, a light
 * steady stream of requests (cached answers and uncached pages of lines), then the drop directory
 * re-pointed to a second drop and SIGHUP. Measures the start-up's load + validate time, the
 * process's peak RSS from the signal until the change summary is worked out (VmHWM, reset just
 * before the signal), and the RSS the service serves from afterwards. Then, with no load, two
 * more reloads (back to the first drop, and to the second again) and the RSS serving after each:
 * memory freed by the serving drop once another database had closed once stayed with the process,
 * 0.69-1.96 GB from one reload to the next (docs/performance.md#memory-given-back-after-a-reload-2026-11-29).
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
  /** RSS serving after each of the reloads in a row with no load, 5 s after its change summary. */
  servingAfterReloadsMb: number[];
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
    /** Re-points the drop directory to `generation`, sends SIGHUP, and waits for the new version and its change summary. */
    const reloadTo = async (generation: 'g1' | 'g2', from: string): Promise<number> => {
      const next = path.join(work, 'next');
      symlinkSync(path.join(work, generation), next);
      renameSync(next, path.join(work, 'gen'));
      const signalled = performance.now();
      process.kill(pid, 'SIGHUP');
      let swappedMs = 0;
      for (;;) {
        const now = await meta();
        if (!swappedMs && now.version !== from) swappedMs = performance.now() - signalled;
        if (swappedMs && now.changes) return swappedMs;
        await sleep(200);
      }
    };
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
    const reloadMs = await reloadTo('g2', version);
    const peakMb = vm(pid, 'VmHWM');
    load.stop();
    const result = await done;
    await sleep(5000);
    const servingAfterMb = vm(pid, 'VmRSS');
    const servingAfterReloadsMb: number[] = [];
    for (const generation of ['g1', 'g2'] as const) {
      await reloadTo(generation, (await meta()).version);
      await sleep(5000);
      servingAfterReloadsMb.push(vm(pid, 'VmRSS'));
    }
    return {
      loadMs,
      servingBeforeMb,
      peakMb,
      servingAfterMb,
      servingAfterReloadsMb,
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
