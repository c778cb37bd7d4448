/**
 * A synthetic data drop, to try the service and its reload at any size: `synthDrop(outDir, {
 * expenseLines, seed })`. Labelled synthetic in drop.json's version and description.
 *
 * Every row is generated inside DuckDB (range() and hash()) and streamed to Parquet, so ten
 * million lines never exist as JS values. Amounts are pseudo-random from a hash of the seed and
 * the row number: the same seed gives the same files (with the same DuckDB version, whose hash()
 * could change between releases).
 *
 * Shape: 300 organizations; an expense category tree 4 levels deep (~700 nodes) and a resource
 * tree (~200 nodes), lines on the leaves; a 2-level debt-origin tree; every year 2000..2025 with
 * gdp, outstanding_debt, deficit and debt rows. Resource lines are scaled like expense lines, in
 * the sample's proportion (67 to 66).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Manifest } from './manifest.js';
import type { TableSpec } from './schema.js';
import { typedColumns, writeDropFiles, type TableProgress } from './write.js';

interface SynthOptions {
  expenseLines: number;
  seed: number;
  createdAt?: string;
  onProgress?: (progress: TableProgress) => void;
}

/** The sample drop in data/ has this many lines: `--scale 1` gives about the same. */
export const SAMPLE_EXPENSE_LINES = 66;
const SAMPLE_RESOURCE_LINES = 67;
const FIRST_YEAR = 2000;
const LAST_YEAR = 2025;
const ORGANIZATIONS = 300;

/**
 * Helper tables, created once before the first file: the category trees and leaves that lines
 * point to, and GDP, which the debt figures are proportional to. `$seed` is bound.
 */
const PREPARE = [
  `CREATE TEMP TABLE synth_nodes AS
WITH RECURSIVE node(type, path) AS (
  SELECT type, [i] FROM (SELECT 'expense' AS type, unnest(range(8)) AS i UNION ALL SELECT 'resource', unnest(range(5)))
  UNION ALL
  -- Fan-out by level; only some level-3 nodes have children, so leaves sit at depth 3 and 4.
  SELECT type, list_append(path, unnest(range(CASE
    WHEN type = 'expense' THEN [6, 5, CASE WHEN hash($seed, type, path) % 2 = 0 THEN 4 ELSE 0 END][len(path)]
    ELSE [4, 4, CASE WHEN hash($seed, type, path) % 3 = 0 THEN 3 ELSE 0 END][len(path)] END)))
  FROM node WHERE len(path) < 4
)
SELECT row_number() OVER (ORDER BY type, path) AS id, type, path FROM node`,
  `CREATE TEMP TABLE synth_categories AS
SELECT n.id, n.type, p.id AS parent_id,
       CASE n.type
         WHEN 'expense' THEN ['Éducation', 'Santé', 'Défense', 'Intérieur', 'Agriculture', 'Équipement', 'Justice', 'Affaires sociales'][n.path[1] + 1]
         ELSE ['Recettes fiscales', 'Recettes non fiscales', 'Emprunts intérieurs', 'Emprunts extérieurs', 'Dons et legs'][n.path[1] + 1]
       END || CASE len(n.path)
         WHEN 1 THEN ''
         ELSE ' — ' || ['programme', 'action', 'sous-action'][len(n.path) - 1] || ' ' || array_to_string(list_transform(n.path[2:], x -> x + 1), '.')
       END AS name
FROM synth_nodes n LEFT JOIN synth_nodes p ON p.type = n.type AND p.path = n.path[1:len(n.path) - 1]`,
  `CREATE TEMP TABLE synth_leaves AS
SELECT type, list(id ORDER BY id) AS ids FROM synth_categories c
WHERE NOT EXISTS (SELECT 1 FROM synth_categories child WHERE child.parent_id = c.id)
GROUP BY type`,
  `CREATE TEMP TABLE synth_gdp AS
SELECT year, round(30000 * pow(1.06, year - ${FIRST_YEAR}) * (0.97 + hash($seed, 'gdp', year) % 60 / 1000), 3) AS gdp
FROM range(${FIRST_YEAR}, ${LAST_YEAR + 1}) r(year)`,
];

/** A pseudo-random whole number in [0, n) from the seed, a purpose and the row number. */
const draw = (purpose: string, n: number) => `(hash($seed, '${purpose}', i) % ${n})::BIGINT`;
/** Thousandths drawn in [0, n), as an exact 3-decimal amount. */
const amount = (purpose: string, n: number) => `(${draw(purpose, n)} * 0.001)`;

