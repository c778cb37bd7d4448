/**
 * The drop being served. Queries run on a small pool of connections, because a DuckDB connection
 * runs one statement at a time and a second statement on a busy connection interrupts the first.
 *
 * A request takes a lease on the current drop and runs all its queries on it, so that a reload
 * (swap) never mixes two drops in one answer; a replaced drop is closed once its last lease ends.
 */
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';
import type { LoadedDrop } from './drop.js';
import { readSql } from './sql.js';
import { plainValue } from './values.js';

export type Row = Record<string, unknown>;
export type Params = Record<string, string | number | bigint | boolean | null>;

function toRow(names: readonly string[], values: readonly unknown[]): Row {
  const row: Row = {};
  for (let i = 0; i < names.length; i++) row[names[i]!] = plainValue(values[i]);
  return row;
}

export class ServedDrop {
  private readonly idle: DuckDBConnection[] = [];
  /** Each pooled connection keeps its statements prepared: parsing and planning cost more than small queries. */
  private readonly prepared = new WeakMap<DuckDBConnection, Map<string, Promise<DuckDBPreparedStatement>>>();
  private readonly waiting: ((connection: DuckDBConnection) => void)[] = [];
  private opened = 0;
  private leases = 0;
  private retired = false;
  private closed = false;

  constructor(
    readonly data: LoadedDrop,
    private readonly poolSize: number,
  ) {}

  lease(): Lease {
    this.leases += 1;
    let released = false;
    return {
      drop: this,
      query: (name, params) => this.query(name, params),
      stream: (name, params) => this.stream(name, params),
      release: () => {
        if (released) return;
        released = true;
        this.leases -= 1;
        this.closeIfDone();
      },
    };
  }

  /** Runs `sql/<name>.sql` with bound parameters; returns rows of plain JS values. */
  async query(name: string, params: Params = {}): Promise<Row[]> {
    const connection = await this.acquire();
    try {
      const statement = await this.statement(connection, name);
      statement.bind(params);
      const reader = await statement.runAndReadAll();
      const names = reader.columnNames();
      return reader.getRows().map((values) => toRow(names, values));
    } finally {
      this.releaseConnection(connection);
    }
  }

  /**
   * Runs `sql/<name>.sql` and yields its rows one DuckDB chunk (up to 2048 rows) at a time, for
   * exports too long to hold in memory. The next chunk is fetched only when the consumer asks, and
   * the pooled connection is held until iteration stops; ending early (a break, an error, a client
   * gone: `return()` on this generator) runs the finally that gives it back.
   */
  async *stream(name: string, params: Params = {}): AsyncGenerator<Row[]> {
    const sql = await readSql(name);
    const connection = await this.acquire();
    try {
      const result = await connection.stream(sql, params);
      const names = result.columnNames();
      for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
        yield chunk.getRows().map((values) => toRow(names, values));
      }
    } finally {
      this.releaseConnection(connection);
    }
  }

  private statement(connection: DuckDBConnection, name: string): Promise<DuckDBPreparedStatement> {
    let statements = this.prepared.get(connection);
    if (!statements) this.prepared.set(connection, (statements = new Map()));
    let statement = statements.get(name);
    if (!statement) {
      statement = readSql(name).then((sql) => connection.prepare(sql));
      // A statement that failed to prepare is not kept: the next request tries again.
      statement.catch(() => statements.delete(name));
      statements.set(name, statement);
    }
    return statement;
  }

  /** Stops new leases from being useful; closes the database when in-flight requests are done. */
  retire(): void {
    this.retired = true;
    this.closeIfDone();
  }

  private async acquire(): Promise<DuckDBConnection> {
    const free = this.idle.pop();
    if (free) return free;
    if (this.opened < this.poolSize) {
      this.opened += 1;
      try {
        return await this.data.instance.connect();
      } catch (error) {
        this.opened -= 1;
        throw error;
      }
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private releaseConnection(connection: DuckDBConnection): void {
    const next = this.waiting.shift();
    if (next) next(connection);
    else this.idle.push(connection);
  }

  private closeIfDone(): void {
    if (!this.retired || this.leases > 0 || this.closed) return;
    this.closed = true;
    for (const connection of this.idle.splice(0)) connection.closeSync();
    this.data.instance.closeSync();
  }
}

export interface Lease {
  drop: ServedDrop;
  query(name: string, params?: Params): Promise<Row[]>;
  /** Rows chunk by chunk, for full exports; see ServedDrop.stream. */
  stream(name: string, params?: Params): AsyncGenerator<Row[]>;
  release(): void;
}

/** The last attempt to load a drop, as /budget/api/meta/ shows it. */
export interface ReloadOutcome {
  status: 'ok' | 'rejected';
  /** Why the drop was rejected (the DropError message), or null. */
  reason: string | null;
  at: string;
  /** The version served after the attempt: the new drop's, or the old one's when rejected. */
  version: string | null;
}

export class Store {
  private current: ServedDrop | null = null;
  private readonly swapListeners: (() => void)[] = [];
  private outcome: ReloadOutcome | null = null;

  constructor(private readonly poolSize = 4) {}

  get ready(): boolean {
    return this.current !== null;
  }

  /** The drop to answer one request with, or null before any drop is loaded. */
  lease(): Lease | null {
    return this.current?.lease() ?? null;
  }

  get served(): LoadedDrop | null {
    return this.current?.data ?? null;
  }

  get lastReload(): ReloadOutcome | null {
    return this.outcome;
  }

  /** Serves `data` from now on (a successful load); the previous drop closes when its in-flight requests finish. */
  swap(data: LoadedDrop): void {
    const previous = this.current;
    this.current = new ServedDrop(data, this.poolSize);
    previous?.retire();
    this.record('ok', null, data.loadedAt);
    for (const listener of this.swapListeners) listener();
  }

  /** Calls `listener` after every swap, to drop what was derived from the previous drop. */
  onSwap(listener: () => void): void {
    this.swapListeners.push(listener);
  }

  /** Records a load that kept the served drop: `ok` when the drop was unchanged, `rejected` with the reason. */
  recordReload(status: ReloadOutcome['status'], reason: string | null = null): void {
    this.record(status, reason, new Date());
  }

  private record(status: ReloadOutcome['status'], reason: string | null, at: Date): void {
    this.outcome = { status, reason, at: at.toISOString(), version: this.served?.manifest.version ?? null };
  }

  close(): void {
    this.current?.retire();
    this.current = null;
  }
}
