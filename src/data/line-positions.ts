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
import { DOUBLE, DuckDBDataChunk, INTEGER, type DuckDBConnection } from '@duckdb/node-api';
import { LINE_STAGES, LINES_OF, STAGES } from '../domain/stages.js';
import { setTypedItems, typedItems } from './vectors.js';

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
 * Adds the position columns to `table`, rebuilt. Lines stored in strictly increasing id order, as
 * `budget-data build` and `synth` write them, are numbered in one pass as stored (numberAsStored);
 * any other drop by DuckDB's windows (numberWithWindows). `reader` is a second connection to the
 * same database: the pass reads the lines on it while it appends their positions on `connection`.
 * Returns whether the ids were seen strictly increasing, which proves them unique.
 */
export async function addPositions(connection: DuckDBConnection, reader: DuckDBConnection, table: LinesTable): Promise<boolean> {
  if (!(await numberAsStored(connection, reader, table))) {
    await numberWithWindows(connection, table);
    return false;
  }
  try {
    const positions = positionColumns(table).map((column) => `NULLIF(positions.${column}, 0) AS ${column}`);
    await rebuildBeside(connection, table, table, ` POSITIONAL JOIN ${positionsTable(table)} AS positions`, 'lines.id::DOUBLE = positions.id', positions);
  } catch {
    await numberWithWindows(connection, table); // the scan did not keep the order the pass read
  } finally {
    await connection.run(`DROP TABLE IF EXISTS ${positionsTable(table)}`);
  }
  return true;
}

const positionsTable = (table: LinesTable) => `${table}_positions`;

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

/** The pass reads ids as doubles, exact up to here, and grouping values (years, organizations) as INTEGER. */
const EXACT_IN_A_DOUBLE = Number.MAX_SAFE_INTEGER;
const INTEGER_MAX = 2 ** 31 - 1;

/**
 * Numbers the positions of `table` in one pass over its lines as stored: a running count per stage
 * and per grouping value, appended to a temporary table in the same order, a position of 0 where
 * the stage does not count the line. DuckDB's windows sort the whole table for each partition they
 * number (10M expense lines: 11.6 s in three statements); the pass reads four columns of each line
 * once (5.7-6.5 s, of which the appender 2.1-2.5 s). Returns false, leaving nothing behind, unless
 * the ids strictly increase as stored (which also proves them unique) and none of the values read
 * is null or past what it is read as: a drop that fails its checks anyway, or one the windows number.
 */
async function numberAsStored(connection: DuckDBConnection, reader: DuckDBConnection, table: LinesTable): Promise<boolean> {
  const groupings = GROUPINGS[table];
  const keys = ['id', ...groupings.flatMap(({ by }) => (by ? [by] : []))];
  const inexact = keys.map((key, i) => `${key} IS NULL OR abs(${key}) > ${i ? INTEGER_MAX : EXACT_IN_A_DOUBLE}`).join(' OR ');
  const unfit = await connection.runAndReadAll(`SELECT count(*) FROM ${table} WHERE ${inexact}`);
  if (Number(unfit.getRows()[0]![0]) > 0) return false;

  const columns = positionColumns(table);
  await connection.run(`CREATE OR REPLACE TEMP TABLE ${positionsTable(table)} (id DOUBLE, ${columns.map((c) => `${c} INTEGER`).join(', ')})`);
  const appender = await connection.createAppender(positionsTable(table), 'main', 'temp');
  const types = [DOUBLE, ...columns.map(() => INTEGER)];
  const stageCode = `CASE stage ${LINE_STAGES.map((line, i) => `WHEN '${line}' THEN ${i + 1}`).join(' ')} ELSE 0 END`;
  const result = await reader.stream(`SELECT ${keys.map((key, i) => `${key}::${i ? 'INTEGER' : 'DOUBLE'}`).join(', ')}, ${stageCode}::INTEGER FROM ${table}`);
  // Whether each stage counts a line, by the code of the line's stage (0: no stage counts it).
  const countedBy = STAGES.map((stage) => [false, ...LINE_STAGES.map((line) => LINES_OF[stage].includes(line))]);
  // Each grouping's column among the keys read (-1: the whole table), and its running counts.
  const keyOf = groupings.map(({ by }) => (by ? keys.indexOf(by) : -1));
  const counters = groupings.map(() => new RunningCounts(STAGES.length));
  let last = -Infinity;
  let next = result.fetchChunk();
  let numbered = false;
  try {
    for (let chunk = await next; chunk && chunk.rowCount > 0; chunk = await next) {
      next = result.fetchChunk(); // DuckDB reads the next chunk while this one is numbered
      const rows = chunk.rowCount;
      const ids = typedItems(chunk.getColumnVector(0), rows, 'float64');
      const read = keys.map((_, i) => (i ? typedItems(chunk.getColumnVector(i), rows, 'int32') : undefined));
      const codes = typedItems(chunk.getColumnVector(keys.length), rows, 'int32');
      for (let row = 0; row < rows; last = ids[row++]!) if (!(ids[row]! > last)) return false;
      const indexes = groupings.map((_, g) => counters[g]!.indexesOf(keyOf[g]! < 0 ? undefined : read[keyOf[g]!], rows));
      const out = DuckDBDataChunk.create(types, rows);
      setTypedItems(out.getColumnVector(0), ids);
      for (let s = 0, column = 1; s < STAGES.length; s++) {
        const counts = countedBy[s]!;
        for (let g = 0; g < groupings.length; g++, column++) {
          const positions = new Int32Array(rows);
          const at = indexes[g]!;
          for (let row = 0; row < rows; row++) if (counts[codes[row]!]) positions[row] = counters[g]!.next(s, at[row]!);
          setTypedItems(out.getColumnVector(column), positions);
        }
      }
      appender.appendDataChunk(out);
    }
    appender.closeSync();
    numbered = true;
    return true;
  } finally {
    if (!numbered) {
      reader.interrupt();
      await next.catch(() => undefined);
      appender.closeSync();
      await connection.run(`DROP TABLE IF EXISTS ${positionsTable(table)}`);
    }
  }
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
