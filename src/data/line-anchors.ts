/**
 * The lines tables' anchors: for each stage, the id of every ANCHOR_EVERY-th line it counts (the
 * 1st, the 129th, ...) in id order, overall, in each year, under each category (its subtree's
 * lines), under each category in each year and, for expenses, in each organization and in each
 * organization in each year. A page at
 * any depth is then a range of ids between two anchors, which DuckDB's zone maps find in the lines
 * table, kept in id order, without reading the lines before it (sql/expenses.sql, resources.sql, expenses_of_organization.sql). The
 * anchors are kept in JS (10M lines: about 3M ids, 24 MB), so finding a page's range costs no
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
import { HIGH_HALF, int64Halves, safeIntegerAt, typedItems, validBits } from './vectors.js';
import { closeDatabase } from './close-database.js';

export type LinesTable = 'expenses' | 'resources';

export const isLinesTable = (table: string): table is LinesTable => table === 'expenses' || table === 'resources';

/** One anchor every this many lines of a stage and grouping value: what a page reads at most beyond its own lines. */
export const ANCHOR_EVERY = 128;

/**
 * What a page's lines are counted within: every line of the stage, one year's, one category's
 * and its subtree's, one organization's (expenses only); the last two in every year or in one (a
 * value made by inYear).
 */
export type Grouping = 'all' | 'year' | 'category' | 'category-year' | 'organization' | 'organization-year';

/** The value of one category's (and its subtree's) or one organization's lines of one year among the anchors. */
export const inYear = (value: number | bigint, year: number): string => `${value}/${year}`;

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
  /** Per key, its slot in `spans`. */
  private readonly slots = new Map<string, number>();
  /** Per slot, where its anchors lie in `ids` (from, to) and how many lines the stage counts in the value. */
  private spans = new Float64Array(3 * 64);
  /**
   * Every key's anchors, one key's after another's: 10M lines have about 50,000 keys, most of one
   * category in one year, and a typed array for each kept about 45 MB more in the JS heap.
   */
  private readonly ids = new IdList();

  set(table: LinesTable, stage: Stage, grouping: Grouping, value: Value, ids: IdList, count: number): void {
    const slot = this.slots.size;
    if (3 * slot + 3 > this.spans.length) {
      const grown = new Float64Array(this.spans.length * 2);
      grown.set(this.spans);
      this.spans = grown;
    }
    this.spans[3 * slot] = this.ids.size;
    this.ids.append(ids);
    this.spans[3 * slot + 1] = this.ids.size;
    this.spans[3 * slot + 2] = count;
    this.slots.set(`${table}:${stage}:${grouping}:${value}`, slot);
  }

  /** How many lines of one grouping value a stage counts (0 for a value without any): a page's count. */
  countOf(table: LinesTable, stage: Stage, grouping: Grouping, value: Value): number {
    const slot = this.slots.get(`${table}:${stage}:${grouping}:${value}`);
    return slot === undefined ? 0 : this.spans[3 * slot + 2]!;
  }

  /** Where the page of `limit` lines past `offset` lies among the lines of one stage and grouping value. */
  rangeOf(table: LinesTable, stage: Stage, grouping: Grouping, value: Value, offset: number, limit: number): LineRange {
    const slot = this.slots.get(`${table}:${stage}:${grouping}:${value}`);
    const from = slot === undefined ? 0 : this.spans[3 * slot]!;
    const anchors = slot === undefined ? 0 : this.spans[3 * slot + 1]! - from;
    if (!anchors) return { from_id: MAX_ID, to_id: MIN_ID, skip: 0 }; // no such line: an empty range
    // Anchor i is the line at position i * ANCHOR_EVERY + 1: from the last one at or before the
    // page's first line to the line before the first one past its last.
    const first = Math.min(Math.floor(offset / ANCHOR_EVERY), anchors - 1);
    const after = Math.floor((offset + limit - 1) / ANCHOR_EVERY) + 1;
    return {
      from_id: this.ids.at(from + first),
      to_id: after < anchors ? this.ids.at(from + after) - 1n : MAX_ID,
      skip: offset - first * ANCHOR_EVERY,
    };
  }

  /**
   * About how many lines of a stage lie between two ids (to within ANCHOR_EVERY at each end): what
   * a page between them reads of the table, at least.
   */
  linesBetween(table: LinesTable, stage: Stage, from_id: bigint, to_id: bigint): number {
    const slot = this.slots.get(`${table}:${stage}:all:0`);
    if (slot === undefined || from_id > to_id) return 0;
    const from = this.spans[3 * slot]!;
    const to = this.spans[3 * slot + 1]!;
    // How many of the stage's anchors lie at or before an id, found by halving.
    const anchorsUpTo = (id: bigint) => {
      let [low, high] = [from, to];
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (this.ids.at(middle) <= id) low = middle + 1;
        else high = middle;
      }
      return low - from;
    };
    const lines = (anchorsUpTo(to_id) - anchorsUpTo(from_id - 1n)) * ANCHOR_EVERY;
    return Math.min(lines, this.spans[3 * slot + 2]!);
  }

  /** The id of the first line of one stage and grouping value; past every id when it has none. */
  firstOf(table: LinesTable, stage: Stage, grouping: Grouping, value: Value): bigint {
    return this.rangeOf(table, stage, grouping, value, 0, 1).from_id;
  }

  /** Gives back the room the ids grew into: no anchor is added after the load. */
  trim(): void {
    this.ids.trim();
  }
}

