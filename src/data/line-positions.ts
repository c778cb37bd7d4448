/**
 * The position columns of the lines tables: each line's position (1, 2, ...) in id order among
 * the lines each stage counts (src/domain/stages.ts), overall, in its year and, for expenses, in
 * its organization; null for a stage that does not count it. A page at any depth is then a range
 * that DuckDB's zone maps find without sorting the lines before it (sql/derive/line_page.sql,
 * sql/expenses_of_organization.sql). The positions of one stage are increasing in id
 * and null elsewhere, so each column's zone maps stay tight. INTEGER positions: a drop of 2^31
 * lines would not fit in memory anyway.
 *
 * Written from the stage vocabulary rather than as .sql files, so that a stage added there gets
 * its columns. Only constants of the code go into the SQL.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { LINES_OF, STAGES } from '../domain/stages.js';

export type LinesTable = 'expenses' | 'resources';

export const isLinesTable = (table: string): table is LinesTable => table === 'expenses' || table === 'resources';

/** What positions are counted within: the whole table, a year, an organization (expenses only). */
const GROUPINGS: Readonly<Record<LinesTable, readonly { by: string | null; suffix: string }[]>> = {
  expenses: [
    { by: null, suffix: '' },
    { by: 'year', suffix: '_in_year' },
    { by: 'organization_id', suffix: '_in_organization' },
  ],
  resources: [
    { by: null, suffix: '' },
    { by: 'year', suffix: '_in_year' },
  ],
};

/** The lines `stage` counts, as a condition on a line's own stage. */
const counts = (stage: (typeof STAGES)[number]) => `stage IN (${LINES_OF[stage].map((line) => `'${line}'`).join(', ')})`;

/**
 * The partition that puts together the lines `stage` counts: a stage that counts one line stage
 * shares the window partitioned by line stage (one sort gives all of those); a stage that counts
 * several gets a window of its own. Each window is a sort of the whole table: fewer windows, a
 * faster load.
 */
function partitionOf(stage: (typeof STAGES)[number]): string {
  const lines = LINES_OF[stage];
  return lines.length === 1 ? 'stage' : counts(stage);
}


/** The position columns of `table`, in the order the table keeps them (stage by stage). */
export function positionColumns(table: LinesTable): string[] {
  return STAGES.flatMap((stage) => GROUPINGS[table].map(({ suffix }) => `${stage}_position${suffix}`));
}

/**
 * Rebuilds `table` with its positions. Each grouping's positions are numbered apart, on the few
 * columns they need, into a table in id order; then all are set beside the lines in id order
 * (positional joins). Numbering every grouping in one statement made DuckDB carry every column
 * through each window's sort (10M expense lines: 24.5 s against 15.4 s apart). Lines stored in id
 * order already, as `budget-data build` and `synth` write them, are not sorted again (10M lines:
 * 1.5 s of CPU against 4.3 s); either way every row's id is checked against the numbered ones, so
 * a scan that did not keep the stored order fails the load instead of misplacing a position.
 */
export async function addPositions(connection: DuckDBConnection, table: LinesTable): Promise<void> {
  const groupings = GROUPINGS[table];
  const temp = (suffix: string) => `${table}_positions${suffix || '_overall'}`;
  for (const { by, suffix } of groupings) {
    const windows = STAGES.map(
      (stage) =>
        `CASE WHEN ${counts(stage)} THEN row_number() OVER (PARTITION BY ${partitionOf(stage)}${by ? `, ${by}` : ''} ORDER BY id) END::INTEGER AS ${stage}_position${suffix}`,
    );
    await connection.run(`CREATE OR REPLACE TEMP TABLE ${temp(suffix)} AS SELECT id, ${windows.join(', ')} FROM ${table} ORDER BY id`);
  }
  const inStep = groupings.map(({ suffix }) => `lines.id IS NOT DISTINCT FROM ${temp(suffix)}.id`).join(' AND ');
  const joins = groupings.map(({ suffix }) => ` POSITIONAL JOIN ${temp(suffix)}`).join('');
  const rebuild = (lines: string) =>
    connection.run(
      `CREATE OR REPLACE TABLE ${table} AS
       SELECT lines.* REPLACE (CASE WHEN ${inStep} THEN lines.id ELSE error('${table}: positions out of step with the lines') END AS id),
              ${positionColumns(table).join(', ')}
       FROM ${lines} AS lines${joins}`,
    );
  const sorted = `(SELECT * FROM ${table} ORDER BY id)`;
  const unsorted = await connection.runAndReadAll(`SELECT count(*) FROM (SELECT id, lag(id) OVER () AS previous FROM ${table}) WHERE previous > id`);
  if (Number(unsorted.getRows()[0]![0]) > 0) await rebuild(sorted);
  else await rebuild(table).catch(() => rebuild(sorted)); // stored order not kept by the scan (or null ids): sorted after all
  for (const { suffix } of groupings) await connection.run(`DROP TABLE ${temp(suffix)}`);
}
