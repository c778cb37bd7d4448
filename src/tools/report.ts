/**
 * What the data CLI prints: validation reports (stdout) and per-table progress (stderr).
 */
import type { LoadedDrop } from '../data/drop.js';
import { codeOf, ruleOf, type Problem } from '../data/problems.js';
import type { Manifest } from '../data/manifest.js';
import type { TableProgress } from './write.js';
import { jsonText } from '../domain/json.js';
import { printable, printableLines } from './terminal.js';

const count = (n: number) => n.toLocaleString('en-US');
const seconds = (s: number) => `${s.toFixed(1)} s`;

/** Every broken rule: file, rule, number of offending rows, then up to five example rows. */
export function problemReport(dir: string, problems: Problem[]): string {
  const lines = [`invalid: ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'} in ${dir}`];
  for (const p of problems) {
    const rows = p.examples.length
      ? ` (${count(p.count)} ${p.count === 1 ? 'row' : 'rows'}${p.examples.length < p.count ? `, first ${p.examples.length}` : ''}):`
      : '';
    lines.push(`${p.file}: ${ruleOf(p)}${p.where === undefined ? '' : ` (${p.where})`}${codeOf(p)}${rows}`);
    for (const example of p.examples) lines.push(`    ${jsonText(example)}`);
  }
  return printableLines(lines);
}

/** A refused build: the version refused and every problem, already in the analyst's terms. */
export function refusedReport(version: string, problems: string[]): string {
  return [
    `refused "${version}": ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}${problems.length >= 20 ? ' (the first 20)' : ''}`,
    ...problems,
  ].join('\n');
}

export function validSummary(drop: LoadedDrop, elapsed: number): string {
  return printable(
    `valid: "${drop.manifest.version}" in ${drop.dir}; ${rowCounts(drop.manifest)}; years ${yearRange(drop.years)}; fingerprint ${drop.fingerprint} (${seconds(elapsed)})`,
  );
}

/** The line a command that wrote a drop ends with: `built "v1" in out/ in 1.2 s: organizations 3, ...`. */
export function writtenSummary(verb: 'built' | 'wrote', manifest: Manifest, dir: string, elapsed: number): string {
  return printable(`${verb} "${manifest.version}" in ${dir} in ${seconds(elapsed)}: ${rowCounts(manifest)}`);
}

function rowCounts(manifest: Manifest): string {
  return Object.entries(manifest.files)
    .map(([file, { rows }]) => `${file.replace(/\.parquet$/, '')} ${count(rows)}`)
    .join(', ');
}

function yearRange(years: number[]): string {
  return years.length ? `${years[0]}–${years[years.length - 1]}` : 'none';
}

/**
 * Progress on stderr: on a terminal, one line per table rewritten in place while it runs; in a
 * log (not a terminal), a line at most every 10 s, so that a long build still shows life.
 */
export function progressPrinter(stream: NodeJS.WriteStream = process.stderr): (p: TableProgress) => void {
  const tty = stream.isTTY === true;
  let lastLogged = 0;
  return (progress) => {
    const p = { ...progress, file: printable(progress.file) };
    if (p.done) {
      const rate = p.seconds > 0 ? `, ${count(Math.round(p.rows / p.seconds))} rows/s` : '';
      stream.write(`${tty ? '\r\x1b[K' : ''}${p.file.padEnd(26)} ${count(p.rows).padStart(12)} rows in ${seconds(p.seconds)}${rate}\n`);
      lastLogged = 0;
      return;
    }
    const line = `${p.file.padEnd(26)} ${p.step} ${p.percent.toFixed(0)}% (${seconds(p.seconds)})`;
    if (tty) stream.write(`\r\x1b[K${line}`);
    else if (p.seconds - lastLogged >= 10) {
      stream.write(`${line}\n`);
      lastLogged = p.seconds;
    }
  };
}