/** A grouping value as the anchors key it: a year, an id, or an id in a year (inYear). */
type Value = number | bigint | string;

/**
 * A grouping's column; `subtree`: a line counts under its category and under each of its
 * ancestors; `byYear`: and under each of them in its year, in that grouping.
 */
const GROUPINGS: Readonly<Record<LinesTable, readonly { grouping: Grouping; column: string | null; subtree?: true; byYear?: Grouping }[]>> = {
  expenses: [
    { grouping: 'all', column: null },
    { grouping: 'year', column: 'year' },
    { grouping: 'category', column: 'category_id', subtree: true, byYear: 'category-year' },
    { grouping: 'organization', column: 'organization_id', byYear: 'organization-year' },
  ],
  resources: [
    { grouping: 'all', column: null },
    { grouping: 'year', column: 'year' },
    { grouping: 'category', column: 'category_id', subtree: true, byYear: 'category-year' },
  ],
};
/** Where the year grouping is in GROUPINGS: its values' indexes split a category's lines by year. */
const YEAR = 1;

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
    this.anchors.trim();
    return unique;
  }

  /** Stops the passes still running (a load that failed) and closes their connections. */
  async close(): Promise<void> {
    for (const { reader, anchored } of this.passes.values()) {
      reader.interrupt();
      await anchored.catch(() => undefined);
      reader.closeSync();
    }
    if (this.files) closeDatabase(this.files);
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
      // A stage that counts none of the chunk's lines (outturn, in a drop of budgets) is not counted.
      const stages = STAGES.flatMap((_, s) => (counted[s]?.some((bits) => bits !== 0) ?? true ? [s] : []));
      let years: Int32Array | undefined;
      for (let g = 0, column = 1; g < groupings.length; g++) {
        // Every line has the same value of the grouping of all lines: it is counted without an index.
        const indexes = groupings[g]!.column ? anchors[g]!.indexesOf(groupingKeys(chunk.getColumnVector(column++), rows), rows) : undefined;
        if (g === YEAR) years = indexes;
        const { subtree, byYear } = groupings[g]!;
        if (subtree) anchors[g]!.chainsOf(indexes!, rows, parents);
        if (byYear) anchors[g]!.byYear.fit(anchors[g]!.values.length, anchors[YEAR]!.values.length);
        for (const s of stages) {
          if (subtree) anchors[g]!.countUp(s, indexes!, counted[s], ids, rows, years!);
          else anchors[g]!.count(s, indexes, counted[s], ids, rows, byYear ? years : undefined);
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
    const { values, ids, byYear } = anchors[g]!;
    STAGES.forEach((stage, s) => {
      values.forEach((value, index) => lineAnchors.set(table, stage, groupings[g]!.grouping, value, ids[s]![index]!, anchors[g]!.countOf(s, index)));
      const yearly = groupings[g]!.byYear;
      if (!yearly) return;
      byYear.each(s, (index, year, yearIds, count) =>
        lineAnchors.set(table, stage, yearly, inYear(values[index]!, anchors[YEAR]!.values[year] as number), yearIds, count),
      );
    });
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
    const key = safeIntegerAt(halves, row);
    if (key === undefined) return Array.from(values, toKey);
    keys[row] = key;
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

  /**
   * Per value's index, the indexes of the value and of each of its ancestors (chainsOf): at
   * `chainStarts[index]` to `chainEnds[index]` in `chainLinks`, all values' in one typed array.
   * An array of one Int32Array per value cost the load's hottest loop about a third more.
   */
  private chainStarts: Int32Array = new Int32Array(64);
  private chainEnds: Int32Array = new Int32Array(64);
  private chainLinks: Int32Array = new Int32Array(1024);
  private linked = 0;
  /** A grouping's counts and anchors per value and year (countUp), for one with `byYear`. */
  readonly byYear = new ByYear();

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
  chainsOf(indexes: Int32Array, rows: number, parents: Parents): void {
    for (let row = 0; row < rows; row++) {
      const index = indexes[row]!;
      if (index < this.chainEnds.length && this.chainEnds[index]! > 0) continue;
      const chain = [index];
      const seen = new Set([this.values[index]!]);
      for (let parent = parents.get(this.values[index]!); parent !== null && parent !== undefined && !seen.has(parent); parent = parents.get(parent)) {
        seen.add(parent);
        chain.push(this.indexOf(parent));
      }
      if (this.values.length > this.chainEnds.length) {
        this.chainStarts = growTo(this.chainStarts, this.values.length * 2);
        this.chainEnds = growTo(this.chainEnds, this.values.length * 2);
      }
      if (this.linked + chain.length > this.chainLinks.length) this.chainLinks = growTo(this.chainLinks, (this.linked + chain.length) * 2);
      this.chainLinks.set(chain, this.linked);
      this.chainStarts[index] = this.linked;
      this.linked += chain.length;
      this.chainEnds[index] = this.linked;
    }
  }

  /**
   * As count, but each line counts under every value of its chain (chainsOf): a category and its
   * ancestors, and under each of them in its year (`years`: each line's year's index; byYear,
   * fitted to the values and years first). Apart from count, whose groupings (a year, an
   * organization) have one value a line: this is the load's hottest loop, run for every line of
   * every stage.
   */
  countUp(
    s: number,
    indexes: Int32Array,
    counted: Uint32Array | undefined,
    ids: BigInt64Array,
    rows: number,
    years: Int32Array,
  ): void {
    const counts = this.counts[s]!;
    const anchors = this.ids[s]!;
    const stride = this.byYear.stride;
    const yearCounts = this.byYear.counts[s]!;
    const yearAnchors = this.byYear.ids[s]!;
    const { chainStarts, chainEnds, chainLinks } = this;
    for (let row = 0; row < rows; row++) {
      if (counted && !((counted[row >>> 5]! >>> (row & 31)) & 1)) continue;
      const value = indexes[row]!;
      const year = years[row]!;
      for (let k = chainStarts[value]!, end = chainEnds[value]!; k < end; k++) {
        const index = chainLinks[k]!;
        if (counts[index]!++ % ANCHOR_EVERY === 0) anchors[index]!.push(ids[row]!);
        const at = index * stride + year;
        if (yearCounts[at]!++ % ANCHOR_EVERY === 0) (yearAnchors[at] ??= new IdList()).push(ids[row]!);
      }
    }
  }

  /**
   * Keeps a number's index in the direct table when the table, from its lowest key to its highest,
   * spans at most DIRECT_SPAN. It grows downwards too: the first value seen is any year or id, and
   * a value below it was looked up in the Map for every line (half of the years of a drop).
   */
  private directly(key: number, index: number): void {
    if (!this.direct.length) {
      this.base = key - DIRECT_BELOW;
      this.direct = new Int32Array(1024).fill(-1);
    }
    if (key < this.base) {
      const base = key - DIRECT_BELOW;
      const end = this.base + this.direct.length;
      if (end - base > DIRECT_SPAN) return;
      const grown = new Int32Array(end - base).fill(-1);
      grown.set(this.direct, this.base - base);
      this.direct = grown;
      this.base = base;
    }
    const at = key - this.base;
    if (at >= DIRECT_SPAN) return;
    if (at >= this.direct.length) {
      const grown = new Int32Array(Math.min(DIRECT_SPAN, Math.max(at + 1, this.direct.length * 2))).fill(-1);
      grown.set(this.direct);
      this.direct = grown;
    }
    this.direct[at] = index;
  }

  /**
   * Counts the lines stage `s` counts (`counted`: all when undefined) of each value (`indexes`: of
   * the one value 0 when undefined), anchoring every ANCHOR_EVERY-th of each; with `years`, of each
   * value in each year too (an organization's grouping).
   */
  count(s: number, indexes: Int32Array | undefined, counted: Uint32Array | undefined, ids: BigInt64Array, rows: number, years?: Int32Array): void {
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
    if (years) return this.countByYear(s, indexes, counted, ids, rows, years);
    for (let row = 0; row < rows; row++) {
      if (counted && !((counted[row >>> 5]! >>> (row & 31)) & 1)) continue;
      const index = indexes[row]!;
      if (counts[index]!++ % ANCHOR_EVERY === 0) anchors[index]!.push(ids[row]!);
    }
  }

  /** As count, and each line in its year too (`years`: each line's year's index; byYear, fitted first). */
  private countByYear(s: number, indexes: Int32Array, counted: Uint32Array | undefined, ids: BigInt64Array, rows: number, years: Int32Array): void {
    const counts = this.counts[s]!;
    const anchors = this.ids[s]!;
    const stride = this.byYear.stride;
    const yearCounts = this.byYear.counts[s]!;
    const yearAnchors = this.byYear.ids[s]!;
    for (let row = 0; row < rows; row++) {
      if (counted && !((counted[row >>> 5]! >>> (row & 31)) & 1)) continue;
      const index = indexes[row]!;
      if (counts[index]!++ % ANCHOR_EVERY === 0) anchors[index]!.push(ids[row]!);
      const at = index * stride + years[row]!;
      if (yearCounts[at]!++ % ANCHOR_EVERY === 0) (yearAnchors[at] ??= new IdList()).push(ids[row]!);
    }
  }
}

/**
 * A grouping's running counts and anchors per stage, value and year, at `value * stride +
 * year` (the indexes of the grouping's value and of the year grouping's). Its arrays grow as values
 * and years are found; the anchors of a pair without lines are never made.
 */
class ByYear {
  stride = 32;
  counts: Int32Array[] = STAGES.map(() => new Int32Array(0));
  ids: (IdList | undefined)[][] = STAGES.map(() => []);

  /** Makes room for `values` values of `years` years, before a chunk is counted. */
  fit(values: number, years: number): void {
    if (years > this.stride) {
      const stride = Math.max(years, this.stride * 2);
      const spread = <T, A extends { [at: number]: T }>(from: ArrayLike<T>, to: A): A => {
        for (let at = 0; at < from.length; at++) if (from[at]) to[Math.floor(at / this.stride) * stride + (at % this.stride)] = from[at]!;
        return to;
      };
      this.counts = this.counts.map((counts) => spread(counts, new Int32Array((counts.length / this.stride) * stride)));
      this.ids = this.ids.map((ids) => spread(ids, [] as (IdList | undefined)[]));
      this.stride = stride;
    }
    if (values * this.stride > this.counts[0]!.length) this.counts = this.counts.map((counts) => growTo(counts, values * 2 * this.stride));
  }

  /** Calls `found` with each (value index, year index) pair that has lines of stage `s`. */
  each(s: number, found: (index: number, year: number, ids: IdList, count: number) => void): void {
    this.ids[s]!.forEach((ids, at) => {
      if (ids) found(Math.floor(at / this.stride), at % this.stride, ids, this.counts[s]![at]!);
    });
  }
}

/**
 * Ids of anchors in a typed array that grows: one value's as they are found, every value's once
 * found (LineAnchors). As arrays of bigints, the 1.9M anchors of 10M lines left the RSS after
 * loading about 60 MB higher.
 */
class IdList {
  private ids = new BigInt64Array(4);
  private length = 0;

  get size(): number {
    return this.length;
  }

  push(id: bigint): void {
    if (this.length === this.ids.length) this.resize(Math.max(4, this.length * 2));
    this.ids[this.length++] = id;
  }

  append(other: IdList): void {
    if (this.length + other.length > this.ids.length) this.resize(Math.max(this.ids.length * 2, this.length + other.length));
    this.ids.set(other.ids.subarray(0, other.length), this.length);
    this.length += other.length;
  }

  at(index: number): bigint {
    return this.ids[index]!;
  }

  /** Gives back the room grown past its ids. */
  trim(): void {
    this.resize(this.length);
  }

  private resize(length: number): void {
    const resized = new BigInt64Array(length);
    resized.set(this.ids.subarray(0, this.length));
    this.ids = resized;
  }
}

/** How far apart the grouping values looked up in a typed array rather than a Map may lie. */
const DIRECT_SPAN = 1 << 20;
/** Room left in the direct table below a value that lowers it. */
const DIRECT_BELOW = 64;

function growTo(counts: Int32Array, length: number): Int32Array {
  const grown = new Int32Array(length);
  grown.set(counts);
  return grown;
}
