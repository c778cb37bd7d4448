/**
 * The drop being served. Queries run on a small pool of connections, because a DuckDB connection
 * runs one statement at a time and a second statement on a busy connection interrupts the first.
 *
 * A request takes a lease on the current drop and runs all its queries on it, so that a reload
 * (swap) never mixes two drops in one answer; a replaced drop is closed once its last lease ends.
 */
import {
  BIGINT,
  INTEGER,
  LIST,
  VARCHAR,
  listValue,
  type DuckDBConnection,
  DuckDBVector,
  type DuckDBDataChunk,
  type DuckDBMaterializedResult,
  type DuckDBPreparedStatement,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
// node-api's own bindings (package.json pins the version node-api pins; test/unit/result-rows.test.ts checks they are one copy).
import duckdb from '@duckdb/node-bindings';
import { ClientGone, problem } from '../domain/errors.js';
import type { ChangeSummary } from './diff.js';
import type { LoadedDrop } from './drop.js';
import type { Lease, OpenDrop, Params, Row } from './lease.js';
import type { Releases } from './releases.js';
import { SMALL_EXPORT_ROWS } from './export-sql.js';
import { variantOf, type Variant } from './sql.js';
import { plainReader } from './vectors.js';
import { closeDatabase } from './close-database.js';

/**
 * DuckDB cannot infer a list's item type from JS values: lists are given theirs, text for strings,
 * BIGINT for ids past INTEGER (or given as bigints), else INTEGER (years).
 */
export function bound(params: Params): { values: Record<string, DuckDBValue>; types: Record<string, DuckDBType> } {
  const values: Record<string, DuckDBValue> = {};
  const types: Record<string, DuckDBType> = {};
  for (const [name, value] of Object.entries(params)) {
    if (Array.isArray(value)) {
      const items = value as readonly (string | number | bigint)[];
      values[name] = listValue(items.map((item) => (typeof item === 'number' && !isInteger32(item) ? BigInt(item) : item)));
      types[name] = LIST(items.some((item) => typeof item === 'string') ? VARCHAR : items.some((item) => typeof item !== 'number' || !isInteger32(item)) ? BIGINT : INTEGER);
    } else values[name] = value as DuckDBValue;
  }
  return { values, types };
}

/**
 * Binds `params` to `statement` as `variant` takes them: only the parameters it still names (sql.ts
 * variantOf). Each scalar goes through DuckDB's binder for the type node-api would infer for it
 * (INTEGER, BIGINT or DOUBLE for a number, HUGEINT for a bigint, VARCHAR, BOOLEAN, NULL), where
 * node-api's bind makes a native value object per parameter first: each is one more finalizer for
 * the young generation's collection to run (docs/performance.md, "Fewer objects an answer").
 * Lists are bound as `bound` makes them.
 */
export function bindTo(statement: DuckDBPreparedStatement, variant: Variant, params: Params): void {
  for (const name in params) {
    if (!variant.params.has(name)) continue;
    const value = params[name]!;
    const index = statement.parameterIndex(name);
    switch (typeof value) {
      case 'number':
        if (isInteger32(value)) statement.bindInteger(index, value);
        else if (Number.isInteger(value)) statement.bindBigInt(index, BigInt(value));
        else statement.bindDouble(index, value);
        break;
      case 'bigint':
        statement.bindHugeInt(index, value);
        break;
      case 'string':
        statement.bindVarchar(index, value);
        break;
      case 'boolean':
        statement.bindBoolean(index, value);
        break;
      default:
        if (value === null) statement.bindNull(index);
        else {
          const { values, types } = bound({ [name]: value });
          statement.bindValue(index, values[name]!, types[name]);
        }
    }
  }
}

/** A path of the service's own (in its scratch directory) as an SQL string: COPY's target cannot be bound. */
const fileLiteral = (file: string) => `'${file.replaceAll("'", "''")}'`;

const isInteger32 = (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31;

/** The names and types of a prepared statement's result columns. */
interface ResultColumns {
  names: readonly string[];
  types: readonly DuckDBType[];
  /** A row with every column, each null: each row is made a copy of it (see appendRows). */
  empty: Row;
}

const columnsOfStatement = new WeakMap<DuckDBPreparedStatement, ResultColumns>();

/**
 * The columns of `statement`'s results, read from its first result and kept. Given a vector's type,
 * node-api makes no logical type object for it; each such object is one more finalizer for V8's
 * young-generation collection to run, and a page of lines made eight (docs/performance.md, "Fewer
 * objects an answer"). The kept types are checked against each result's type ids (numbers, no
 * object), so a statement whose column types depend on what is bound reads them again. A type id
 * does not tell a DECIMAL's width or a LIST's item type: the queries cast what they bind
 * (`$year::INTEGER`), so those never depend on it.
 */
function columnsOf(statement: DuckDBPreparedStatement, result: DuckDBMaterializedResult): ResultColumns {
  const kept = columnsOfStatement.get(statement);
  if (kept && kept.types.length === result.columnCount && kept.types.every((type, i) => type.typeId === result.columnTypeId(i))) return kept;
  const names = result.columnNames();
  const columns = { names, types: result.columnTypes(), empty: Object.fromEntries(names.map((name) => [name, null])) };
  columnsOfStatement.set(statement, columns);
  return columns;
}

/**
 * The rows of `statement`'s materialized `result` as plain objects. Its chunks are read where they
 * lie: runAndReadAll fetched each one, and then the end, with a trip through libuv's thread pool
 * apiece (three for a page of lines), and on a busy machine any such trip can wait milliseconds
 * (docs/performance.md).
 */
export function resultRows(statement: DuckDBPreparedStatement, result: DuckDBMaterializedResult): Row[] {
  const columns = columnsOf(statement, result);
  const rows: Row[] = [];
  for (let i = 0; i < result.chunkCount; i++) appendRows(result.getChunk(i), columns, rows);
  return rows;
}

/** A chunk's rows as plain objects, read a column at a time (vectors.ts plainReader). */
function appendRows(chunk: DuckDBDataChunk, { names, types, empty }: ResultColumns, rows: Row[]): void {
  const count = chunk.rowCount;
  const readers = types.map((type, column) => plainReader(DuckDBVector.create(duckdb.data_chunk_get_vector(chunk.chunk, column), count, type), count));
  for (let i = 0; i < count; i++) {
    // A copy of a row that has every column already is made whole with its fields inside it; an
    // object given its fields one by one keeps those past the fourth in a second allocation.
    const row: Row = { ...empty };
    for (let column = 0; column < names.length; column++) row[names[column]!] = readers[column]!(i);
    rows.push(row);
  }
}

/** How much the database may be asked at once, and for how long (docs/api.md, "Operating the service"). */
export interface QueryLimits {
  /** Queries running or waiting for a connection, across drops: only a memory bound, past it a query is refused at once. */
  maxConcurrent: number;
  /** A query still running after this is interrupted; an export once its first rows are out is not. */
  timeoutMs: number;
  /** A query that could not get a connection within this is refused (503 overloaded): overload is decided by waiting time. */
  queueWaitMs: number;
}

const overloaded = problem.overloaded;
export { ClientGone };

/**
 * Counts the queries running or waiting, across drops. The cap is only a memory bound: whether
 * the server is overloaded is decided by how long a query waits for a connection (Waiters).
 */
class Admission {
  active = 0;

  constructor(private readonly limits: QueryLimits) {}

  enter(): void {
    if (this.active >= this.limits.maxConcurrent) {
      throw overloaded();
    }
    this.active += 1;
  }

  leave(): void {
    this.active -= 1;
  }
}

interface Waiter {
  since: number;
  give(connection: DuckDBConnection): void;
}

/**
 * The queries waiting for a pooled connection (docs/api.md#limits-and-load-shedding). A query that could not start
 * within `queueWaitMs` is refused, cheaply: it has run nothing. While the queue is short the oldest
 * goes first; once its oldest entry has waited more than half the target the queue is standing,
 * and the newest goes first (adaptive LIFO), so that the answers still given come back fast and
 * the old entries, which would mostly be refused anyway, are refused at their deadline.
 */
class Waiters {
  private readonly queue: Waiter[] = [];

  constructor(private readonly limits: QueryLimits) {}

  wait(signal: AbortSignal | undefined): Promise<DuckDBConnection> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(problem.clientGone());
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = this.queue.indexOf(waiter);
        if (at >= 0) this.queue.splice(at, 1);
      };
      const onAbort = () => {
        leave();
        reject(problem.clientGone());
      };
      const waiter: Waiter = {
        since: performance.now(),
        give: (connection) => {
          leave();
          resolve(connection);
        },
      };
      const timer = setTimeout(() => {
        leave();
        reject(overloaded(`no connection was free within ${this.limits.queueWaitMs} ms; retry in a second`));
      }, this.limits.queueWaitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  /** The waiter to hand a freed connection to, or undefined when nobody waits. */
  next(): Waiter | undefined {
    const oldest = this.queue[0];
    if (!oldest) return undefined;
    const standing = performance.now() - oldest.since > this.limits.queueWaitMs / 2;
    return standing ? this.queue.at(-1) : oldest;
  }

  get length(): number {
    return this.queue.length;
  }
}

export class ServedDrop implements OpenDrop {
  private readonly idle: DuckDBConnection[] = [];
  /** Each pooled connection keeps its statements prepared (one per variant, sql.ts variantOf): parsing and planning cost more than small queries. */
  private readonly prepared = new WeakMap<DuckDBConnection, Map<Variant, Promise<DuckDBPreparedStatement>>>();
  private readonly waiting: Waiters;
  private opened = 0;
  /** When a connection was last handed out or given back (see stuckFor). */
  private movedAt = performance.now();
  private leases = 0;
  private retired = false;
  private closed = false;

  constructor(
    readonly data: LoadedDrop,
    private readonly poolSize: number,
    private readonly admission: Admission,
    private readonly limits: QueryLimits,
    /** Called once the database is closed (an older release removes its database file then). */
    private readonly onClosed: () => void = () => {},
  ) {
    this.waiting = new Waiters(limits);
  }

  /** `signal`: the client hung up; its queries still waiting for a connection leave the queue. */
  lease(signal?: AbortSignal): Lease<ServedDrop> {
    this.leases += 1;
    let released = false;
    return {
      drop: this,
      query: (name, ...params) => this.query(name, params[0] ?? {}, signal) as Promise<never>,
      chunks: (sql, params, rowsAtMost) => this.chunks(sql, params, signal, rowsAtMost),
      copy: (sql, params, file, options, stop) => this.copy(sql, params, file, options, stop),
      release: () => {
        if (released) return;
        released = true;
        this.leases -= 1;
        this.closeIfDone();
      },
    };
  }

  /** Runs `sql/<name>.sql` with bound parameters; returns rows of plain JS values. */
  async query(name: string, params: Params = {}, signal?: AbortSignal): Promise<Row[]> {
    return this.onConnection(signal, async (connection) => {
      const variant = await variantOf(name, params);
      const statement = await this.statement(connection, variant);
      bindTo(statement, variant, params);
      const result = await this.timed(connection, () => statement.run());
      return resultRows(statement, result);
    });
  }

  /** Runs `work` on a pooled connection, counted by the admission, and gives the connection back. */
  private async onConnection<T>(signal: AbortSignal | undefined, work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    this.admission.enter();
    try {
      const connection = await this.acquire(signal);
      try {
        return await work(connection);
      } finally {
        this.releaseConnection(connection);
      }
    } finally {
      this.admission.leave();
    }
  }

  /**
   * Runs `sql` (an export's statement, see export-sql.ts) and yields its DuckDB chunks as they come. The next chunk is fetched only when the consumer asks, and the pooled connection is held
   * until iteration stops; ending early (a break, an error, a client gone: `return()` on this
   * generator) runs the finally that gives it back. Only the wait for the first chunk is timed: an
   * export that has started runs as long as its client reads.
   *
   * A statement known to give at most SMALL_EXPORT_ROWS rows (`rowsAtMost`) is read whole instead,
   * its connection given back at once: DuckDB gathers its rows into chunks of 2,048, where a
   * filter streams chunks of a few dozen rows, each fetched on its own (0.15 ms apiece: one year
   * of a 1M-line drop came in 461 chunks).
   */
  async *chunks(sql: string, params: Params = {}, signal?: AbortSignal, rowsAtMost?: number): AsyncGenerator<DuckDBDataChunk> {
    if (rowsAtMost !== undefined && rowsAtMost <= SMALL_EXPORT_ROWS) {
      const result = await this.readWhole(sql, params, signal);
      for (let i = 0; i < result.chunkCount; i++) {
        yield result.getChunk(i);
        if (signal?.aborted) throw problem.clientGone();
        // These chunks come without waiting on DuckDB: the event loop gets a turn between two,
        // so that the first bytes leave at once and other requests are answered meanwhile.
        await new Promise(setImmediate);
      }
      return;
    }
    this.admission.enter();
    try {
      const connection = await this.acquire(signal);
      try {
        const { result, first } = await this.timed(connection, async () => {
          const { values, types } = bound(params);
          const result = await connection.stream(sql, values, types);
          return { result, first: await result.fetchChunk() };
        });
        // The next chunk is asked for before this one is handed on, so DuckDB makes it while the
        // consumer encodes this one; still one chunk ahead at most, so the client's pace is the
        // query's. A consumer that stops early leaves that fetch running: it is awaited before
        // the connection goes back to the pool, which must get it idle.
        let next: Promise<DuckDBDataChunk | null> | undefined;
        let finished = false;
        try {
          for (let chunk = first; chunk && chunk.rowCount > 0; chunk = await next) {
            next = result.fetchChunk();
            next.catch(() => undefined); // awaited by the loop, or in finally
            yield chunk;
            // A format that gathers many chunks before it writes (Parquet's row groups) would
            // otherwise go on reading for a client that has hung up.
            if (signal?.aborted) throw problem.clientGone();
          }
          finished = true;
        } finally {
          // Stopped early: the rest of the query is not wanted, so it is interrupted rather than
          // left to make its next chunk, which for a large sorted export can take a second.
          if (!finished && next) await this.interrupted(connection, next);
        }
      } finally {
        this.releaseConnection(connection);
      }
    } finally {
      this.admission.leave();
    }
  }

  private readWhole(sql: string, params: Params, signal?: AbortSignal): Promise<DuckDBMaterializedResult> {
    const { values, types } = bound(params);
    return this.onConnection(signal, (connection) => this.timed(connection, () => connection.run(sql, values, types)));
  }

  /**
   * Has DuckDB write the result of `sql` (an export's statement, see export-sql.ts) to `file` with
   * its own writer (`options` are COPY's, the format's). Like an export that has started, it is
   * not timed: it holds its pooled connection until DuckDB is done, however slowly the file is
   * read, or until `signal` stops it (nobody wants the file any more: http/export-files.ts).
   */
  async copy(sql: string, params: Params, file: string, options: string, signal: AbortSignal): Promise<void> {
    const { values, types } = bound(params);
    await this.onConnection(signal, async (connection) => {
      const writing = connection.run(`COPY (\n${sql}\n) TO ${fileLiteral(file)} (${options})`, values, types);
      const stop = () => void this.interrupted(connection, writing);
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
      try {
        await writing;
      } finally {
        signal.removeEventListener('abort', stop);
      }
    });
  }

  /**
   * Runs `work` on `connection`, interrupting it past the time limit. DuckDB then fails the
   * statement and leaves the connection ready for the next one, so it goes back to the pool. A
   * statement still waiting for a worker thread when interrupted would start afterwards and never
   * see it, so the interrupt is repeated until the statement ends; an interrupt that lands
   * between statements has no effect.
   */
  private async timed<T>(connection: DuckDBConnection, work: () => Promise<T>): Promise<T> {
    let interrupted = false;
    let repeat: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      interrupted = true;
      connection.interrupt();
      repeat = setInterval(() => connection.interrupt(), 10);
    }, this.limits.timeoutMs);
    try {
      return await work();
    } catch (error) {
      if (interrupted) {
        throw problem.queryTimeout(this.limits.timeoutMs);
      }
      throw error;
    } finally {
      clearTimeout(timer);
      clearInterval(repeat);
    }
  }

  /** Interrupts `connection` until `pending` (its statement's last call) has settled. */
  private async interrupted(connection: DuckDBConnection, pending: Promise<unknown>): Promise<void> {
    let settled = false;
    const done = pending.then(
      () => (settled = true),
      () => (settled = true),
    );
    connection.interrupt();
    const repeat = setInterval(() => {
      if (!settled) connection.interrupt();
    }, 10);
    try {
      await done;
    } finally {
      clearInterval(repeat);
    }
  }

  private statement(connection: DuckDBConnection, variant: Variant): Promise<DuckDBPreparedStatement> {
    let statements = this.prepared.get(connection);
    if (!statements) this.prepared.set(connection, (statements = new Map()));
    let statement = statements.get(variant);
    if (!statement) {
      statement = connection.prepare(variant.sql);
      // A statement that failed to prepare is not kept: the next request tries again.
      statement.catch(() => statements.delete(variant));
      statements.set(variant, statement);
    }
    return statement;
  }

  /** Stops new leases from being useful; closes the database when in-flight requests are done. */
  retire(): void {
    this.retired = true;
    this.closeIfDone();
  }

  /**
   * How long every pooled connection has been held with none given back or handed out, once that
   * is longer than any query may run and wait (QUERY_TIMEOUT_MS + QUEUE_WAIT_MS); else 0. Queries
   * end within their limit, so a pool held that long is held by something else (exports): it
   * cannot serve, and /readyz says so.
   */
  stuckFor(now = performance.now()): number {
    if (this.idle.length > 0 || this.opened < this.poolSize) return 0;
    const held = now - this.movedAt;
    return held > this.limits.timeoutMs + this.limits.queueWaitMs ? held : 0;
  }

  private async acquire(signal?: AbortSignal): Promise<DuckDBConnection> {
    const free = this.idle.pop();
    if (free) {
      this.movedAt = performance.now();
      return free;
    }
    if (this.opened < this.poolSize) {
      this.opened += 1;
      this.movedAt = performance.now();
      try {
        return await this.data.connect();
      } catch (error) {
        this.opened -= 1;
        throw error;
      }
    }
    return this.waiting.wait(signal);
  }

  private releaseConnection(connection: DuckDBConnection): void {
    this.movedAt = performance.now();
    const next = this.waiting.next();
    if (next) next.give(connection);
    else this.idle.push(connection);
  }

  private closeIfDone(): void {
    if (!this.retired || this.leases > 0 || this.closed) return;
    this.closed = true;
    for (const connection of this.idle.splice(0)) connection.closeSync();
    closeDatabase(this.data.instance);
    this.onClosed();
  }
}

