/**
 * The data rules of docs/data-drops.md#rules, as data: each names its file and rule, and gives
 * the SQL that finds the offending rows in the loaded tables. Shared by startup, reload and the
 * CLI. Column presence, types, missing values and non-finite numbers are checked earlier, per
 * column, in columns.ts: these rules can rely on well-typed tables, with the optional columns and
 * tables a drop leaves out filled in (schema.ts).
 */
import { quotedIdentifier, type DuckDBConnection } from '@duckdb/node-api';
import { roundHalfAway } from '../domain/numbers.js';
import type { Manifest } from './manifest.js';
import type { Problem } from './problems.js';
import { LINE_STAGES, SERIES_STAGES } from '../domain/stages.js';
import { TABLES, type TableName } from './schema.js';
import type { DropShape } from './shape.js';

export interface Rule {
  file: string;
  rule: string;
  /** Returns the offending rows, in a stable order. */
  sql: string;
}

const unique = (table: string, columns: string): Rule => ({
  file: `${table}.parquet`,
  rule: `(${columns}) must be unique`,
  sql: `SELECT ${columns}, count(*) AS occurrences FROM ${table} GROUP BY ${columns} HAVING count(*) > 1 ORDER BY ${columns}`,
});

/**
 * The values missing from the target are found on the one column first; only rows holding one
 * are then read whole. The anti join this replaces read every column of every row (10M lines:
 * 0.6-1.1 s per reference, against 0.07-0.11 s). A null refers to nothing and breaks no rule:
 * `IN` never matches it.
 */
const exists = (table: string, column: string, target: string, key: string): Rule => ({
  file: `${table}.parquet`,
  rule: `${column} must refer to an existing ${target}.${key}`,
  sql: `SELECT t.* FROM ${table} t WHERE t.${column} IN (SELECT ${column} FROM ${table} EXCEPT SELECT ${key} FROM ${target}) ORDER BY ALL`,
});

/**
 * Walking down from the roots reaches every node of a tree, each once (a node has one parent);
 * what the walk never reaches is on a cycle or hangs under one. Nodes whose parent is missing
 * start walks too, since the dangling reference is a rule of its own.
 */
const acyclic = (table: string): Rule => ({
  file: `${table}.parquet`,
  rule: 'parent_id must not form a cycle (rows on or under a cycle)',
  sql: `WITH RECURSIVE reached(id) AS (
          SELECT id FROM ${table} t
          WHERE t.parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM ${table} p WHERE p.id = t.parent_id)
          UNION
          SELECT child.id FROM reached JOIN ${table} child ON child.parent_id = reached.id
        )
        SELECT t.id, t.parent_id FROM ${table} t WHERE t.id NOT IN (SELECT id FROM reached) ORDER BY t.id`,
});

const categoryOfType = (table: string, type: 'expense' | 'resource'): Rule => ({
  file: `${table}.parquet`,
  rule: `category_id must refer to a category of type ${type}`,
  sql: `SELECT t.id, t.category_id, c.type AS category_type FROM ${table} t JOIN categories c ON c.id = t.category_id
        WHERE c.type <> '${type}' ORDER BY t.id`,
});

const gdpForYear = (table: string): Rule => ({
  file: `${table}.parquet`,
  rule: 'every year must have a row in gdp.parquet',
  sql: `SELECT t.year FROM ${table} t WHERE t.year NOT IN (SELECT year FROM gdp) ORDER BY t.year`,
});

const oneOf = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');

const stageIn = (table: string, stages: readonly string[]): Rule => ({
  file: `${table}.parquet`,
  rule: `stage must be one of ${stages.join(', ')}`,
  sql: `SELECT t.* FROM ${table} t WHERE t.stage NOT IN (${oneOf(stages)}) ORDER BY ALL`,
});

/** Without a stage column every row is complementary's stage; with both, they must say the same. */
const complementaryAgrees = (table: string): Rule => ({
  file: `${table}.parquet`,
  rule: "complementary must agree with stage (true for stage 'amendment' only)",
  sql: `SELECT t.* FROM ${table} t WHERE t.complementary <> (t.stage = 'amendment') ORDER BY t.id`,
});

const positive = (table: string, column: string): Rule => ({
  file: `${table}.parquet`,
  rule: `${column} must be greater than 0`,
  sql: `SELECT year, "${column}" FROM ${table} WHERE "${column}" <= 0 ORDER BY year`,
});

/**
 * The rules for a drop of this shape. A rule about an optional column or table the drop leaves
 * out is left out too: what the service fills in cannot break it (a stage from complementary, a
 * null source), and a reload of a drop without them costs what it always did.
 */
