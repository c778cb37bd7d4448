/**
 * A fresh clone has everything it mentions: no tracked file points outside the repository, every
 * relative link of README.md and docs/ reaches a file of the repository (and the heading it names),
 * and every `docs/….md#section` cited anywhere (code comments included) exists.
 *
 * Each check lists its failures per file, so one stray mention names its file and line.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { headingAnchors, linkTargets, slug } from './helpers/markdown.js';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Tracked files, and new ones not ignored yet, as a fresh clone would have them once committed. */
const FILES = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
  .split('\0')
  .filter((file) => file !== '' && existsSync(path.join(ROOT, file)) && statSync(path.join(ROOT, file)).isFile());

const FOLDERS = new Set(
  FILES.flatMap((file) =>
    file
      .split('/')
      .slice(0, -1)
      .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
  ),
);

/** Git's own test for binary content: a NUL byte near the start (Parquet files, images). */
function textOf(file: string): string | null {
  const bytes = readFileSync(path.join(ROOT, file));
  return bytes.subarray(0, 8000).includes(0) ? null : bytes.toString('utf8');
}

const TEXT_FILES = FILES.flatMap((file) => {
  const text = textOf(file);
  return text === null ? [] : [{ file, text }];
});

/**
 * The documentation a reader follows: README.md and docs/*.md. Not docs/_pending/: drafts written
 * to be folded into a docs/ file, whose links name that file's headings.
 */
const MARKDOWN = TEXT_FILES.filter(({ file }) => file === 'README.md' || /^docs\/[^/]+\.md$/.test(file));

// Built from pieces, so that this file does not mention them itself.
const OUTSIDE = [['..', 'shared'].join('/'), ['shared', 'reference-data'].join('/'), ['shared', 'CONTRACT'].join('/')];
const CONTRACT_MENTIONS = [new RegExp(['contract', '\\s*(section|§)\\s*\\d'].join(''), 'i'), new RegExp(['\\bthe', 'contract\\b'].join(' '), 'i')];

/** Problems per file: `{file: ["line 3: ..."]}`, files without problems left out. */
function perFile(check: (file: string, text: string) => string[]): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const { file, text } of TEXT_FILES) {
    const problems = check(file, text);
    if (problems.length) found[file] = problems;
  }
  return found;
}

/** `line N: <the line>` for every line matching one of `patterns`. */
function linesMatching(text: string, patterns: (string | RegExp)[]): string[] {
  return text
    .split('\n')
    .flatMap((line, i) =>
      patterns.some((p) => (typeof p === 'string' ? line.includes(p) : p.test(line))) ? [`line ${i + 1}: ${line.trim().slice(0, 160)}`] : [],
    );
}

const anchorsByFile = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let anchors = anchorsByFile.get(file);
  if (!anchors) anchorsByFile.set(file, (anchors = headingAnchors(readFileSync(path.join(ROOT, file), 'utf8'))));
  return anchors;
}

/** Why `target` (relative to the repository root, maybe with #anchor) does not resolve, or null. */
function unresolved(target: string): string | null {
  const [pathPart, anchor] = target.split('#') as [string, string | undefined];
  const file = path.posix.normalize(decodeURIComponent(pathPart)).replace(/\/$/, '');
  if (file.startsWith('..')) return 'is outside the repository';
  if (!FILES.includes(file) && !FOLDERS.has(file)) return 'is not a file of the repository';
  if (anchor && file.endsWith('.md') && !anchorsOf(file).has(anchor)) return `has no heading #${anchor}`;
  return null;
}

describe('the repository', () => {
  it('has tracked files to check, Markdown among them', () => {
    expect(FILES).toContain('README.md');
    expect(MARKDOWN.map((m) => m.file)).toContain('README.md');
  });

  it('mentions no path outside itself in any tracked text file', () => {
    expect(perFile((_file, text) => linesMatching(text, OUTSIDE))).toEqual({});
  });

  it('cites its own docs rather than an outside contract', () => {
    expect(perFile((_file, text) => linesMatching(text, CONTRACT_MENTIONS))).toEqual({});
  });
});

describe('README.md and docs/', () => {
  it('link only to files of the repository and to headings that exist', () => {
    const found: Record<string, string[]> = {};
    for (const { file, text } of MARKDOWN) {
      const problems = linkTargets(text).flatMap(({ target, line }) => {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return []; // https:, mailto:: not files of the repository
        const resolved = target.startsWith('#') ? `${file}${target}` : path.posix.join(path.posix.dirname(file), target);
        const why = unresolved(resolved);
        return why ? [`line ${line}: ${target} ${why}`] : [];
      });
      if (problems.length) found[file] = problems;
    }
    expect(found).toEqual({});
  });
});

describe('citations of docs/…', () => {
  it('name files and sections of docs/ that exist, wherever they are cited', () => {
    expect(
      perFile((_file, text) =>
        text.split('\n').flatMap((line, i) => {
          const cited = new Set([...line.matchAll(/(?<![\w/.-])docs\/[\w./-]+\.md(#[\w-]+)?/g)].map(([citation]) => citation));
          return [...cited].flatMap((citation) => {
            const why = unresolved(citation);
            return why ? [`line ${i + 1}: ${citation} ${why}`] : [];
          });
        }),
      ),
    ).toEqual({});
  });
});

describe('the Markdown reader these checks rely on', () => {
  it('gives headings the anchors GitHub gives them', () => {
    expect(slug('drop.json')).toBe('dropjson');
    expect(slug('The budget-data CLI')).toBe('the-budget-data-cli');
    expect(slug('Caching and ETags')).toBe('caching-and-etags');
    expect(slug('1. Write the CSV files')).toBe('1-write-the-csv-files');
    expect(slug('`GET /budget/api/` — the index')).toBe('get-budgetapi--the-index');
    expect([...headingAnchors('# A\n## Totals\n```\n# not a heading\n```\n### Totals\n')]).toEqual(['a', 'totals', 'totals-1']);
  });

  it('finds link targets outside code, with their lines', () => {
    const markdown = 'See [the API](docs/api.md#paging) and `[not](a-link.md)`.\n```\n[no](x.md)\n```\n![img](a.png "title")';
    expect(linkTargets(markdown)).toEqual([
      { target: 'docs/api.md#paging', line: 1 },
      { target: 'a.png', line: 5 },
    ]);
  });
});
