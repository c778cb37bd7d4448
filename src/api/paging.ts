/**
 * Paging, all of it (docs/api.md#paging): the limit and offset parameters with their
 * defaults and bounds, the page a request asks for, the count/next/previous envelope (Django REST
 * framework's LimitOffsetPagination shape) and its schema for the OpenAPI document.
 */
import { z } from 'zod';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

const LIMIT_MESSAGE = `must be an integer between 1 and ${MAX_LIMIT}`;
const OFFSET_MESSAGE = `must be an integer between 0 and ${Number.MAX_SAFE_INTEGER}`;

/** The query parameters of every paged endpoint. */
export const pagingParams = {
  limit: z
    .string()
    .regex(/^\d+$/, { error: LIMIT_MESSAGE })
    .transform(Number)
    .pipe(z.number().min(1, { error: LIMIT_MESSAGE }).max(MAX_LIMIT, { error: LIMIT_MESSAGE }))
    .meta({
      description: `Page size, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})`,
      example: DEFAULT_LIMIT,
      openapi: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
    })
    .optional(),
  offset: z
    .string()
    .regex(/^\d+$/, { error: OFFSET_MESSAGE })
    .transform(Number)
    // Past 2^53 an offset could not be given back exactly in the paging links and the permalink.
    .pipe(z.number().max(Number.MAX_SAFE_INTEGER, { error: OFFSET_MESSAGE }))
    .meta({
      description: 'Items to skip (default 0)',
      example: 0,
      openapi: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 },
    })
    .optional(),
};

interface PagingParams {
  limit?: number;
  offset?: number;
}

/** The page a request asks for, defaults applied. */
export function pageBounds(params: PagingParams): { limit: number; offset: number } {
  return { limit: params.limit ?? DEFAULT_LIMIT, offset: params.offset ?? 0 };
}

/** A download without limit and offset holds every matching row, not a page (docs/api.md#full-exports). */
export const isWholeExport = (params: PagingParams): boolean => params.limit === undefined && params.offset === undefined;

/** A paged answer: one page of items and the number of items matching in all. */
export interface Page {
  count: number;
  items: unknown[];
}

export interface Envelope {
  count: number;
  next: string | null;
  previous: string | null;
  results: unknown[];
}

/**
 * The envelope of a page. Links are relative, on the canonical path, and keep every other
 * parameter of the request (`others`, in the canonical order; see http/canonical-query.ts), and
 * `format` last when the request gave it (`format`, in its canonical spelling): a client that
 * chose a format against its own Accept header gets the same format on the next page.
 */
export function envelope(path: string, others: readonly (readonly [string, string])[], page: Page, params: PagingParams, format?: string): Envelope {
  const { limit, offset } = pageBounds(params);
  const kept = others.filter(([key]) => key !== 'limit' && key !== 'offset').map(([key, value]) => [key, value]);
  if (format !== undefined) kept.push(['format', format]);
  const link = (at: number) => `${path}?${new URLSearchParams([['limit', String(limit)], ['offset', String(at)], ...kept])}`;
  return {
    count: page.count,
    next: offset + limit < page.count ? link(offset + limit) : null,
    previous: offset > 0 ? link(Math.max(0, offset - limit)) : null,
    results: page.items,
  };
}

/** The envelope's schema around a paged endpoint's item. */
export function pageOf(item: z.ZodType) {
  const link = (description: string) => z.string().nullable().meta({ description });
  return z.object({
    count: z.int().min(0).meta({ description: 'Number of matching items (root nodes with hierarchy=true)' }),
    next: link('Relative URL of the next page, keeping every other parameter; null on the last page'),
    previous: link('Relative URL of the previous page; null on the first page'),
    results: z.array(item).meta({ description: 'The items of this page' }),
  });
}

/** RFC 8288 Link header of a page: its next and previous pages, as the envelope gives them. */
export function linkHeader({ next, previous }: Envelope): string | undefined {
  const links = [...(next ? [`<${next}>; rel="next"`] : []), ...(previous ? [`<${previous}>; rel="prev"`] : [])];
  return links.length ? links.join(', ') : undefined;
}
