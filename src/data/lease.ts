/**
 * A request's hold on one drop, and the drop it holds: what the store (store.ts) hands out and the
 * releases (releases.ts) hand out for older versions. Apart from both, so that the store may keep
 * its releases without the two importing each other.
 */
import type { DuckDBDataChunk } from '@duckdb/node-api';
import type { LoadedDrop } from './drop.js';
import type { ParamsOf, QueryName, RowOf } from './queries.js';

export type Row = Record<string, unknown>;
/** A number array is a list of years, bound as INTEGER[] (a `year` list or range, docs/api.md). */
export type Params = Record<string, string | number | bigint | boolean | null | readonly (number | bigint)[] | readonly string[]>;

/** A drop open for queries (store.ts's ServedDrop): each request leases it; once replaced it is retired. */
export interface OpenDrop {
  readonly data: LoadedDrop;
  /** `signal`: the client hung up; its queries still waiting for a connection leave the queue. */
  lease(signal?: AbortSignal): Lease;
  /** Closes the drop once the requests holding it are done. */
  retire(): void;
}

/** `D`: the drop's own type, where its holder knows it (the store's leases give a ServedDrop). */
export interface Lease<D extends OpenDrop = OpenDrop> {
  drop: D;
  /** Runs sql/<name>.sql with its parameters (data/queries.ts types both, and the rows). */
  query<N extends QueryName>(name: N, ...params: keyof ParamsOf<N> extends never ? [] : [ParamsOf<N>]): Promise<RowOf<N>[]>;
  /** DuckDB's chunks themselves, for exports built column by column; see ServedDrop.chunks. */
  chunks(sql: string, params: Params, rowsAtMost?: number): AsyncGenerator<DuckDBDataChunk>;
  /**
   * Has DuckDB write `sql`'s result to `file` itself (COPY ... TO) until done or `stop`; see
   * ServedDrop.copy. Not stopped by the client of the lease: others may be reading the file.
   */
  copy(sql: string, params: Params, file: string, options: string, signal: AbortSignal): Promise<void>;
  release(): void;
}
