/**
 * The data rules of docs/data-drops.md#rules, as data: each names its file and rule, and gives the SQL
 * that finds the offending rows in the loaded tables. Shared by startup, reload and the CLI.
 * Column presence, types, missing values and non-finite numbers are checked earlier, per column,
 * in drop.ts: these rules can rely on well-typed tables.
 */
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

const exists = (table: string, column: string, target: string, key: string): Rule => ({
  file: `${table}.parquet`,
  rule: `${column} must refer to an existing ${target}.${key}`,
  sql: `SELECT t.* FROM ${table} t WHERE t.${column} IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM ${target} x WHERE x.${key} = t.${column}) ORDER BY ALL`,
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

export const RULES: readonly Rule[] = [
  unique('organizations', 'id'),
  unique('organizations', 'code'),
  unique('categories', 'id'),
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
  unique('expenses', 'id'),
  exists('expenses', 'category_id', 'categories', 'id'),
  categoryOfType('expenses', 'expense'),
  exists('expenses', 'organization_id', 'organizations', 'id'),
  unique('resources', 'id'),
  exists('resources', 'category_id', 'categories', 'id'),
  categoryOfType('resources', 'resource'),
  exists('resources', 'organization_id', 'organizations', 'id'),
  unique('debt_origins', 'id'),
  exists('debt_origins', 'parent_id', 'debt_origins', 'id'),
  acyclic('debt_origins'),
  exists('debt', 'debt_origin_id', 'debt_origins', 'id'),
  unique('debt', 'year, debt_origin_id'),
  unique('gdp', 'year'),
  { file: 'gdp.parquet', rule: 'gdp must be greater than 0', sql: `SELECT year, gdp FROM gdp WHERE gdp <= 0 ORDER BY year` },
  unique('outstanding_debt', 'year'),
  gdpForYear('outstanding_debt'),
  unique('deficit', 'year'),
  gdpForYear('deficit'),
];