/**
 * Why a drop was not served, as /meta/ may publish it: a code, the file it is about, and words
 * with no server path or internal URL in them; the log has the whole story (security review,
 * finding 7).
 */
export interface ReloadFailure {
  /**
   * invalid_drop: a rule of the drop is broken (control_total_mismatch: first, a control total);
   * download_failed: DATA_URL could not be read; load_failed: anything else.
   */
  code: 'invalid_drop' | 'control_total_mismatch' | 'download_failed' | 'load_failed';
  file: string | null;
  reason: string;
  /** The version refused (from its drop.json; null when unreadable) and every problem, up to 20. */
  rejected_version?: string | null;
  problems?: string[];
}

/** The last attempt to load a drop, as /budget/api/meta/ shows it. */
export interface ReloadOutcome {
  status: 'ok' | 'rejected';
  /** Why the drop was rejected, or null. */
  reason: string | null;
  code: ReloadFailure['code'] | null;
  file: string | null;
  at: string;
  /** The version served after the attempt: the new drop's, or the old one's when rejected. */
  version: string | null;
  /** A rejection: the version refused (from its drop.json, null when unreadable) and every problem (up to 20). */
  rejected_version?: string | null;
  problems?: string[];
}

export class Store {
  private current: ServedDrop | null = null;
  private readonly swapListeners: (() => void)[] = [];
  private outcome: ReloadOutcome | null = null;
  readonly limits: QueryLimits;
  /** Shared by the served drop and replaced ones still finishing: the cap is the process's. */
  private readonly admission: Admission;
  private previousVersion: string | null = null;
  private change: ChangeSummary | null = null;

