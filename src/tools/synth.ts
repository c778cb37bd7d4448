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
 * gdp, population, cpi, outstanding_debt, deficit and debt rows. Resource lines are scaled like
 * expense lines, in the sample's proportion (67 to 66).
 *
 * With `stages`, the drop has every optional part: lines carry a stage (one in ten an amendment,
 * about a quarter outturn, the rest initial), a source and a derived flag; the series have an
 * initial row every year, an amended one up to the year before last and an outturn up to two
 * years before last; and five sources. Without it, the lines have the complementary flag only.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Manifest } from '../data/manifest.js';
import type { TableName, TableSpec } from '../data/schema.js';
import { typedColumns, writeDropFiles, type TableProgress } from './write.js';

interface SynthOptions {
  expenseLines: number;
  seed: number;
  /** Write stages, sources and provenance columns too. */
  stages?: boolean;
  createdAt?: string;
  onProgress?: (progress: TableProgress) => void;
}

/** The sample drop in data/ has this many lines: `--scale 1` gives about the same. */
export const SAMPLE_EXPENSE_LINES = 66;
const SAMPLE_RESOURCE_LINES = 67;
const FIRST_YEAR = 2000;
const LAST_YEAR = 2025;
const ORGANIZATIONS = 300;
const SOURCES = 5;

/** The series' stages, each with its last year (see the module comment), or one row of no stage. */
const seriesStages = (stages: boolean) =>
  stages
    ? `CREATE TEMP TABLE synth_series_stages AS SELECT * FROM (VALUES ('initial', 0, ${LAST_YEAR}), ('amended', 1, ${LAST_YEAR - 1}),
         ('outturn', 2, ${LAST_YEAR - 2})) AS t(stage, rank, last_year)`
    : `CREATE TEMP TABLE synth_series_stages AS SELECT NULL::VARCHAR AS stage, 0 AS rank, ${LAST_YEAR} AS last_year`;

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

/** A line's stage, agreeing with its complementary flag: amendments are the complementary lines. */
const lineStage = (complementary: string, stage: string) =>
  `CASE WHEN ${draw(complementary, 10)} = 0 THEN 'amendment' WHEN ${draw(stage, 4)} = 0 THEN 'outturn' ELSE 'initial' END`;

/** A series row's source: one per stage. */
const seriesSource = `CASE s.stage WHEN 'initial' THEN 1 WHEN 'amended' THEN 2 WHEN 'outturn' THEN 3 END AS source_id, false AS derived`;

