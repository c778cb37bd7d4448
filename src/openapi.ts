/**
 * The OpenAPI 3.1 document, generated from the code that serves the API: query parameters from the
 * zod schemas that validate them (io: 'input', what a client sends), answers from the zod schemas
 * in responses.ts, CSV/Arrow columns from each endpoint's table. Nothing here restates a shape by
 * hand, so the document cannot drift from the code; test/openapi.test.ts checks real answers
 * against it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { csvOptions } from './formats/csv.js';
import { z } from 'zod';
import { projectRoot } from './data/sql.js';
import { ENDPOINTS, TREE_TABLE, type Endpoint } from './endpoints/index.js';
import { FORMATS } from './formats/negotiate.js';
import type { Column, Table } from './formats/table.js';
import * as responses from './responses.js';

type Json = Record<string, unknown>;

export const OPENAPI_PATH = '/budget/api/openapi.json';
export const DOCS_PATH = '/budget/api/docs/';

const UNITS =
  "Amounts are in the unit of the data drop being served: the sample data uses MDT (millions of Tunisian dinars). " +
  'Money is rounded to 3 decimals and percentages to 2 (half away from zero).';

const DESCRIPTION = `Read-only data on the state budget: totals, categories, expenses, resources, organizations,
debt and deficit, served from a published data drop (see \`/budget/api/meta/\` for the one being served).

${UNITS}

**Formats.** Every data endpoint answers JSON (default), CSV (\`text/csv\`, RFC 4180, UTF-8, a header
row) or an Arrow IPC stream (\`application/vnd.apache.arrow.stream\`), chosen by the \`format\` parameter
or the \`Accept\` header; \`format\` wins. Downloads are attachments. Nested objects are flattened with
\`_\`; a category tree (\`hierarchy=true\`) is one row per node with \`parent_id\` and \`depth\`, depth-first.
On the paged endpoints a CSV or Arrow download without \`limit\` and \`offset\` holds every matching row
(streamed, no page cap).

**Paging.** Paged endpoints answer \`{count, next, previous, results}\`; \`limit\` 1..1000 (default 100),
\`offset\` >= 0. Every list has a fixed order, given per endpoint.

**HTTP.** GET and HEAD only (other methods: 405 with \`Allow\`); paths work with and without the trailing
slash; CORS is open to any origin; every 200 has an \`ETag\` (send \`If-None-Match\` for a 304) and
\`Cache-Control\`. Errors are RFC 9457 problem documents (\`application/problem+json\`) with a stable
\`code\`. Unknown query parameters are refused (400 \`unknown_parameter\`), as are repeated or empty ones.
Requests are rate limited per client (\`RateLimit\` headers, IETF draft 8; over the limit: 429).`;

/** The document depends only on the code; app.ts renders it once, when first asked for. */
export function openApiDocument(): Json {
  // A fresh registry per build: every schema in it becomes a named component, and the
  // schemas that use it refer to it by $ref.
  const registry = z.registry<{ id: string }>();
  const name = (schema: z.ZodType): string => {
    const title = schema.meta()?.title;
    if (typeof title !== 'string') throw new Error('a component schema needs a title (see src/responses.ts)');
    return title;
  };
  const component = (schema: z.ZodType, id = name(schema)) => {
    if (!registry.has(schema)) registry.add(schema, { id });
    return { $ref: `#/components/schemas/${id}` };
  };
  component(responses.Problem);

  const paths: Json = {};
  for (const endpoint of ENDPOINTS) {
    component(endpoint.item);
    if (endpoint.hierarchy) component(responses.CategoryNode);
    const body = endpoint.paged
      ? responses.pageOf(endpoint.hierarchy ? z.union([endpoint.item, responses.CategoryNode]) : endpoint.item)
      : z.array(endpoint.item);
    const answer = component(body, `${name(endpoint.item)}${endpoint.paged ? 'Page' : 'List'}`);
    paths[endpoint.path] = { get: dataOperation(endpoint, answer) };
  }
  paths['/budget/api/'] = { get: serviceOperation('getIndex', 'The endpoints of the API, with links', component(responses.ServiceIndex)) };
  paths['/budget/api/meta/'] = {
    get: serviceOperation('getMeta', 'The data drop being served: version, row counts, years, last reload', component(responses.Meta), { needsData: true }),
  };
  paths[OPENAPI_PATH] = {
    get: serviceOperation('getOpenApi', `This OpenAPI 3.1 document (read it at ${DOCS_PATH})`, { type: 'object' }),
  };
  paths['/healthz'] = { get: serviceOperation('getLiveness', 'Process alive', component(responses.Health), { limited: false }) };
  paths['/readyz'] = { get: serviceOperation('getReadiness', '200 once data is loaded, else 503', component(responses.Health), { limited: false, needsData: true }) };

  const { schemas } = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}` });
  for (const schema of Object.values(schemas)) {
    // Components live inside the document: no dialect or identifier of their own.
    delete schema.$schema;
    delete schema.$id;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Public Budget Data Service',
      version: packageVersion(),
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    tags: [
      { name: 'data', description: `The budget data. ${UNITS}` },
      { name: 'service', description: 'Index, description of the data drop, this document, health checks' },
    ],
    paths,
    components: { schemas, responses: PROBLEM_RESPONSES, headers: HEADERS },
  };
}

function dataOperation(endpoint: Endpoint, answer: Json): Json {
  const example = endpoint.item.meta()?.example;
  return {
    operationId: operationId(endpoint.path),
    tags: ['data'],
    summary: endpoint.summary,
    description: `${endpoint.description}\n\n${downloadDescription(endpoint)}`,
    parameters: Object.entries(endpoint.query.shape).map(([key, schema]) => parameter(key, schema)),
    responses: {
      200: {
        description: `The answer, in the format asked for. ${UNITS}`,
        headers: {
          ETag: { $ref: '#/components/headers/ETag' },
          'Cache-Control': { $ref: '#/components/headers/Cache-Control' },
          Vary: { $ref: '#/components/headers/Vary' },
          'Content-Disposition': { $ref: '#/components/headers/Content-Disposition' },
          RateLimit: { $ref: '#/components/headers/RateLimit' },
        },
        content: {
          [FORMATS.json.mediaType]: {
            schema: answer,
            example: endpoint.paged ? { count: 1, next: null, previous: null, results: [example] } : [example],
          },
          [FORMATS.csv.mediaType]: {
            schema: { type: 'string', description: `CSV with a header row. ${columnList(endpoint)}` },
            example: csvExample(endpoint.table, example),
          },
          [FORMATS.arrow.mediaType]: {
            schema: {
              type: 'string',
              contentMediaType: FORMATS.arrow.mediaType,
              description: `An Arrow IPC stream. ${columnList(endpoint, true)}`,
            },
          },
        },
      },
      304: { description: 'Not Modified: the If-None-Match tag is current', headers: { ETag: { $ref: '#/components/headers/ETag' } } },
      400: { $ref: '#/components/responses/BadRequest' },
      429: { $ref: '#/components/responses/TooManyRequests' },
      500: { $ref: '#/components/responses/InternalError' },
      503: { $ref: '#/components/responses/DataUnavailable' },
    },
  };
}

interface ServiceTraits {
  /** Needs a loaded drop, so may answer 503. */
  needsData?: boolean;
  /** Counts against the rate limit (not the health checks). */
  limited?: boolean;
}

function serviceOperation(id: string, summary: string, schema: Json, traits: ServiceTraits = {}): Json {
  const { needsData = false, limited = true } = traits;
  return {
    operationId: id,
    tags: ['service'],
    summary,
    description: `${summary}. Takes no query parameters.`,
    responses: {
      200: { description: 'OK', content: { [FORMATS.json.mediaType]: { schema } } },
      304: { description: 'Not Modified: the If-None-Match tag is current' },
      400: { $ref: '#/components/responses/BadRequest' },
      ...(limited ? { 429: { $ref: '#/components/responses/TooManyRequests' } } : {}),
      500: { $ref: '#/components/responses/InternalError' },
      ...(needsData ? { 503: { $ref: '#/components/responses/DataUnavailable' } } : {}),
    },
  };
}

/** A query parameter, from the zod schema that validates it; its .meta() gives description and example. */
function parameter(key: string, schema: z.ZodType): Json {
  const { description, example, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Json;
  delete rest.$schema;
  if (typeof description !== 'string' || example === undefined) {
    throw new Error(`query parameter ${key} needs .meta({ description, example }) (see src/params.ts)`);
  }
  return { name: key, in: 'query', required: false, description, example, schema: rest };
}

function columnList(endpoint: Endpoint, types = false): string {
  const list = (columns: readonly Column[]) =>
    columns
      .map((c) => (types ? `${c.name} (${ARROW_NAMES[c.type]}${c.nullable ? ', nullable' : ''})` : c.name))
      .join(', ');
  const flat = `Columns: ${list(endpoint.table.columns)}.`;
  return endpoint.hierarchy ? `${flat} With hierarchy=true, one row per tree node: ${list(TREE_TABLE.columns)}.` : flat;
}

const ARROW_NAMES = { int32: 'Int32', int64: 'Int64', float64: 'Float64', utf8: 'Utf8' } as const;

function downloadDescription(endpoint: Endpoint): string {
  const whole = endpoint.paged
    ? ' Without limit and offset, a CSV or Arrow download holds every matching row, streamed; with either, just that page.'
    : '';
  return `**CSV and Arrow.** ${columnList(endpoint)}${whole}`;
}

function csvExample(table: Table, item: unknown): string {
  return stringify(table.rows(item), csvOptions(table.columns));
}

/** `/budget/api/organization/stats/` → `getOrganizationStats`. */
function operationId(endpointPath: string): string {
  const words = endpointPath.replace(/^\/budget\/api\//, '').split(/[/-]/).filter(Boolean);
  return `get${words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`;
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

const problem = (description: string, headers: Json = {}): Json => ({
  description: `${description} (an RFC 9457 problem document)`,
  headers,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

const PROBLEM_RESPONSES: Json = {
  BadRequest: problem('A query parameter is unknown (code unknown_parameter), repeated, empty or invalid (invalid_parameter); `errors` names each'),
  TooManyRequests: problem('Over the rate limit (code rate_limited)', { 'Retry-After': { $ref: '#/components/headers/Retry-After' } }),
  InternalError: problem('The server failed (code internal_error); it shows no internals'),
  DataUnavailable: problem('No data drop is loaded yet (code data_unavailable); try again shortly'),
};

const HEADERS: Json = {
  ETag: { description: "Changes whenever the drop's content or the representation changes", schema: { type: 'string' } },
  'Cache-Control': { description: 'public, max-age=N (N set by the deployment)', schema: { type: 'string' } },
  Vary: { description: 'Accept: the same URL answers JSON, CSV or Arrow', schema: { type: 'string' } },
  'Content-Disposition': {
    description: 'CSV and Arrow only: attachment; filename="<endpoint>-<parameters>.csv" (or .arrow)',
    schema: { type: 'string' },
  },
  RateLimit: { description: 'Requests left in the window (IETF draft 8)', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds until the limit resets', schema: { type: 'integer' } },
};