  /** `limits` is read at every query: a change applies to the next one. Defaults: 1000 queries, 5 s, 1 s in the queue. */
  constructor(
    private readonly poolSize = 4,
    limits: Partial<QueryLimits> = {},
  ) {
    this.limits = Object.assign(limits, {
      maxConcurrent: limits.maxConcurrent ?? 1000,
      timeoutMs: limits.timeoutMs ?? 5_000,
      queueWaitMs: limits.queueWaitMs ?? 1000,
    });
    this.admission = new Admission(this.limits);
  }

  /**
   * Set on SIGTERM: /readyz then answers 503 so that a load balancer stops sending, while the
   * requests already sent are still answered.
   */
  shuttingDown = false;

  /** Queries running or waiting for a connection now. */
  get activeQueries(): number {
    return this.admission.active;
  }

  get ready(): boolean {
    return this.current !== null;
  }

  /** How long the served drop's pool has been unable to serve (ServedDrop.stuckFor), or 0. */
  get stuckFor(): number {
    return this.current?.stuckFor() ?? 0;
  }

  /** The drop to answer one request with, or null before any drop is loaded; `signal`: the client hung up. */
  lease(signal?: AbortSignal): Lease<ServedDrop> | null {
    return this.current?.lease(signal) ?? null;
  }

