/**
 * Where things are served: the one API prefix, and the service routes (everything but the data
 * endpoints, which src/api/endpoints/ lists) as one table. app.ts serves them, the index and the
 * OpenAPI document list them, and the rate limiter exempts the ones marked `rateLimited: false`.
 */
import type { z } from 'zod';
import * as responses from './responses.js';
import { FORMATS } from '../formats/registry.js';

export const API_PREFIX = '/budget/api';

export interface ServiceRoute {
  /** Canonical path, with the trailing slash where it has one; served without it too. */
  path: string;
  operationId: string;
  summary: string;
  /** The JSON answer's schema for the OpenAPI document; the docs page is HTML and has none. */
  answer?: z.ZodType;
  /** Needs a loaded drop, so may answer 503. */
  needsData: boolean;
  /** Counts against the rate limit; health checks must not, or a busy client would fail them. */
  rateLimited: boolean;
  /** Listed among the endpoints of the index (the others have their own place in it). */
  inIndex: boolean;
  /** What it answers in, as the index names it and the OpenAPI document types it; JSON unless said. */
  representation: { format: string; mediaType: string };
}

const route = (r: Omit<ServiceRoute, 'needsData' | 'rateLimited' | 'inIndex' | 'representation'> & Partial<ServiceRoute>): ServiceRoute => ({
  needsData: false,
  rateLimited: true,
  inIndex: false,
  representation: { format: 'json', mediaType: FORMATS.json.mediaType },
  ...r,
});

export const SERVICE_ROUTES = {
  index: route({
    path: `${API_PREFIX}/`,
    operationId: 'getIndex',
    summary: 'The endpoints of the API, with links',
    answer: responses.ServiceIndex,
  }),
  meta: route({
    path: `${API_PREFIX}/meta/`,
    operationId: 'getMeta',
    summary: 'The data drop being served: version, row counts, years, last reload',
    answer: responses.Meta,
    needsData: true,
    inIndex: true,
  }),
  fields: route({
    path: `${API_PREFIX}/fields/`,
    operationId: 'getFields',
    summary: "Every field of every endpoint's rows: type, unit, label and definition, in English and French",
    answer: responses.Fields,
    needsData: true,
    inIndex: true,
  }),
  openapi: route({
    path: `${API_PREFIX}/openapi.json`,
    operationId: 'getOpenApi',
    summary: `This OpenAPI 3.1 document (read it at ${API_PREFIX}/docs/)`,
    inIndex: true,
  }),
  releases: route({
    path: `${API_PREFIX}/releases/`,
    operationId: 'getReleases',
    summary: 'The releases kept, newest first, with what each changed; each answers every data endpoint at releases/{version}/ENDPOINT',
    answer: responses.ReleaseList,
    inIndex: true,
  }),
  releasesFeed: route({
    path: `${API_PREFIX}/releases/feed.atom`,
    operationId: 'getReleasesFeed',
    summary: 'The releases as an Atom feed, one entry per release',
    inIndex: true,
    representation: { format: 'atom', mediaType: 'application/atom+xml' },
  }),
  changelog: route({
    path: `${API_PREFIX}/changelog`,
    operationId: 'getChangelog',
    summary: "The API's changelog (Markdown): what each version added, changed, deprecated or removed",
    inIndex: true,
    representation: { format: 'markdown', mediaType: 'text/markdown' },
  }),
  docs: route({
    path: `${API_PREFIX}/docs/`,
    operationId: 'getDocs',
    summary: 'The docs page: read and try the API in a browser',
    representation: { format: 'html', mediaType: 'text/html' },
  }),
  healthz: route({
    path: '/healthz',
    operationId: 'getLiveness',
    summary: 'Process alive',
    answer: responses.Health,
    rateLimited: false,
  }),
  readyz: route({
    path: '/readyz',
    operationId: 'getReadiness',
    summary: '200 once data is loaded, else 503',
    answer: responses.Health,
    needsData: true,
    rateLimited: false,
  }),
} as const satisfies Record<string, ServiceRoute>;

/** Both spellings of a path: with and without its trailing slash. */
export const spellings = (path: string): string[] => (path.endsWith('/') ? [path, path.slice(0, -1)] : [path, `${path}/`]);
