/**
 * Builds the explorer page (web/explorer/) into dist/explorer/: one minified script and one
 * stylesheet bundled by esbuild from the sources and npm packages (Chart.js), with content
 * hashes in their names so the server can tell browsers to keep them forever, and index.html
 * rewritten to point at them. `npm run build` runs it after tsc; the tests run it before they
 * start (test/helpers/build-explorer.ts).
 *
 * Run directly (`node dist/scripts/build-explorer.js`) it also prints the page's weight gzipped.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { projectRoot } from '../src/data/sql.js';
import { EXPLORER_ASSETS_PATH, EXPLORER_DIR } from '../src/api/explorer.js';

export interface BuiltExplorer {
  dir: string;
  /** Every file the page loads, with its size raw and gzipped. */
  files: { name: string; bytes: number; gzipBytes: number }[];
}

export async function buildExplorer(outDir = EXPLORER_DIR): Promise<BuiltExplorer> {
  const source = path.join(projectRoot(), 'web', 'explorer');
  // A fresh folder each time: stale hashed files from an earlier build must not be served.
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const result = await build({
    entryPoints: { explorer: path.join(source, 'main.ts') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2020'],
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    outdir: outDir,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const built = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const script = built.find((name) => name.endsWith('.js'));
  const style = built.find((name) => name.endsWith('.css'));
  if (!script || !style) throw new Error(`the explorer build made no script or no stylesheet: ${built.join(', ')}`);

  const icon = readFileSync(path.join(source, 'favicon.svg'));
  const iconName = `favicon-${createHash('sha256').update(icon).digest('hex').slice(0, 8)}.svg`;
  writeFileSync(path.join(outDir, iconName), icon);

  // The explorer, and the page of one chart alone for an iframe: one <head> (head.html, from its
  // <head> on, indented as the pages' children), the same script and stylesheet.
  const headFile = readFileSync(path.join(source, 'head.html'), 'utf8');
  const head = headFile
    .slice(headFile.indexOf('<head>'))
    .trimEnd()
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
  for (const page of ['index.html', 'embed.html']) {
    const html = readFileSync(path.join(source, page), 'utf8')
      .replace('  <!-- head.html -->', head)
      .replaceAll('{{script}}', EXPLORER_ASSETS_PATH + script)
      .replaceAll('{{style}}', EXPLORER_ASSETS_PATH + style)
      .replaceAll('{{icon}}', EXPLORER_ASSETS_PATH + iconName);
    writeFileSync(path.join(outDir, page), html);
  }

  const files = ['index.html', script, style, iconName].map((name) => {
    const bytes = readFileSync(path.join(outDir, name));
    return { name, bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length };
  });
  return { dir: outDir, files };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { dir, files } = await buildExplorer();
  const total = files.reduce((sum, f) => sum + f.gzipBytes, 0);
  console.log(
    `explorer page built in ${path.relative(process.cwd(), dir)}: ${files.map((f) => `${f.name} ${(f.gzipBytes / 1024).toFixed(1)} KB`).join(', ')}; ${(total / 1024).toFixed(1)} KB gzipped in all`,
  );
}
