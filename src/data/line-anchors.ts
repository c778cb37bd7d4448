/**
 * The lines tables' anchors: for each stage, the id of every ANCHOR_EVERY-th line it counts (the
 * 1st, the 129th, ...) in id order, overall, in each year, under each category (its subtree's
 * lines) and, for expenses, in each organization. A page at any depth is then a range of ids
 * between two anchors, which DuckDB's zone maps find in the lines table, kept in id order, without
 * reading the lines before it (sql/expenses.sql, resources.sql, expenses_of_organization.sql). The
 * anchors are kept in JS (10M lines: about 1.9M ids, 15 MB), so finding a page's range costs no
 * query.
 * One anchor every ANCHOR_EVERY lines per stage and grouping instead of a position column per
 * stage and grouping on every line: 10M lines load about 10 s faster, and a page reads at most
 * ANCHOR_EVERY lines of its stage and grouping more than it serves (docs/performance.md#load).
 *
 * Written from the stage vocabulary rather than as .sql files, so that a stage added there gets
 * its anchors. Only constants of the code go into the SQL.
 */
import { DuckDBInstance, DuckDBTypeId, type DuckDBConnection, type DuckDBVector } from '@duckdb/node-api';
import { LINES_OF, STAGES, type Stage } from '../domain/stages.js';
import { NO_EXTENSIONS } from './lockdown.js';
import { HIGH_HALF, int64Halves, typedItems, validBits } from './vectors.js';

export type LinesTable = 'expenses' | 'resources';

export const isLinesTable = (table: string): table is LinesTable => table === 'expenses' || table === 'resources';

/** One anchor every this many lines of a stage and grouping value: what a page reads at most beyond its own lines. */
export const ANCHOR_EVERY = 128;

/**
 * What a page's lines are counted within: every line of the stage, one year's, one category's
 * and its subtree's, one organization's (expenses only).
 */
export type Grouping = 'all' | 'year' | 'category' | 'organization';

/** Where a page of lines lies: the lines a query matches between two ids, past the first `skip` of them. */
export interface LineRange {
  from_id: bigint;
  to_id: bigint;
  skip: number;
}

const MIN_ID = -(2n ** 63n);
const MAX_ID = 2n ** 63n - 1n;
/** Every id: where a page lies when its lines are not counted by anchors (its matching lines are sorted). */
export const EVERY_ID = { from_id: MIN_ID, to_id: MAX_ID } as const;

/** The anchors of both lines tables, by `expenses:amended:organization:7` (table, stage, grouping and value). */
export class LineAnchors {
  /** Per key, the anchors' ids and how many lines the stage counts in the grouping value. */
  private readonly anchored = new Map<string, { ids: BigInt64Array; count: number }>();

  set(table: LinesTable, stage: Stage, grouping: Grouping, value: number | bigint, ids: BigInt64Array, count: number): void {
    this.anchored.set(`${table}:${stage}:${grouping}:${value}`, { ids, count });
  }

  /** How many lines of one grouping value a stage counts (0 for a value without any): a page's count. */
  countOf(table: LinesTable, stage: Stage, grouping: Grouping, value: number | bigint): number {
    return this.anchored.get(`${table}:${stage}:${grouping}:${value}`)?.count ?? 0;
  }

  /** Where the page of `limit` lines past `offset` lies among the lines of one stage and grouping value. */
  rangeOf(table: LinesTable, stage: Stage, grouping: Grouping, value: number | bigint, offset: number, limit: number): LineRange {
    const ids = this.anchored.get(`${table}:${stage}:${grouping}:${value}`)?.ids;
    if (!ids?.length) return { from_id: MAX_ID, to_id: MIN_ID, skip: 0 }; // no such line: an empty range
    // Anchor i is the line at position i * ANCHOR_EVERY + 1: from the last one at or before the
    // page's first line to the line before the first one past its last.
    const first = Math.min(Math.floor(offset / ANCHOR_EVERY), ids.length - 1);
    const after = Math.floor((offset + limit - 1) / ANCHOR_EVERY) + 1;
    return { from_id: ids[first]!, to_id: after < ids.length ? ids[after]! - 1n : MAX_ID, skip: offset - first * ANCHOR_EVERY };
  }
}

/** A grouping's column; `subtree`: a line counts under its category and under each of its ancestors. */
const GROUPINGS: Readonly<Record<LinesTable, readonly { grouping: Grouping; column: string | null; subtree?: true }[]>> = {
  expenses: [
    { grouping: 'all', column: null },
    { grouping: 'year', column: 'year' },
    { grouping: 'category', column: 'category_id', subtree: true },
    { grouping: 'organization', column: 'organization_id' },
  ],
  resources: [
    { grouping: 'all', column: null },
    { grouping: 'year', column: 'year' },
    { grouping: 'category', column: 'category_id', subtree: true },
  ],
};

