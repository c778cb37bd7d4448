/**
 * Where a cached answer's time goes: runs the built server under `node --cpu-prof`, drives one hot
 * URL with the bench's lean client (blast.ts), then sums the profile's self time per package (and per function), and the
 * total time under express-rate-limit's middleware.
 *
 *   npm run build && tsx scripts/bench/profile.ts [--rate-limit 1000000000] [--duration 10] [--url /budget/api/...] [--data dir]
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../../src/data/sql.js';
import { blast } from './blast.js';
import { startService } from './service.js';

const ROOT = projectRoot();
const { values: args } = parseArgs({
  options: {
    'rate-limit': { type: 'string', default: '1000000000' },
    duration: { type: 'string', default: '10' },
    url: { type: 'string', default: '/budget/api/expenses/?year=2010&limit=100' },
    data: { type: 'string', default: path.join(ROOT, '.bench', 'drops', 'scale-750') },
    'accept-encoding': { type: 'string' },
    connections: { type: 'string', default: '20' },
  },
});

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const dir = mkdtempSync(path.join(tmpdir(), 'cpu-prof-'));
const { child, port } = await startService(args.data, args['rate-limit'], ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
const headers = args['accept-encoding'] ? { 'accept-encoding': args['accept-encoding'] } : undefined;
const result = await blast(port, [args.url], Number(args.duration), Number(args.connections), headers);
const exited = new Promise((resolve) => child.once('exit', resolve));
child.kill('SIGTERM');
await exited;
console.log(`${args.url} rate limit ${args['rate-limit']}: ${result.rps.toFixed(0)} req/s, ${result.errors} errors`);
const requests = result.requests;

const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))!;
const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...self].filter(([id]) => ['(idle)', '(program)'].includes(byId.get(id)!.callFrame.functionName)).reduce((a, [, t]) => a + t, 0);

/** The package (or `node:` internals, or the app's own code) a frame belongs to. */
function where(url: string): string {
  if (!url) return '(native/gc)';
  if (url.startsWith('node:')) return 'node internals';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/dist\/(src\/[^:]+)/.exec(url);
  return own ? own[1]! : url;
}
const sum = (key: (n: Node) => string) => {
  const out = new Map<string, number>();
  for (const [id, t] of self) {
    const n = byId.get(id)!;
    if (['(idle)', '(program)'].includes(n.callFrame.functionName)) continue;
    const k = key(n);
    out.set(k, (out.get(k) ?? 0) + t);
  }
  return [...out].sort((a, b) => b[1] - a[1]);
};
const busy = total - idle;
/** Share of the busy time, and microseconds per request (startup included, so only compare long runs). */
const pct = (t: number) => `${((100 * t) / busy).toFixed(1).padStart(5)}% ${(t / requests).toFixed(1).padStart(6)} µs/req`;
console.log(`\nbusy ${(busy / 1e6).toFixed(1)} s of ${(total / 1e6).toFixed(1)} s profiled; self time by package:`);
for (const [k, t] of sum((n) => where(n.callFrame.url)).slice(0, 14)) console.log(`  ${pct(t)}  ${k}`);
console.log('\nself time by function:');
for (const [k, t] of sum((n) => `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`).slice(
  0,
  25,
)) {
  console.log(`  ${pct(t)}  ${k}`);
}

/**
 * Time spent in a layer's own work: walking up from each sample, the first frame that belongs to
 * the layer or to code it hands on to (the router's next, the app's handlers) decides. So the
 * rate limiter's share excludes the middleware it calls next() into.
 */
const ROUTER = /node_modules\/(router|express)\//;
const OWN = /\/dist\/src\//;
const RATE_LIMIT = /node_modules\/express-rate-limit\//;
function within(layer: RegExp, others: RegExp[]): [number, Map<string, number>] {
  let t = 0;
  const top = new Map<string, number>();
  for (const [id, time] of self) {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { url } = byId.get(at)!.callFrame;
      if (layer.test(url)) {
        t += time;
        const leaf = byId.get(id)!.callFrame;
        const name = `${leaf.functionName || '(anonymous)'} ${where(leaf.url)}:${leaf.lineNumber + 1}`;
        top.set(name, (top.get(name) ?? 0) + time);
        break;
      }
      if (others.some((other) => other.test(url))) break;
    }
  }
  return [t, top];
}
const [limiter, limiterTop] = within(RATE_LIMIT, [ROUTER, OWN]);
console.log(`
express-rate-limit's own work (calls below it included, the middleware after it excluded): ${pct(limiter)}`);
for (const [k, t] of [...limiterTop].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${pct(t)}  ${k}`);
const [router] = within(ROUTER, [RATE_LIMIT, OWN]);
console.log(`express and its router's own work: ${pct(router)}`);
const [own] = within(OWN, [RATE_LIMIT, ROUTER]);
console.log(`the service's own code (cache lookup, headers, sending): ${pct(own)}`);
