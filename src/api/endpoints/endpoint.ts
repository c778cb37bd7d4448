/**
 * What a data endpoint is (docs/api.md#data-endpoints), described as data: a path, the zod schema of
 * its query, and its variants. A variant is one shape of the answer (the flat list; the category
 * tree with hierarchy=true) with its own JSON item, its own download table and its own way to
 * answer. pipeline.ts runs every endpoint the same way; openapi.ts documents them.
 */
import { z } from 'zod';
import type { Lease } from '../../data/lease.js';
import type { ExportQuery } from '../../formats/format.js';
import { isFormatName, type FormatName } from '../../formats/registry.js';
import { downloadTable } from '../download-table.js';
import type { FlatRow, Table } from '../../formats/table.js';
import type { Page } from '../paging.js';
import { param, parseQuery } from '../params.js';
import { checkFields, fieldNames, fieldsAnswered, fieldsParameter, selectColumns } from '../fields-selection.js';
import { checkDeprecations, type Deprecations } from '../versioning.js';

type Shape = Record<string, z.ZodType>;

/** A full export: the query DuckDB answers it with (the lease and columns are the pipeline's), or rows built in JS. */
export type FullExport = Omit<ExportQuery, 'lease' | 'columns'> | AsyncIterable<FlatRow[]>;

/** Every data endpoint also takes `format` (docs/api.md#formats) and `fields` (docs/api.md#field-selection); pipeline.ts acts on them. */
const COMMON = { format: param.format.optional(), fields: fieldsParameter(['id'], 'id').optional() };

/** The parsed query of an endpoint whose own parameters are S. */
export type Params<S extends Shape> = z.infer<z.ZodObject<S & typeof COMMON>>;

export interface Variant<P = never> {
  /** `list` or `tree`: names the variant in the OpenAPI document. */
  name: string;
  /** Which requests this variant answers (the first variant answers the others), in words for the docs. */
  when?: { test(params: P): boolean; text: string };
  /** The shape of one JSON item (of `results` on paged endpoints). */
  item: z.ZodType;
  /** How one JSON item flattens into the rows of a download. */
  table: Table;
  answer(params: P, lease: Lease): Promise<unknown[] | Page>;
  /**
   * Paged endpoints: every matching row, for a download without limit and offset. A query whose
   * columns are the table's (each format then makes its bytes from DuckDB's results, see
   * formats/format.ts), or rows already flat.
   */
  exportAll?(params: P, lease: Lease): FullExport;
}

interface EndpointSpec<S extends Shape> {
  /** Canonical path, with the trailing slash; served without it too. */
  path: string;
  summary: string;
  /** For the docs: what a row is, the order, the filters. */
  description: string;
  /** The endpoint's own parameters; `format` is added. */
  query: S;
  /** Paged endpoints answer a Page and are wrapped in the count/next/previous envelope. */
  paged: boolean;
  /** The default variant first. */
  variants: readonly [Variant<Params<S>>, ...Variant<Params<S>>[]];
  /** Figures a measure or a change applies to; the download's columns of them may hold nulls. */
  figures?: readonly string[];
  /**
   * Checks what the request needs of the drop, before any tag or query (a 400 otherwise), and
   * gives the headers of its answer: Budget-Measure on endpoints that take a measure.
   */
  headers?(params: Params<S>, lease: Lease): Record<string, string> | Promise<Record<string, string>>;
  /** What of this endpoint is deprecated (docs/api.md#versioning-and-deprecation); nothing the seed names ever is. */
  deprecations?: Deprecations & { parameters?: { [K in keyof S | 'format']?: Deprecations['endpoint'] } };
}

/** An endpoint with its parameter types sealed in: what the pipeline, the index and the docs see. */
export interface Endpoint {
  path: string;
  summary: string;
  description: string;
  /** Every parameter, `format` included. */
  query: z.ZodObject<Shape>;
  paged: boolean;
  variants: readonly [Variant, ...Variant[]];
  deprecations?: Deprecations;
  /** Validates a request's query (a 400 HttpError when it is not valid) and binds it to the variant that answers it. */
  bind(url: string): Bound;
}

/** A valid request to an endpoint: its parameters and the variant that answers them. */
export interface Bound {
  /** The parsed parameters, in the endpoint's order; the pipeline reads format, limit and offset. */
  params: Record<string, unknown>;
  format: FormatName | undefined;
  variant: Variant;
  /** The variant's download table, with nullable measured figures and change columns when asked for. */
  table: Table;
  /** Checks what the request needs of the drop (a 400 otherwise) and gives its answer's headers. */
  headers(lease: Lease): Promise<Record<string, string>>;
  answer(lease: Lease): Promise<unknown[] | Page>;
  /** Every matching row, on paged endpoints. */
  exportAll?(lease: Lease): FullExport;
}

export function define<S extends Shape>(spec: EndpointSpec<S>): Endpoint {
  // `fields` takes the endpoint's own field names; its example is all of them, so that the docs
  // page's "Try it out", which fills in examples (change=previous_year among them), still shows
  // whole rows.
  const names = [...new Set(spec.variants.flatMap((v) => fieldNames(v.item)))];
  const example = fieldNames(spec.variants[0].item).join(',') || 'id';
  const query = z.object({ ...spec.query, ...COMMON, fields: fieldsParameter(names, example, spec.variants.length > 1).optional() } as S &
    typeof COMMON);
  return {
    path: spec.path,
    summary: spec.summary,
    description: spec.description,
    query,
    paged: spec.paged,
    variants: spec.variants,
    deprecations: spec.deprecations && checkDeprecations(spec.path, spec.deprecations),
    bind(url) {
      const params = parseQuery(url, query);
      const given: Record<string, unknown> = params;
      const variant = spec.variants.find((v) => v.when?.test(params)) ?? spec.variants[0];
      const { exportAll } = variant;
      const names = fieldsAnswered(variant.item, given);
      const fields = given.fields as string[] | undefined;
      checkFields(fields, names);
      return {
        params: given,
        format: isFormatName(given.format) ? given.format : undefined,
        variant,
        table: selectColumns(downloadTable(variant.table, spec.figures, given), fields, names),
        headers: async (lease) => (await spec.headers?.(params, lease)) ?? {},
        answer: (lease) => variant.answer(params, lease),
        exportAll: exportAll && ((lease) => exportAll(params, lease)),
      };
    },
  };
}

/** The count of a count-joined page query (see sql/expenses.sql): on every row, and on the one row of an empty page. */
const countOf = (rows: readonly { count: number }[]) => Number(rows[0]?.count ?? 0);

/** Splits the rows of a count-joined page query into count and items. */
export function page<R extends { count: number; id: unknown }>(rows: R[], item: (row: Exclude<R, { id: null }>) => unknown): Page {
  return { count: countOf(rows), items: rows.filter((r): r is Exclude<R, { id: null }> => r.id !== null).map(item) };
}

/** Where a line or series row comes from, as every such row carries it (docs/api.md#stages): null and false when the drop does not say. */
export const provenance = <S>(r: { stage: S; source_id: unknown; derived: boolean }) => ({
  stage: r.stage,
  source_id: r.source_id,
  derived: r.derived,
});

export const ORDER = (order: string) => `Ordered by ${order}.`;

/** The endpoint with these parts marked deprecated (docs/api.md#versioning-and-deprecation). */
export function withDeprecations(endpoint: Endpoint, marks: Deprecations): Endpoint {
  return { ...endpoint, deprecations: checkDeprecations(endpoint.path, marks) };
}
