/**
 * Starting the servers a benchmark measures, and waiting until they listen: the built service and
 * the ceilings (ceiling.ts), and the CPU time a process has used. Shared by the benchmarks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../src/data/sql.js';

const ROOT = projectRoot();

export interface Running {
  child: ChildProcess;
  port: number;
  stderr: () => string;
}

export function spawnAndWait(
  command: string,
  argv: string[],
  env: NodeJS.ProcessEnv,
  port: (out: string, err: string) => number | null,
): Promise<Running> {
  const child = spawn(command, argv, { cwd: ROOT, env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  // Once listening, the output is drained unread: the request log's lines must cost the bench nothing.
  let listening = false;
  return new Promise((resolve, reject) => {
    const check = () => {
      const found = port(out, err);
      if (found) {
        listening = true;
        resolve({ child, port: found, stderr: () => err });
      }
    };
    child.stdout!.on('data', (c) => listening || ((out += c), check()));
    child.stderr!.on('data', (c) => listening || ((err += c), check()));
    child.on('exit', (code) => reject(new Error(`${command} ${argv.join(' ')} exited ${code}: ${err}`)));
  });
}

/** The built service on a free loopback port; `nodeArgs` go before the script (e.g. --cpu-prof), `env` adds to its environment. */
export function startService(dataDir: string, rateLimit: string, nodeArgs: string[] = [], env: Record<string, string> = {}): Promise<Running> {
  return spawnAndWait(
    process.execPath,
    [...nodeArgs, 'dist/src/server.js'],
    // Releases kept in a temporary directory of their own, not in the checkout (docs/api.md#releases).
    {
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      RATE_LIMIT: rateLimit,
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      RELEASES_DIR: mkdtempSync(path.join(tmpdir(), 'budget-bench-releases-')),
      ...env,
    },
    (_out, err) => Number(/"port":(\d+)[^\n]*"msg":"listening"/.exec(err)?.[1]) || null,
  );
}

/** CPU time of a process so far (user + system, all its threads), from /proc (Linux), in µs. */
export function cpuUs(pid: number | undefined): number {
  const { user, system } = cpuSplitUs(pid);
  return user + system;
}

/** The same, apart: time in the process's own code (user) and in the kernel on its behalf (system), µs. */
export function cpuSplitUs(pid: number | undefined): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime, fields 14 and 15 of stat, in clock ticks (100 a second on Linux).
  return { user: Number(fields[11]) * 10_000, system: Number(fields[12]) * 10_000 };
}