/** Each category's parent by id (as grouping keys), null for a root. */
type Parents = ReadonlyMap<number | bigint, number | bigint | null>;

/** The lines `stage` counts, as a condition on a line's own stage. */
const counts = (stage: (typeof STAGES)[number]) => `stage IN (${LINES_OF[stage].map((line) => `'${line}'`).join(', ')})`;

/**
 * Storing the lines tables of one load and their anchors. Each table is stored as read while a
 * pass in JS reads the same lines from the Parquet file for their anchors, in a DuckDB instance of
 * its own: the load's checkpoints then go on beside the pass (any reader of the load's database,
 * even of a file only, makes a checkpoint after a later commit fail). JS keeps one core busy,
 * DuckDB the other.
 */
export class LinesStore {
  readonly anchors = new LineAnchors();
  private readonly passes = new Map<LinesTable, { reader: DuckDBConnection; anchored: Promise<boolean> }>();
  private files: DuckDBInstance | undefined;
  private parents: Parents | undefined;

  /** `connect`: a connection to the load's database, for a table not in id order (see settle). */
  constructor(private readonly connect: () => Promise<DuckDBConnection>) {}

  /**
   * Stores `table` from `source` (a query of the lines as loaded) and starts its pass over
   * `fileLines` (the same query over the Parquet file, so in the same order). `settle` waits for it.
   */
  async store(connection: DuckDBConnection, table: LinesTable, source: string, fileLines: string): Promise<void> {
    this.files ??= await DuckDBInstance.create(':memory:', { threads: '1', ...NO_EXTENSIONS });
    this.parents ??= await parentsOf(connection);
    const reader = await this.files.connect();
    const anchored = anchorLines(reader, table, `(${fileLines})`, this.anchors, this.parents);
    anchored.catch(() => undefined); // awaited by settle or close: not an unhandled rejection meanwhile
    this.passes.set(table, { reader, anchored });
    await connection.run(`CREATE TABLE ${table} AS ${source}`);
  }

  /**
   * Waits for every pass. Lines in strictly increasing id order, as `budget-data build` and
   * `synth` write them, are anchored as stored; a table in any other order is sorted by id, and
   * anchored again from the table. Returns the tables whose ids were seen strictly increasing,
   * which proves them unique; a table whose were not (duplicate ids, which the load's unique-id
   * rule then reports) has no anchors.
   */
  async settle(connection: DuckDBConnection): Promise<Set<LinesTable>> {
    const unique = new Set<LinesTable>();
    for (const [table, { anchored }] of this.passes) {
      if (await anchored) unique.add(table);
      else {
        await connection.run(`CREATE OR REPLACE TABLE ${table} AS SELECT * FROM ${table} ORDER BY id`);
        const sorted = await this.connect();
        try {
          if (await anchorLines(sorted, table, table, this.anchors, this.parents ?? new Map())) unique.add(table);
        } finally {
          sorted.closeSync();
        }
      }
    }
    return unique;
  }

  /** Stops the passes still running (a load that failed) and closes their connections. */
  async close(): Promise<void> {
    for (const { reader, anchored } of this.passes.values()) {
      reader.interrupt();
      await anchored.catch(() => undefined);
      reader.closeSync();
    }
    this.files?.closeSync();
  }
}

/**
 * The categories' parents, read before the lines (the categories table is loaded first). Their
 * rules run after the lines are stored: a category whose table did not load has no ancestors
 * here, a cycle stops the walk up (Anchors.chainsOf), and either way the load then fails.
 */
async function parentsOf(connection: DuckDBConnection): Promise<Parents> {
  const parents = new Map<number | bigint, number | bigint | null>();
  let reader;
  try {
    reader = await connection.runAndReadAll('SELECT id, parent_id FROM categories WHERE id IS NOT NULL');
  } catch {
    return parents;
  }
  for (const [id, parent] of reader.getRows()) parents.set(toKey(BigInt(id as bigint)), parent === null ? null : toKey(BigInt(parent as bigint)));
  return parents;
}

/**
 * One pass over `table`'s ids, groupings and stages as stored: a running count per stage and
 * grouping value, and an anchor at each ANCHOR_EVERY-th line. Ids are compared as the two 32-bit
 * halves of their BIGINT, years and organizations read as numbers, and which lines a stage counts
 * from a validity mask: no JS value is made per line. Stores the anchors and returns true only
 * when every id is greater than the one before it.
 */