  get served(): LoadedDrop | null {
    return this.current?.data ?? null;
  }

  get lastReload(): ReloadOutcome | null {
    return this.outcome;
  }

  /** The version served before the last swap (null after the first load), as /meta/ shows it. */
  get replacedVersion(): string | null {
    return this.previousVersion;
  }

  /** What changed from the previous drop to the served one; null until the reloader has worked it out. */
  get lastChange(): ChangeSummary | null {
    return this.change;
  }

  /**
   * The releases kept (releases.ts), when the process keeps them (the server does; tests that
   * build an app over one drop need not).
   */
  releases: Releases | null = null;

  /** Records what changed with the swap that brought in `data`, unless another drop has been swapped in since. */
  recordChange(data: LoadedDrop, change: ChangeSummary): void {
    // The release keeps its change summary even when another drop came in meanwhile.
    this.releases?.noteChanges(data.manifest.version, change);
    if (this.current?.data === data) this.change = change;
  }

  /** An older release opened from its files: its queries count against this process's limits. */
  serveOther(data: LoadedDrop, onClosed?: () => void): ServedDrop {
    return new ServedDrop(data, 2, this.admission, this.limits, onClosed);
  }

  /** Serves `data` from now on (a successful load); the previous drop closes when its in-flight requests finish. */
  swap(data: LoadedDrop): void {
    const previous = this.current;
    this.current = new ServedDrop(data, this.poolSize, this.admission, this.limits);
    this.previousVersion = previous?.data.manifest.version ?? null;
    this.change = null;
    previous?.retire();
    this.record('ok', null, data.loadedAt);
    for (const listener of this.swapListeners) listener();
  }

  /** Calls `listener` after every swap, to drop what was derived from the previous drop. */
  onSwap(listener: () => void): void {
    this.swapListeners.push(listener);
  }

  /** Records a load that kept the served drop: `ok` when the drop was unchanged, `rejected` with why. */
  recordReload(status: ReloadOutcome['status'], failure: ReloadFailure | null = null): void {
    this.record(status, failure, new Date());
  }

  private record(status: ReloadOutcome['status'], failure: ReloadFailure | null, at: Date): void {
    this.outcome = {
      status,
      reason: failure?.reason ?? null,
      code: failure?.code ?? null,
      file: failure?.file ?? null,
      at: at.toISOString(),
      version: this.served?.manifest.version ?? null,
      ...(failure?.problems ? { rejected_version: failure.rejected_version ?? null, problems: failure.problems } : {}),
    };
  }

  close(): void {
    this.current?.retire();
    this.current = null;
  }
}
