/** The server as a real process (`src/server.ts` under tsx), for what only a process shows: signals, exit codes, logs. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Started {
  child: ChildProcess;
  exit: Promise<{ code: number | null; stderr: string }>;
}

/**
 * Starts the server on a free loopback port, logging at info, rate limiting off unless `env` says
 * otherwise, keeping its releases in a new temporary directory unless RELEASES_DIR is given.
 */
export function start(env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      RATE_LIMIT: '0',
      RELEASES_DIR: mkdtempSync(path.join(tmpdir(), 'budget-releases-')),
      ...env,
    },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  // 'close', not 'exit': the last lines written before exiting may still be in the pipe at 'exit'.
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
  return { child, exit };
}

/** Resolves with the port once the server logs that it listens. */
export function listening({ child }: Started): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk) => {
      seen += chunk;
      const match = /"port":(\d+).*"msg":"listening"/.exec(seen);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', () => reject(new Error(`server exited before listening: ${seen}`)));
  });
}

/** A free loopback port, for a Redis that is not started yet. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