async function anchorLines(reader: DuckDBConnection, table: LinesTable, lines: string, lineAnchors: LineAnchors, parents: Parents): Promise<boolean> {
  const groupings = GROUPINGS[table];
  const flags = STAGES.map((stage) => `CASE WHEN ${counts(stage)} THEN 0 END::TINYINT`);
  const columns = groupings.flatMap(({ column }) => (column ? [column] : []));
  const result = await reader.stream(`SELECT id, ${[...columns, ...flags].join(', ')} FROM ${lines}`);
  const anchors = groupings.map(() => new Anchors());
  let lastHigh = -Infinity;
  let lastLow = -Infinity;
  let next = result.fetchChunk();
  let read = false;
  try {
    for (let chunk = await next; chunk && chunk.rowCount > 0; chunk = await next) {
      next = result.fetchChunk(); // DuckDB reads the next chunk while this one is counted
      const rows = chunk.rowCount;
      const idColumn = chunk.getColumnVector(0);
      if (validBits(idColumn, rows)) return false;
      const ids = typedItems(idColumn, rows, 'int64');
      const halves = int64Halves(ids);
      for (let row = 0; row < rows; row++) {
        const high = halves[2 * row + HIGH_HALF]!;
        const low = halves[2 * row + 1 - HIGH_HALF]! >>> 0;
        if (!(high > lastHigh || (high === lastHigh && low > lastLow))) return false;
        lastHigh = high;
        lastLow = low;
      }
      const counted = STAGES.map((_, s) => validBits(chunk.getColumnVector(1 + columns.length + s), rows));
      for (let g = 0, column = 1; g < groupings.length; g++) {
        // Every line has the same value of the grouping of all lines: it is counted without an index.
        const indexes = groupings[g]!.column ? anchors[g]!.indexesOf(groupingKeys(chunk.getColumnVector(column++), rows), rows) : undefined;
        const chains = groupings[g]!.subtree ? anchors[g]!.chainsOf(indexes!, rows, parents) : undefined;
        for (let s = 0; s < STAGES.length; s++) {
          if (chains) anchors[g]!.countUp(s, indexes!, chains, counted[s], ids, rows);
          else anchors[g]!.count(s, indexes, counted[s], ids, rows);
        }
      }
    }
    read = true;
  } finally {
    if (!read) {
      reader.interrupt();
      await next.catch(() => undefined);
    }
  }
  for (let g = 0; g < groupings.length; g++) {
    const { values, ids } = anchors[g]!;
    STAGES.forEach((stage, s) =>
      values.forEach((value, index) => lineAnchors.set(table, stage, groupings[g]!.grouping, value, ids[s]![index]!.done(), anchors[g]!.countOf(s, index))),
    );
  }
  return true;
}

/** A key per line for its grouping value: a number, or a bigint past 2^53. */
type Keys = ArrayLike<number | bigint>;

/**
 * A grouping column's values as keys: a typed array when every value is a safe integer. The load
 * refuses a null year or expense organization before it stores the lines (columns.ts), so none
 * comes here.
 */
function groupingKeys(vector: DuckDBVector, rows: number): Keys {
  if (validBits(vector, rows)) throw new Error('line anchors: a null grouping value, which the load refuses before storing lines');
  if (vector.type.typeId === DuckDBTypeId.INTEGER) return typedItems(vector, rows, 'int32');
  const values = typedItems(vector, rows, 'int64');
  const halves = int64Halves(values);
  const keys = new Float64Array(rows);
  for (let row = 0; row < rows; row++) {
    const high = halves[2 * row + HIGH_HALF]!;
    if (high > 0x1fffff || high < -0x200000) return Array.from(values, toKey);
    keys[row] = high * 2 ** 32 + (halves[2 * row + 1 - HIGH_HALF]! >>> 0);
  }
  return keys;
}

const toKey = (value: bigint): number | bigint => (Number.isSafeInteger(Number(value)) ? Number(value) : value);

/** One grouping's running counts per stage and grouping value, and the ids of its anchors. */
class Anchors {
  /** Index of a value by its offset from the first value seen, for integer values close together (years, most ids). */
  private direct = new Int32Array(0);
  private base = 0;
  private readonly indexes = new Map<number | bigint, number>();
  /** The grouping values, by index. */
  readonly values: (number | bigint)[] = [];
  /** Per stage, the ids of each value's anchors, by the value's index. */
  readonly ids: IdList[][] = STAGES.map(() => []);
  private counts: Int32Array[] = STAGES.map(() => new Int32Array(64));

  /** Per value's index, the indexes of the value and of each of its ancestors (chainsOf). */
  private chains: (Int32Array | undefined)[] = [];

  /** How many lines of the value at `index` stage `s` counts. */
  countOf(s: number, index: number): number {
    return this.counts[s]![index]!;
  }

  /** The index of each line's grouping value, a new index for a value not seen yet. */
  indexesOf(keys: Keys, rows: number): Int32Array {
    const indexes = new Int32Array(rows);
    for (let row = 0; row < rows; row++) {
      const key = keys[row]!;
      if (typeof key === 'number') {
        const at = key - this.base;
        const index = at >= 0 && at < this.direct.length ? this.direct[at]! : -1;
        indexes[row] = index >= 0 ? index : this.indexOf(key);
      } else indexes[row] = this.indexOf(key);
    }
    return indexes;
  }

