/**
 * What kept releases cost (docs/performance.md#releases): the server's RSS serving a synthetic
 * drop with no release kept, then with 19 older releases of the same size kept in RELEASES_DIR,
 * idle, then while older releases are queried (each opened from its files on first use).
 *
 * Usage: npm run build && npx tsx scripts/measure-releases.ts [LINES] (default 1000000)
 *
 * The 19 older releases are the synthetic drop's files under other versions, written into
 * RELEASES_DIR with served times one minute apart, as the server would have kept them after 19
 * reloads (making them by 19 real reloads only takes longer; what the server does with a kept
 * release, open it from its files, is the same).
 */
import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const lines = Number(process.argv[2] ?? 1_000_000);
const ROOT = path.resolve(import.meta.dirname, '..');
const work = mkdtempSync(path.join(tmpdir(), 'budget-measure-releases-'));
const mb = (kb: number) => `${Math.round(kb / 1024)} MB`;

function synth(): string {
  const dir = path.join(work, 'synth');
  const started = performance.now();
  execFileSync(process.execPath, [path.join(ROOT, 'dist/src/cli.js'), 'synth', dir, '--lines', String(lines), '--seed', '1'], { stdio: 'ignore' });
  console.log(`synth ${lines} lines: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return dir;
}

/** A copy of the drop at `from` labelled `version`. */
function copyAs(from: string, to: string, version: string): Record<string, unknown> {
  mkdirSync(to, { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(from, 'drop.json'), 'utf8'));
  for (const name of Object.keys(manifest.files)) copyFileSync(path.join(from, name), path.join(to, name));
  manifest.version = version;
  writeFileSync(path.join(to, 'drop.json'), JSON.stringify(manifest, null, 2));
  return manifest;
}

function status(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)![1]);
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

async function serve(dataDir: string, releasesDir: string, label: string, work: (base: string, pid: number) => Promise<void>): Promise<void> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/src/server.js')], {
    env: {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      RELEASES_DIR: releasesDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMIT: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  try {
    for (;;) {
      const ready = await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    console.log(`${label}: /readyz 200 ${((performance.now() - started) / 1000).toFixed(1)} s after spawn (load + validate)`);
    // Let the first release's copy finish and the allocator settle.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    console.log(`${label}: idle after start-up, RSS ${mb(status(child.pid!).rss)}`);
    await work(base, child.pid!);
    console.log(`${label}: peak RSS (VmHWM) ${mb(status(child.pid!).hwm)}`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const QUERIES = [
  'totals/',
  'expenses/?year=2010&limit=100',
  'expenses/?limit=100&offset=5000',
  'budget-categories/?year=2020',
  'organization/stats/?year=2015',
  'deficit/',
];

async function ask(base: string, prefix: string): Promise<number> {
  const started = performance.now();
  for (let round = 0; round < 5; round++) {
    for (const query of QUERIES) {
      const res = await fetch(`${base}${prefix}${query}`);
      if (res.status !== 200) throw new Error(`${prefix}${query}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
  }
  return performance.now() - started;
}

try {
  const drop = synth();
  const current = path.join(work, 'current');
  copyAs(drop, current, 'synthetic-r20');

  await serve(current, path.join(work, 'no-releases'), 'no older release kept', async (base, pid) => {
    await ask(base, '/budget/api/');
    console.log(`no older release kept: after 30 queries of the current release, RSS ${mb(status(pid).rss)}`);
  });

  const releasesDir = path.join(work, 'releases');
  const t0 = Date.now() - 60 * 60_000;
  for (let i = 1; i <= 19; i++) {
    const version = `synthetic-r${String(i).padStart(2, '0')}`;
    const dir = path.join(releasesDir, version);
    const manifest = copyAs(drop, dir, version) as { created_at: string; files: unknown };
    const at = (k: number) => new Date(t0 + k * 60_000).toISOString();
    // The fingerprint is worked out again when the server reads the directory.
    writeFileSync(
      path.join(dir, 'release.json'),
      JSON.stringify({
        version,
        created_at: manifest.created_at,
        fingerprint: '',
        files: manifest.files,
        served: [{ from: at(i), until: at(i + 1) }],
        changes: null,
      }),
    );
  }
  const disk = execFileSync('du', ['-sm', releasesDir], { encoding: 'utf8' }).split('\t')[0];
  console.log(`RELEASES_DIR with 19 older releases: ${disk} MB on disk`);

  await serve(current, releasesDir, '19 older releases kept', async (base, pid) => {
    await ask(base, '/budget/api/');
    console.log(`19 older releases kept: after 30 queries of the current release, RSS ${mb(status(pid).rss)}`);
    for (const version of ['synthetic-r05', 'synthetic-r05', 'synthetic-r10', 'synthetic-r15', 'synthetic-r05']) {
      const ms = await ask(base, `/budget/api/releases/${version}/`);
      console.log(
        `19 older releases kept: 30 queries of ${version} in ${Math.round(ms)} ms (the first opens it when not open), RSS ${mb(status(pid).rss)}`,
      );
    }
  });
} finally {
  rmSync(work, { recursive: true, force: true });
}
