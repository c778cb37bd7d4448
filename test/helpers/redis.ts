/**
 * A real redis-server (Debian's `redis-server` package) on a loopback port, started and stopped by
 * the test; nothing is written to disk.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from './server.js';

const BINARY = 'redis-server';

/** Why the Redis tests cannot run here, or null when they can. */
export const redisMissing: string | null =
  spawnSync(BINARY, ['--version']).status === 0 ? null : `${BINARY} is not installed (Debian package redis-server; .ci/run installs it in CI)`;

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Stops the server answering (SIGSTOP) while its connections stay open, as a Redis that stalls. */
  pause(): void;
  resume(): void;
}

/** Starts redis-server on `port` (a free one by default); resolves once it accepts connections. */
export async function startRedis(port?: number): Promise<RedisServer> {
  const p = port ?? (await freePort());
  const child: ChildProcess = spawn(BINARY, ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output.slice(-500)}`)));
  });
  return {
    url: `redis://127.0.0.1:${p}`,
    port: p,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }),
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
  };
}

/** Polls `check` until it holds, or fails after `ms`. */
export async function eventually(check: () => Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
