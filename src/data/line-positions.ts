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
import { DuckDBTypeId, type DuckDBConnection, type DuckDBVector } from '@duckdb/node-api';
import { LINES_OF, STAGES } from '../domain/stages.js';
import { HIGH_HALF, int64Halves, setTypedItems, typedItems, validBits } from './vectors.js';

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
 * Stores the lines of `table`, the rows of `source` (a query of the lines as loaded, in the
 * table's column order), with their position columns. Lines stored in strictly increasing id
 * order, as `budget-data build` and `synth` write them, are numbered as they are stored, in one
 * pass (numberAsStored); any other drop is stored, then numbered by DuckDB's windows
 * (numberWithWindows). `reader` is a second connection to the same database: the pass reads the
 * lines on it while it appends them on `connection`. Returns whether the ids were seen strictly
 * increasing, which proves them unique.
 */
export async function storeLines(connection: DuckDBConnection, reader: DuckDBConnection, table: LinesTable, source: string): Promise<boolean> {
  if (await numberAsStored(connection, reader, table, source)) return true;
  await connection.run(`CREATE OR REPLACE TABLE ${table} AS ${source}`);
  await numberWithWindows(connection, table);
  return false;
}

/**
 * Rebuilds `table` from `lines` (the table, or a query of it) with the position columns of the
 * tables `joins` sets beside it, positionally. Each row's id is checked against theirs (`inStep`),
 * so that a scan out of step fails the statement instead of misplacing a position.
 */
function rebuildBeside(connection: DuckDBConnection, table: LinesTable, lines: string, joins: string, inStep: string, positions: readonly string[]) {
  return connection.run(
    `CREATE OR REPLACE TABLE ${table} AS
     SELECT lines.* REPLACE (CASE WHEN ${inStep} THEN lines.id ELSE error('${table}: positions out of step with the lines') END AS id),
            ${positions.join(', ')}
     FROM ${lines} AS lines${joins}`,
  );
}

/**
 * Stores `table` in one pass over `source` as read: each chunk of lines is read with its position
 * columns already there (0 where a stage counts the line, null elsewhere), the positions written
 * into them from a running count per stage and per grouping value, and the chunk itself appended
 * to the table. No copy of the lines is made to be numbered, and none to be joined to their
 * positions: 10M expense lines took 8.1 s this way, against 12.5 s to store them (1.0 s), number
 * them into a table of positions (5.5 s) and rebuild them beside it with a positional join (6.0 s),
 * which DuckDB runs on one thread. Returns false, leaving no table behind, unless the ids strictly
 * increase as read (which also proves them unique) and no grouping value is null or past an
 * INTEGER: a drop that fails its checks anyway, or one the windows number.
 */
async function numberAsStored(connection: DuckDBConnection, reader: DuckDBConnection, table: LinesTable, source: string): Promise<boolean> {
  const groupings = GROUPINGS[table];
  const zeros = STAGES.flatMap((stage) => groupings.map(({ suffix }) => `CASE WHEN ${counts(stage)} THEN 0 END::INTEGER AS ${stage}_position${suffix}`));
  const lines = `SELECT *, ${zeros.join(', ')} FROM (${source})`;
  await connection.run(`CREATE OR REPLACE TABLE ${table} AS ${lines} LIMIT 0`);
  const appender = await connection.createAppender(table);
  const result = await reader.stream(lines);
  const names = result.columnNames();
  const idAt = names.indexOf('id');
  const keyAt = groupings.map(({ by }) => (by ? names.indexOf(by) : -1));
  const firstPosition = names.length - zeros.length;
  const counters = groupings.map(() => new RunningCounts(STAGES.length));
  let lastHigh = -Infinity;
  let lastLow = -Infinity;
  let next = result.fetchChunk();
  let stored = false;
  try {
    for (let chunk = await next; chunk && chunk.rowCount > 0; chunk = await next) {
      next = result.fetchChunk(); // DuckDB reads the next chunk while this one is numbered
      const rows = chunk.rowCount;
      const idColumn = chunk.getColumnVector(idAt);
      if (validBits(idColumn, rows)) return false;
      const ids = int64Halves(typedItems(idColumn, rows, 'int64'));
      for (let row = 0; row < rows; row++) {
        const high = ids[2 * row + HIGH_HALF]!;
        const low = ids[2 * row + 1 - HIGH_HALF]! >>> 0;
        if (!(high > lastHigh || (high === lastHigh && low > lastLow))) return false;
        lastHigh = high;
        lastLow = low;
      }
      const indexes: Int32Array[] = [];
      for (let g = 0; g < groupings.length; g++) {
        const values = keyAt[g]! < 0 ? undefined : groupingValues(chunk.getColumnVector(keyAt[g]!), rows);
        if (values === null) return false;
        indexes.push(counters[g]!.indexesOf(values, rows));
      }
      for (let s = 0, column = firstPosition; s < STAGES.length; s++) {
        // The stage counts the lines whose first position column of the stage is not null.
        const counted = validBits(chunk.getColumnVector(column), rows);
        for (let g = 0; g < groupings.length; g++, column++) {
          const positions = new Int32Array(rows);
          const at = indexes[g]!;
          for (let row = 0; row < rows; row++) if (!counted || (counted[row >>> 5]! >>> (row & 31)) & 1) positions[row] = counters[g]!.next(s, at[row]!);
          setTypedItems(chunk.getColumnVector(column), positions);
        }
      }
      appender.appendDataChunk(chunk);
    }
    appender.closeSync();
    stored = true;
    return true;
  } finally {
    if (!stored) {
      reader.interrupt();
      await next.catch(() => undefined);
      appender.closeSync();
      await connection.run(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}

/** A grouping's values (years, organization ids) as INTEGERs, or null when one is null or past an INTEGER. */
function groupingValues(vector: DuckDBVector, rows: number): Int32Array | null {
  if (validBits(vector, rows)) return null;
  if (vector.type.typeId === DuckDBTypeId.INTEGER) return typedItems(vector, rows, 'int32');
  const halves = int64Halves(typedItems(vector, rows, 'int64'));
  const values = new Int32Array(rows);
  for (let row = 0; row < rows; row++) {
    const low = halves[2 * row + 1 - HIGH_HALF]!;
    if (halves[2 * row + HIGH_HALF] !== low >> 31) return null;
    values[row] = low;
  }
  return values;
}

/** Per stage, a running count for each value of a grouping (a year, an organization), by the value's index. */
class RunningCounts {
  private readonly indexes = new Map<number, number>();
  private counts: Int32Array[];

  constructor(stages: number) {
    this.counts = Array.from({ length: stages }, () => new Int32Array(64));
  }

  /** The index of each of `values`' first `rows` values, a new one for a value not seen yet; all 0 without values (the whole table). */
  indexesOf(values: Int32Array | undefined, rows: number): Int32Array {
    const indexes = new Int32Array(rows);
    if (!values) return indexes;
    for (let row = 0; row < rows; row++) {
      let index = this.indexes.get(values[row]!);
      if (index === undefined) {
        index = this.indexes.size;
        this.indexes.set(values[row]!, index);
        if (index === this.counts[0]!.length) this.counts = this.counts.map((counts) => growTo(counts, index! * 2));
      }
      indexes[row] = index;
    }
    return indexes;
  }

  /** The next position of stage `s` among the lines of the value at `index`. */
  next(s: number, index: number): number {
    return ++this.counts[s]![index]!;
  }
}

function growTo(counts: Int32Array, length: number): Int32Array {
  const grown = new Int32Array(length);
  grown.set(counts);
  return grown;
}

/**
 * Rebuilds `table` with its positions numbered by DuckDB's windows. Each grouping's positions are
 * numbered apart, on the few columns they need, into a table in id order; then all are set beside
 * the lines in id order (positional joins). Numbering every grouping in one statement made DuckDB carry every column
 * through each window's sort (10M expense lines: 24.5 s against 15.4 s apart). Lines stored in id
 * order already, as `budget-data build` and `synth` write them, are not sorted again (10M lines:
 * 1.5 s of CPU against 4.3 s); either way every row's id is checked against the numbered ones, so
 * a scan that did not keep the stored order fails the load instead of misplacing a position.
 */
async function numberWithWindows(connection: DuckDBConnection, table: LinesTable): Promise<void> {
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
  const rebuild = (lines: string) => rebuildBeside(connection, table, lines, joins, inStep, positionColumns(table));
  const sorted = `(SELECT * FROM ${table} ORDER BY id)`;
  const unsorted = await connection.runAndReadAll(`SELECT count(*) FROM (SELECT id, lag(id) OVER () AS previous FROM ${table}) WHERE previous > id`);
  if (Number(unsorted.getRows()[0]![0]) > 0) await rebuild(sorted);
  else await rebuild(table).catch(() => rebuild(sorted)); // stored order not kept by the scan (or null ids): sorted after all
  for (const { suffix } of groupings) await connection.run(`DROP TABLE ${temp(suffix)}`);
}