/** One SELECT per table; `$lines` is the table's line count where it has one. */
const ROWS: Record<string, string> = {
  organizations: `
    SELECT i AS id,
           ['Ministère', 'Office', 'Agence', 'Établissement public', 'Direction générale', 'Caisse'][i % 6 + 1] || ' n° ' || i AS name,
           'ORG' || lpad(i::VARCHAR, 3, '0') AS code
    FROM range(1, ${ORGANIZATIONS + 1}) r(i)`,
  categories: `SELECT id, name, type, parent_id FROM synth_categories ORDER BY id`,
  expenses: `
    SELECT i + 1 AS id, ${FIRST_YEAR} + ${draw('year', LAST_YEAR - FIRST_YEAR + 1)} AS year,
           ${amount('amount', 100_000_000)} AS amount,
           leaves.ids[1 + ${draw('category', 1_000_000_007)} % len(leaves.ids)] AS category_id,
           1 + ${draw('organization', ORGANIZATIONS)} AS organization_id,
           ${draw('complementary', 10)} = 0 AS complementary
    FROM range($lines) r(i), (SELECT ids FROM synth_leaves WHERE type = 'expense') leaves`,
  resources: `
    SELECT i + 1 AS id, ${FIRST_YEAR} + ${draw('resource year', LAST_YEAR - FIRST_YEAR + 1)} AS year,
           ${amount('resource amount', 200_000_000)} AS amount,
           leaves.ids[1 + ${draw('resource category', 1_000_000_007)} % len(leaves.ids)] AS category_id,
           CASE WHEN ${draw('resource organization', 3)} = 0 THEN NULL ELSE 1 + ${draw('resource organization id', ORGANIZATIONS)} END AS organization_id,
           ${draw('resource complementary', 10)} = 0 AS complementary
    FROM range($lines) r(i), (SELECT ids FROM synth_leaves WHERE type = 'resource') leaves`,
  debt_origins: `
    SELECT * FROM (VALUES
      (1, NULL, 'Dette intérieure'), (2, NULL, 'Dette extérieure'),
      (3, 1, 'Bons du Trésor'), (4, 1, 'Emprunt national'), (5, 1, 'Dépôts et consignations'), (6, 1, 'Autres dettes intérieures'),
      (7, 2, 'Multilatérale'), (8, 2, 'Bilatérale'), (9, 2, 'Marché financier international'), (10, 2, 'Autres dettes extérieures')
    ) AS t(id, parent_id, name)`,
  debt: `
    SELECT g.year, o.id AS debt_origin_id, round(g.gdp * (0.02 + hash($seed, 'debt', g.year, o.id) % 100 / 1000), 3) AS value
    FROM synth_gdp g, range(3, 11) o(id) ORDER BY g.year, o.id`,
  gdp: `SELECT year, gdp FROM synth_gdp ORDER BY year`,
  outstanding_debt: `
    SELECT year, round(gdp * (0.35 + hash($seed, 'outstanding', year) % 450 / 1000), 3) AS outstanding_debt FROM synth_gdp ORDER BY year`,
  deficit: `SELECT year, round(gdp * (0.01 + hash($seed, 'deficit', year) % 60 / 1000), 3) AS value FROM synth_gdp ORDER BY year`,
};

const resourceLinesFor = (expenseLines: number): number => Math.round((expenseLines * SAMPLE_RESOURCE_LINES) / SAMPLE_EXPENSE_LINES);

export async function synthDrop(outDir: string, { expenseLines, seed, createdAt, onProgress }: SynthOptions): Promise<Manifest> {
  const resourceLines = resourceLinesFor(expenseLines);
  let prepared = false;
  const writeTable = async (connection: DuckDBConnection, table: TableSpec, target: string) => {
    if (!prepared) {
      for (const statement of PREPARE) await connection.run(statement, boundIn(statement, { seed }));
      prepared = true;
    }
    const sql = ROWS[table.name]!;
    const lines = table.name === 'expenses' ? expenseLines : resourceLines;
    const params = boundIn(sql, { seed, lines });
    await connection.run(`COPY (SELECT ${typedColumns(table)} FROM (${sql})) TO $out (FORMAT parquet)`, { ...params, out: target });
  };
  return writeDropFiles(
    outDir,
    {
      version: `synthetic-${expenseLines}-lines-seed-${seed}`,
      description:
        `SYNTHETIC data, not real budget figures: generated by budget-data synth (seed ${seed}) with ` +
        `${expenseLines} expense lines and ${resourceLines} resource lines over ${FIRST_YEAR}–${LAST_YEAR}, ` +
        `${ORGANIZATIONS} organizations and pseudo-random amounts, to try the service at scale.`,
      source: 'budget-data synth',
      license: 'CC0-1.0 (generated data)',
      ...(createdAt === undefined ? {} : { createdAt }),
      ...(onProgress === undefined ? {} : { onProgress }),
    },
    writeTable,
  );
}

/** DuckDB refuses a value for a parameter that the statement does not name. */
function boundIn(sql: string, params: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(params).filter(([name]) => sql.includes(`$${name}`)));
}