  private indexOf(key: number | bigint): number {
    let index = this.indexes.get(key);
    if (index !== undefined) return index;
    index = this.values.length;
    this.indexes.set(key, index);
    this.values.push(key);
    for (const ids of this.ids) ids.push(new IdList());
    if (index === this.counts[0]!.length) this.counts = this.counts.map((counts) => growTo(counts, index! * 2));
    if (typeof key === 'number') this.directly(key, index);
    return index;
  }

  /**
   * The chain of each line's value (`indexes`): its own index and its ancestors', made once per
   * value, before any line is counted, so that counting adds no value. A cycle ends the walk up.
   */
  chainsOf(indexes: Int32Array, rows: number, parents: Parents): (Int32Array | undefined)[] {
    for (let row = 0; row < rows; row++) {
      const index = indexes[row]!;
      if (this.chains[index]) continue;
      const chain = [index];
      const seen = new Set([this.values[index]!]);
      for (let parent = parents.get(this.values[index]!); parent !== null && parent !== undefined && !seen.has(parent); parent = parents.get(parent)) {
        seen.add(parent);
        chain.push(this.indexOf(parent));
      }
      this.chains[index] = Int32Array.from(chain);
    }
    return this.chains;
  }

  /**
   * As count, but each line counts under every value of its chain (chainsOf): a category and its
   * ancestors. Apart from count, whose groupings (a year, an organization) have one value a line:
   * this is the load's hottest loop, run for every line of every stage.
   */
  countUp(s: number, indexes: Int32Array, chains: readonly (Int32Array | undefined)[], counted: Uint32Array | undefined, ids: BigInt64Array, rows: number): void {
    const counts = this.counts[s]!;
    const anchors = this.ids[s]!;
    for (let row = 0; row < rows; row++) {
      if (counted && !((counted[row >>> 5]! >>> (row & 31)) & 1)) continue;
      const chain = chains[indexes[row]!]!;
      for (let k = 0; k < chain.length; k++) {
        const index = chain[k]!;
        if (counts[index]!++ % ANCHOR_EVERY === 0) anchors[index]!.push(ids[row]!);
      }
    }
  }

  /** Keeps a number's index in the direct table when it lies within DIRECT_SPAN of the first. */
  private directly(key: number, index: number): void {
    if (!this.direct.length) {
      this.base = key;
      this.direct = new Int32Array(1024).fill(-1);
    }
    const at = key - this.base;
    if (at < 0 || at >= DIRECT_SPAN) return;
    if (at >= this.direct.length) {
      const grown = new Int32Array(Math.min(DIRECT_SPAN, Math.max(at + 1, this.direct.length * 2))).fill(-1);
      grown.set(this.direct);
      this.direct = grown;
    }
    this.direct[at] = index;
  }

  /**
   * Counts the lines stage `s` counts (`counted`: all when undefined) of each value (`indexes`: of
   * the one value 0 when undefined), anchoring every ANCHOR_EVERY-th of each.
   */
  count(s: number, indexes: Int32Array | undefined, counted: Uint32Array | undefined, ids: BigInt64Array, rows: number): void {
    const counts = this.counts[s]!;
    const anchors = this.ids[s]!;
    if (!indexes) {
      if (!anchors.length) this.indexOf(0);
      let count = counts[0]!;
      for (let row = 0; row < rows; row++) {
        if (counted && !((counted[row >>> 5]! >>> (row & 31)) & 1)) continue;
        if (count++ % ANCHOR_EVERY === 0) anchors[0]!.push(ids[row]!);
      }
      counts[0] = count;
      return;
    }
    for (let row = 0; row < rows; row++) {
      if (counted && !((counted[row >>> 5]! >>> (row & 31)) & 1)) continue;
      const index = indexes[row]!;
      if (counts[index]!++ % ANCHOR_EVERY === 0) anchors[index]!.push(ids[row]!);
    }
  }
}

/**
 * The ids of one value's anchors as they are found, in a typed array that grows: 10M lines have
 * about 1.9M anchors, which as arrays of bigints left the RSS after loading about 60 MB higher.
 */
class IdList {
  private ids = new BigInt64Array(4);
  private length = 0;

  push(id: bigint): void {
    if (this.length === this.ids.length) {
      const grown = new BigInt64Array(this.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[this.length++] = id;
  }

  done(): BigInt64Array {
    return this.ids.slice(0, this.length);
  }
}

/** How far from the first value seen a grouping value is looked up in a typed array rather than a Map. */
const DIRECT_SPAN = 1 << 20;

function growTo(counts: Int32Array, length: number): Int32Array {
  const grown = new Int32Array(length);
  grown.set(counts);
  return grown;
}