/** One SELECT per table of the drop format (tsc refuses a table left out); `$lines` is the table's line count where it has one. */
const ROWS: Record<TableName, string> = {
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
           ${draw('complementary', 10)} = 0 AS complementary,
           ${lineStage('complementary', 'stage')} AS stage,
           1 + ${draw('source', SOURCES)} AS source_id,
           ${draw('derived', 20)} = 0 AS derived
    FROM range($lines) r(i), (SELECT ids FROM synth_leaves WHERE type = 'expense') leaves`,
  resources: `
    SELECT i + 1 AS id, ${FIRST_YEAR} + ${draw('resource year', LAST_YEAR - FIRST_YEAR + 1)} AS year,
           ${amount('resource amount', 200_000_000)} AS amount,
           leaves.ids[1 + ${draw('resource category', 1_000_000_007)} % len(leaves.ids)] AS category_id,
           CASE WHEN ${draw('resource organization', 3)} = 0 THEN NULL ELSE 1 + ${draw('resource organization id', ORGANIZATIONS)} END AS organization_id,
           ${draw('resource complementary', 10)} = 0 AS complementary,
           ${lineStage('resource complementary', 'resource stage')} AS stage,
           1 + ${draw('resource source', SOURCES)} AS source_id,
           ${draw('resource derived', 20)} = 0 AS derived
    FROM range($lines) r(i), (SELECT ids FROM synth_leaves WHERE type = 'resource') leaves`,
  debt_origins: `
    SELECT * FROM (VALUES
      (1, NULL, 'Dette intérieure'), (2, NULL, 'Dette extérieure'),
      (3, 1, 'Bons du Trésor'), (4, 1, 'Emprunt national'), (5, 1, 'Dépôts et consignations'), (6, 1, 'Autres dettes intérieures'),
      (7, 2, 'Multilatérale'), (8, 2, 'Bilatérale'), (9, 2, 'Marché financier international'), (10, 2, 'Autres dettes extérieures')
    ) AS t(id, parent_id, name)`,
  // Each stage's figure differs from the initial one by a few points (rank 0, or no stage, keeps the figure it always had).
  debt: `
    SELECT g.year, o.id AS debt_origin_id, round(g.gdp * (0.02 + (hash($seed, 'debt', g.year, o.id) + s.rank * 7) % 100 / 1000), 3) AS value,
           s.stage, ${seriesSource}
    FROM synth_gdp g JOIN synth_series_stages s ON g.year <= s.last_year, range(3, 11) o(id) ORDER BY g.year, o.id, s.rank`,
  gdp: `SELECT year, gdp, NULL AS source_id, false AS derived FROM synth_gdp ORDER BY year`,
  outstanding_debt: `
    SELECT g.year, round(g.gdp * (0.35 + (hash($seed, 'outstanding', g.year) + s.rank * 11) % 450 / 1000), 3) AS outstanding_debt,
           s.stage, ${seriesSource}, NULL AS published_percent
    FROM synth_gdp g JOIN synth_series_stages s ON g.year <= s.last_year ORDER BY g.year, s.rank`,
  deficit: `
    SELECT g.year, round(g.gdp * (0.01 + (hash($seed, 'deficit', g.year) + s.rank * 5) % 60 / 1000), 3) AS value,
           s.stage, ${seriesSource}, NULL AS published_percent
    FROM synth_gdp g JOIN synth_series_stages s ON g.year <= s.last_year ORDER BY g.year, s.rank`,
  sources: `
    SELECT i AS id,
           ['Loi de finances', 'Loi de finances complémentaire', 'Rapport d''exécution du budget', 'Bulletin de la dette publique',
            'Cadre budgétaire à moyen terme'][i] || ' (synthetic)' AS title,
           'https://example.org/synthetic/source-' || i AS url,
           'Ministère des Finances (synthetic)' AS publisher,
           (${LAST_YEAR} - i)::VARCHAR || '-12-31' AS published,
           NULL::VARCHAR AS quote
    FROM range(1, ${SOURCES + 1}) r(i)`,
  population: `
    SELECT year, round(9500000 * pow(1.011, year - ${FIRST_YEAR})) AS population, NULL AS source_id, false AS derived FROM range(${FIRST_YEAR}, ${LAST_YEAR + 1}) r(year)`,
  cpi: `
    SELECT year, round(100 * pow(1.05, year - ${FIRST_YEAR}) * (0.99 + hash($seed, 'cpi', year) % 20 / 1000), 3) AS index,
           NULL AS source_id, false AS derived
    FROM range(${FIRST_YEAR}, ${LAST_YEAR + 1}) r(year)`,
};

const resourceLinesFor = (expenseLines: number): number => Math.round((expenseLines * SAMPLE_RESOURCE_LINES) / SAMPLE_EXPENSE_LINES);

export async function synthDrop(outDir: string, { expenseLines, seed, stages = false, createdAt, onProgress }: SynthOptions): Promise<Manifest> {
  const resourceLines = resourceLinesFor(expenseLines);
  let prepared = false;
  const writeTable = async (connection: DuckDBConnection, table: TableSpec & { name: TableName }, target: string) => {
    if (!prepared) {
      for (const statement of [...PREPARE, seriesStages(stages)]) await connection.run(statement, boundIn(statement, { seed }));
      prepared = true;
    }
    if (table.name === 'sources' && !stages) return false;
    const sql = ROWS[table.name];
    const lines = table.name === 'expenses' ? expenseLines : resourceLines;
    const params = boundIn(sql, { seed, lines });
    // Without stages, the drop has the columns it always had: lines with their complementary flag.
    const columns = stages ? table.columns : table.columns.filter((c) => c.absent === undefined || c.name === 'complementary');
    await connection.run(`COPY (SELECT ${typedColumns(columns)} FROM (${sql})) TO $out (FORMAT parquet)`, { ...params, out: target });
    return true;
  };
  return writeDropFiles(
    outDir,
    {
      version: `synthetic-${expenseLines}-lines-seed-${seed}${stages ? '-stages' : ''}`,
      description:
        `SYNTHETIC data, not real budget figures: generated by budget-data synth (seed ${seed}) with ` +
        `${expenseLines} expense lines and ${resourceLines} resource lines over ${FIRST_YEAR}–${LAST_YEAR}, ` +
        `${ORGANIZATIONS} organizations and pseudo-random amounts${stages ? ', in three stages with sources' : ''}, to try the service at scale.`,
      source: 'budget-data synth',
      license: 'CC0-1.0 (generated data)',
      units: { name: 'MDT', currency: 'TND', scale: 1_000_000 },
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
