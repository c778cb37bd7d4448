/**
 * What a rejected drop reports: each broken rule with its file, how many rows break it and a few
 * of them. Shared by the load sequence (drop.ts), the column checks (columns.ts) and the rules.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { jsonText } from '../domain/json.js';
import { plainValue } from './values.js';

export interface Problem {
  file: string;
  rule: string;
  /** A code of the error catalogue, for problems a client may act on (control_total_mismatch). */
  code?: string;
  /** How many rows break the rule (1 for file-level problems). */
  count: number;
  /** Up to five offending rows. */
  examples: Record<string, unknown>[];
  /** The server path the rule is about: said on stderr and in the log, never in /meta/. */
  where?: string;
  /** The entry of drop.json's `notes` the problem is about, by its index (build names its line of notes.csv instead). */
  note?: number;
  /** The entry of drop.json's `control_totals` the problem is about, by its index, and its total (build names its line and column of control_totals.csv instead). */
  controlTotal?: { index: number; column: string };
}

/** The rule broken, preceded by the drop.json entry it is about, if any: `notes[1] refers to …`, `control_totals: total_expenses of …`. */
export const ruleOf = (p: Problem): string =>
  p.note !== undefined ? `notes[${p.note}] ${p.rule}` : p.controlTotal !== undefined ? `control_totals: ${p.rule}` : p.rule;

export class DropError extends Error {
  constructor(readonly problems: Problem[]) {
    super(problems.length ? describeProblem(problems[0]!) : 'invalid drop');
  }

  /** What /meta/ may show of it: the first problem without any server path (security review, finding 7). */
  get publicReason(): string {
    return this.problems.length ? describeProblem({ ...this.problems[0]!, where: undefined }) : 'invalid drop';
  }
}

/** One line for a log or /meta/: the file, the rule, how many rows and the first offending row. */
export function describeProblem(p: Problem): string {
  const rows = p.examples.length ? `; offending row: ${jsonText(p.examples[0])}` : '';
  const count = p.count > 1 ? ` (${p.count} rows)` : '';
  const where = p.where === undefined ? '' : ` (${p.where})`;
  return `${p.file}: ${ruleOf(p)}${count}${where}${codeOf(p)}${rows}`;
}

/** A problem's code of the error catalogue, said after its rule: ` [control_total_mismatch]`. */
export const codeOf = (p: Problem): string => (p.code === undefined ? '' : ` [${p.code}]`);

const EXAMPLES = 5;

/** The rows `sql` selects, which break `rule`: how many, and the first few as examples; null when none. */
export async function offendingRows(connection: DuckDBConnection, sql: string, file: string, rule: string): Promise<Problem | null> {
  const reader = await connection.runAndReadAll(`SELECT *, count(*) OVER () AS __count FROM (${sql}) LIMIT ${EXAMPLES}`);
  const rows = reader.getRowObjects();
  if (!rows.length) return null;
  return { file, rule, count: Number(rows[0]!.__count), examples: rows.map(({ __count, ...row }) => plainRow(row)) };
}

export function fileProblem(file: string, rule: string, where?: string): Problem {
  return { file, rule, count: 1, examples: [], ...(where === undefined ? {} : { where }) };
}

export function plainRow(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plainValue(v)]));
}