export function rulesFor(shape: DropShape, uniqueAlready: ReadonlySet<string>): Rule[] {
  const has = (table: string, column: string) => shape.hasColumn(table, column);
  /**
   * Its key (schema.ts) is unique: with `stage` where the drop has that column; an optional table
   * left out has none, nor a table whose key the load already proved unique (`uniqueAlready`: lines
   * whose ids it read strictly increasing, src/data/line-anchors.ts; 10M lines: 1.3 s apiece).
   */
  const uniqueKey = (name: TableName): Rule[] => {
    const table = TABLES.find((t) => t.name === name)!;
    if ((table.optional && !shape.hasTable(name)) || uniqueAlready.has(name)) return [];
    return [unique(name, table.key.filter((c) => c !== 'stage' || has(name, c)).join(', '))];
  };
  const lineStages = (table: string): Rule[] => [
    ...(has(table, 'stage') ? [stageIn(table, LINE_STAGES)] : []),
    ...(has(table, 'stage') && has(table, 'complementary') ? [complementaryAgrees(table)] : []),
  ];
  const seriesStages = (table: string): Rule[] => (has(table, 'stage') ? [stageIn(table, SERIES_STAGES)] : []);
  const optionalTable = (table: TableName, column: string): Rule[] => [...uniqueKey(table), ...(shape.hasTable(table) ? [positive(table, column)] : [])];
  return [
    ...uniqueKey('organizations'),
    unique('organizations', 'code'),
    ...uniqueKey('categories'),
    {
      file: 'categories.parquet',
      rule: "type must be 'expense' or 'resource'",
      sql: `SELECT id, type FROM categories WHERE type NOT IN ('expense', 'resource') ORDER BY id`,
    },
    exists('categories', 'parent_id', 'categories', 'id'),
    {
      file: 'categories.parquet',
      rule: "a child category must have its parent's type",
      sql: `SELECT c.id, c.type, c.parent_id, p.type AS parent_type FROM categories c JOIN categories p ON p.id = c.parent_id
            WHERE c.type <> p.type ORDER BY c.id`,
    },
    acyclic('categories'),
    ...uniqueKey('expenses'),
    exists('expenses', 'category_id', 'categories', 'id'),
    categoryOfType('expenses', 'expense'),
    exists('expenses', 'organization_id', 'organizations', 'id'),
    ...lineStages('expenses'),
    ...uniqueKey('resources'),
    exists('resources', 'category_id', 'categories', 'id'),
    categoryOfType('resources', 'resource'),
    exists('resources', 'organization_id', 'organizations', 'id'),
    ...lineStages('resources'),
    ...uniqueKey('debt_origins'),
    exists('debt_origins', 'parent_id', 'debt_origins', 'id'),
    acyclic('debt_origins'),
    exists('debt', 'debt_origin_id', 'debt_origins', 'id'),
    ...uniqueKey('debt'),
    ...seriesStages('debt'),
    ...uniqueKey('gdp'),
    positive('gdp', 'gdp'),
    ...uniqueKey('outstanding_debt'),
    ...seriesStages('outstanding_debt'),
    gdpForYear('outstanding_debt'),
    ...uniqueKey('deficit'),
    ...seriesStages('deficit'),
    gdpForYear('deficit'),
    ...uniqueKey('sources'),
    ...optionalTable('population', 'population'),
    ...optionalTable('cpi', 'index'),
    // Every table with figures may name its source.
    ...TABLES.filter((t) => has(t.name, 'source_id')).map((t) => exists(t.name, 'source_id', 'sources', 'id')),
  ];
}

/**
 * The rules drop.json's own figures must meet, once the tables are loaded and derived: every
 * control total is what `totals/?year=Y&stage=S` answers (to half a unit), and every note refers
 * to a row of the drop (docs/data-drops.md#control-totals; notes: docs/data-drops.md#dropjson).
 */
export async function manifestProblems(connection: DuckDBConnection, manifest: Manifest): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const [index, control] of (manifest.control_totals ?? []).entries()) {
    const reader = await connection.runAndReadAll(
      'SELECT round(expenses, 3)::DOUBLE AS expenses, round(resources, 3)::DOUBLE AS resources FROM year_totals WHERE stage = $stage AND year = $year',
      { stage: control.stage, year: control.year },
    );
    const row = reader.getRowObjects()[0];
    for (const [field, column] of [['total_expenses', 'expenses'], ['total_resources', 'resources']] as const) {
      const stated = control[field];
      if (stated === undefined) continue;
      const computed = row ? Number(row[column]) : null;
      if (computed !== null && Math.abs(computed - stated) <= 0.5) continue;
      const difference = computed === null ? null : roundHalfAway(computed - stated, 3);
      const answer = computed === null ? `the drop has no ${control.stage} lines that year` : `the lines add up to ${computed} (difference ${difference! > 0 ? '+' : ''}${difference})`;
      problems.push({
        file: 'drop.json',
        code: 'control_total_mismatch',
        rule: `${field} of ${control.year} (stage ${control.stage}) is ${stated} in the law, but ${answer}`,
        controlTotal: { index, column: field },
        count: 1,
        examples: [{ year: control.year, stage: control.stage, field, stated, computed, difference }],
      });
    }
  }
  for (const [index, note] of (manifest.notes ?? []).entries()) {
    const table = TABLES.find((t) => t.name === note.table);
    if (!table) {
      problems.push(noteProblem(index, `table must be one of ${TABLES.map((t) => t.name).join(', ')}, not "${note.table}"`, note));
      continue;
    }
    // A note names a row by the first column of its table's key: an id, or a series' year.
    const key = table.key[0]!;
    const found = await connection.runAndReadAll(`SELECT 1 FROM ${quotedIdentifier(table.name)} WHERE ${key} = $id LIMIT 1`, { id: note.id });
    if (!found.getRows().length) problems.push(noteProblem(index, `refers to ${table.name} ${key} ${note.id}, which the drop does not have`, note));
    if (note.source_id !== undefined && note.source_id !== null) {
      const source = await connection.runAndReadAll('SELECT 1 FROM sources WHERE id = $id LIMIT 1', { id: note.source_id });
      if (!source.getRows().length) problems.push(noteProblem(index, `source_id ${note.source_id} must refer to an existing sources.id`, note));
    }
  }
  return problems;
}

const noteProblem = (index: number, rule: string, note: unknown): Problem => ({ file: 'drop.json', note: index, rule, count: 1, examples: [note as Record<string, unknown>] });
