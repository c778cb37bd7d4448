/**
 * The OpenAPI 3.1 document, generated from the code that serves the API: query parameters from the
 * zod schemas that validate them (io: 'input', what a client sends), answers from the zod schemas
 * in responses.ts, download columns from each endpoint variant's table, each format's media type
 * from its own module (formats/registry.ts), service routes from routes.ts. Nothing here restates a
 * shape by hand, so the document cannot drift from the code; test/openapi.test.ts checks real
 * answers against it.
 */
import { z } from 'zod';
import { ENDPOINTS, type Endpoint } from './endpoints/index.js';
import { FORMATS, FORMAT_NAMES } from '../formats/registry.js';
import { pageOf } from './paging.js';
import { endpointName, ownDefinition } from './fields.js';
import { ALWAYS_KEPT } from './fields-selection.js';
import { fieldText } from './field-texts.js';
import * as responses from './responses.js';
import { API_PREFIX, SERVICE_ROUTES, type ServiceRoute } from './routes.js';
import { API_VERSION, CHANGELOG_PATH, MINIMUM_NOTICE_MONTHS, type Deprecations } from './versioning.js';
import { stageOfComplementary } from '../domain/stages.js';
import type { Definitions } from '../data/manifest.js';

type Json = Record<string, unknown>;

const UNITS =
  'Amounts are in the unit of the data drop being served: the sample data uses MDT (millions of Tunisian dinars). ' +
  'Money is rounded to 3 decimals and percentages to 2 (half away from zero). `/budget/api/meta/` gives the ' +
  "drop's `units` and the data's `license`; the licence of this document is the software's.";

const DESCRIPTION = `Read-only data on the state budget: totals, categories, expenses, resources, organizations,
debt and deficit, served from a published data drop (see \`${SERVICE_ROUTES.meta.path}\` for the one being served).

${UNITS}

**Formats.** Every data endpoint answers JSON (default), CSV (\`text/csv\`, RFC 4180, UTF-8, a header
row), an Arrow IPC stream (\`application/vnd.apache.arrow.stream\`) or a Parquet file
(\`application/vnd.apache.parquet\`, the Arrow stream's columns and types), chosen by the \`format\`
parameter or the \`Accept\` header; \`format\` wins. Downloads are attachments. Nested objects are
flattened with \`_\`; a category tree (\`hierarchy=true\`) is one row per node with \`parent_id\` and
\`depth\`, depth-first. On the paged endpoints a download without \`limit\` and \`offset\` holds every
matching row (streamed, no page cap).

**Stages.** \`stage\` chooses the figures: \`initial\` (the finance law as adopted), \`amended\` (as amended by
complementary laws) or \`outturn\` (executed). Lines and roll-ups count the lines of the stage (\`amended\`, the
default, counts initial lines and amendments); the series (debt, outstanding-debt, deficit) answer each year's
most final stage unless one is asked for. Lines and series rows carry their \`stage\`, \`source_id\` (see
\`/budget/api/sources/\`) and \`derived\`.

**Paging.** Paged endpoints answer \`{count, next, previous, results}\`; \`limit\` 1..1000 (default 100),
\`offset\` >= 0. Every list has a fixed order, given per endpoint.

**Releases and citing.** Every drop served is kept as a release: \`GET ${API_PREFIX}/releases/{version}/ENDPOINT\`
answers any data endpoint from that release, for ever (\`Cache-Control: immutable\`; an unknown version is a 404
\`unknown_release\`). Every data answer carries \`Content-Location\`: its permalink, the URL to cite. The releases are
listed at \`${API_PREFIX}/releases/\` (and \`releases/feed.atom\`); \`Accept-Datetime\` (RFC 7089) answers as of a past instant.

**HTTP.** GET and HEAD only (other methods: 405 with \`Allow\`); paths work with and without the trailing
slash; CORS is open to any origin; every 200 has an \`ETag\` (send \`If-None-Match\` for a 304) and
\`Cache-Control\`; the tag is the same whatever the order of the parameters. Errors are RFC 9457 problem documents (\`application/problem+json\`) with a stable
\`code\`. Unknown query parameters are refused (400 \`unknown_parameter\`), as are repeated or empty ones.
Requests are rate limited per client (\`RateLimit\` headers, IETF draft 8; over the limit: 429).

**Versioning.** \`info.version\` is the API's semantic version; the changelog is at \`${CHANGELOG_PATH}\`.
Within a major version changes are additive only (new endpoints, fields, parameters, formats, values):
clients must ignore fields they do not know. Something deprecated is marked \`deprecated: true\` here and
stays served for at least ${MINIMUM_NOTICE_MONTHS} months; every answer that uses it carries \`Deprecation\`
(RFC 9745), \`Sunset\` (RFC 8594) and \`Link: <changelog>; rel="deprecation"\`; after its sunset it answers
410 (code \`sunset\`) naming its replacement. A new major version is served beside the old under its own prefix.`;

/**
 * The document depends on the code, and on the served drop's `definitions` alone, which replace
 * the service's text of the fields they name; app.ts renders it once per drop, when first asked for.
 */
export function openApiDocument(endpoints: readonly Endpoint[] = ENDPOINTS, definitions: Definitions = {}): Json {
  // A fresh registry per build: every schema in it becomes a named component, and the
  // schemas that use it refer to it by $ref.
  const registry = z.registry<{ id: string }>();
  const name = (schema: z.ZodType): string => {
    const title = schema.meta()?.title;
    if (typeof title !== 'string') throw new Error('a component schema needs a title (see src/api/responses.ts)');
    return title;
  };
  const component = (schema: z.ZodType, id = name(schema)) => {
    if (!registry.has(schema)) registry.add(schema, { id });
    return { $ref: `#/components/schemas/${id}` };
  };
  component(responses.Problem);

  const paths: Json = {};
  for (const endpoint of endpoints) {
    const items = endpoint.variants.map((variant) => variant.item);
    for (const item of items) component(item);
    const item = items.length > 1 ? z.union(items) : items[0]!;
    const body = endpoint.paged ? pageOf(item) : z.array(item);
    const answer = component(body, `${name(items[0]!)}${endpoint.paged ? 'Page' : 'List'}`);
    paths[endpoint.path] = { get: dataOperation(endpoint, answer) };
  }
  // The same endpoints answered from one release (docs/api.md#releases).
  for (const endpoint of ENDPOINTS) {
    const operation = (paths[endpoint.path] as { get: Json }).get;
    paths[`${API_PREFIX}/releases/{version}/${endpoint.path.slice(API_PREFIX.length + 1)}`] = { get: atRelease(operation) };
  }
  for (const route of Object.values(SERVICE_ROUTES)) {
    paths[route.path] = { get: serviceOperation(route, route.answer ? component(route.answer) : undefined) };
  }

  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    // An id is served with every digit (responses.ts, INT64): a JavaScript number's bounds are not its.
    override: ({ jsonSchema }) => {
      if (jsonSchema.format === responses.INT64) {
        delete jsonSchema.minimum;
        delete jsonSchema.maximum;
      }
    },
  });
  for (const schema of Object.values(schemas)) {
    // Components live inside the document: no dialect or identifier of their own.
    delete schema.$schema;
    delete schema.$id;
  }
  const endpointNames = new Set(endpoints.map((e) => endpointName(e.path)));
  for (const endpoint of endpoints) describeFields(endpoint, schemas, definitions, endpointNames);
  for (const endpoint of endpoints) markDeprecatedFields(endpoint, schemas);
  for (const endpoint of endpoints) fieldsMayBeLeftOut(endpoint, schemas);

  return {
    openapi: '3.1.0',
    info: {
      title: 'Public Budget Data Service',
      version: API_VERSION,
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    tags: [
      { name: 'data', description: `The budget data. ${UNITS}` },
      { name: 'service', description: 'Index, description of the data drop, this document, health checks' },
      { name: 'releases', description: 'Every data endpoint as one release answered it: permalinks that never change' },
    ],
    // Relative: the document describes the server that serves it, whatever its host.
    servers: [{ url: '/', description: 'The server that serves this document' }],
    paths,
    // An API key is optional: it only buys a client its own rate limit.
    security: [{}, { apiKey: [] }],
    components: { schemas, responses: PROBLEM_RESPONSES, headers: HEADERS, securitySchemes: SECURITY_SCHEMES },
  };
}

/** A data operation as answered from one release: a `version` path parameter, immutable answers, 404 unknown_release. */
function atRelease(operation: Json): Json {
  return {
    ...operation,
    operationId: `${operation.operationId}AtRelease`,
    tags: ['releases'],
    summary: `${operation.summary}, from one release (a permalink)`,
    description: `The answer of ${operation.operationId} as the release \`version\` gave it, for ever: \`Cache-Control: public, max-age=31536000, immutable\`. Every current answer names its permalink in \`Content-Location\`.`,
    parameters: [
      {
        name: 'version',
        in: 'path',
        required: true,
        description: "A release's version (percent-encoded), as GET /budget/api/releases/ lists them",
        schema: { type: 'string' },
        example: 'tunisia-sample-2026.12',
      },
      ...(operation.parameters as Json[]),
    ],
    responses: { ...(operation.responses as Json), 404: { $ref: '#/components/responses/UnknownRelease' } },
  };
}

function dataOperation(endpoint: Endpoint, answer: Json): Json {
  const exampleItem = endpoint.variants[0].item.meta()?.example;
  const doc = {
    answer,
    example: endpoint.paged ? { count: 1, next: null, previous: null, results: [exampleItem] } : [exampleItem],
    tables: endpoint.variants.map((variant) => ({ table: variant.table, when: variant.when?.text })),
    exampleItem,
  };
  const marks = endpoint.deprecations ?? {};
  return {
    operationId: operationId(endpoint.path),
    tags: ['data'],
    summary: endpoint.summary,
    description: `${endpoint.description}${deprecationNote(marks)}\n\n${downloadDescription(endpoint)}`,
    ...(marks.endpoint && { deprecated: true }),
    parameters: Object.entries(endpoint.query.shape).map(([key, schema]) => {
      const mark = marks.parameters?.[key];
      const doc = parameter(key, schema, TIED[`${endpointName(endpoint.path)}.${key}`]);
      return mark ? { ...doc, deprecated: true, description: `${String(doc.description)} Deprecated: ${sunsetText(mark)}` } : doc;
    }),
    responses: {
      200: {
        description: `The answer, in the format asked for. ${UNITS}`,
        headers: {
          ETag: { $ref: '#/components/headers/ETag' },
          'Cache-Control': { $ref: '#/components/headers/Cache-Control' },
          Vary: { $ref: '#/components/headers/Vary' },
          'Content-Encoding': { $ref: '#/components/headers/Content-Encoding' },
          'Content-Disposition': { $ref: '#/components/headers/Content-Disposition' },
          RateLimit: { $ref: '#/components/headers/RateLimit' },
        },
        content: Object.fromEntries(Object.values(FORMATS).map((format) => [format.mediaType, format.openApi(doc)])),
      },
      304: { description: 'Not Modified: the If-None-Match tag is current', headers: { ETag: { $ref: '#/components/headers/ETag' } } },
      400: { $ref: '#/components/responses/BadRequest' },
      401: { $ref: '#/components/responses/Unauthorized' },
      429: { $ref: '#/components/responses/TooManyRequests' },
      500: { $ref: '#/components/responses/InternalError' },
      503: { $ref: '#/components/responses/DataUnavailable' },
    },
  };
}

const sunsetText = (mark: { sunset: string; replacement: string }) => `served until ${mark.sunset}; ${mark.replacement}.`;

/** The deprecated formats and fields of an endpoint, in words (OpenAPI can mark neither an enum value nor a download column). */
function deprecationNote(marks: Deprecations): string {
  const lines = [
    ...(marks.endpoint ? [`This endpoint is deprecated: ${sunsetText(marks.endpoint)}`] : []),
    ...Object.entries(marks.formats ?? {}).map(([name, mark]) => `The ${name} format is deprecated here: ${sunsetText(mark!)}`),
    ...Object.entries(marks.fields ?? {}).map(([name, mark]) => `The field ${name} is deprecated: ${sunsetText(mark)}`),
  ];
  return lines.length ? `\n\n**Deprecated.** ${lines.join(' ')}` : '';
}

/** `deprecated: true` on each deprecated field of the endpoint's item schemas. */
/**
 * Every field of a data answer is described by its English definition from the one table that
 * /budget/api/fields/ serves (field-texts.ts), nested fields too, or the drop's own
 * (ownDefinition, as /fields/ takes them).
 */
function describeFields(endpoint: Endpoint, schemas: Record<string, Json>, definitions: Definitions, endpointNames: ReadonlySet<string>): void {
  const name = endpointName(endpoint.path);
  const describe = (schema: Json | undefined, prefix: string) => {
    for (const [key, property] of Object.entries((schema?.properties ?? {}) as Record<string, Json>)) {
      const field = prefix + key;
      const text = ownDefinition(definitions, endpointNames, name, field) ?? fieldText(name, field)?.definition;
      if (text) property.description = text.en;
      const inner = (property.anyOf as Json[] | undefined)?.find((s) => s.type === 'object') ?? property;
      if (key !== 'change' && key !== 'change_pct' && inner.type === 'object') describe(inner, `${prefix}${key}.`);
      const items = inner.items as Json | undefined;
      if (inner.type === 'array' && items?.type === 'object') describe(items, `${prefix}${key}.`);
    }
  };
  for (const { item } of endpoint.variants) {
    const title = item.meta()?.title;
    if (typeof title === 'string') describe(schemas[title], '');
  }
}

function markDeprecatedFields(endpoint: Endpoint, schemas: Record<string, Json>): void {
  const fields = Object.keys(endpoint.deprecations?.fields ?? {});
  if (fields.length === 0) return;
  for (const { item } of endpoint.variants) {
    const title = item.meta()?.title;
    const properties = typeof title === 'string' ? (schemas[title]?.properties as Record<string, Json> | undefined) : undefined;
    for (const field of fields) if (properties?.[field]) properties[field] = { ...properties[field], deprecated: true };
  }
}

/**
 * `fields` leaves out of each row the fields it does not name, and a schema cannot depend on a
 * query parameter: a data row's fields are not `required` (but a tree node's children, which
 * `fields` keeps), and its description says when each is there. Nested objects stay whole.
 */
function fieldsMayBeLeftOut(endpoint: Endpoint, schemas: Record<string, Json>): void {
  for (const { item } of endpoint.variants) {
    const title = item.meta()?.title;
    const schema = typeof title === 'string' ? schemas[title] : undefined;
    if (!schema || !Array.isArray(schema.required)) continue;
    const kept = (schema.required as string[]).filter((field) => field === ALWAYS_KEPT);
    if (kept.length) schema.required = kept;
    else delete schema.required;
    schema.description = `${String(schema.description)}. ${FIELDS_PRESENT}`;
  }
}

const FIELDS_PRESENT = 'Every field is present unless the fields parameter leaves it out (change and change_pct only with change=previous_year).';

function serviceOperation(route: ServiceRoute, schema: Json | undefined): Json {
  const { mediaType } = route.representation;
  const content = { [mediaType]: { schema: mediaType === FORMATS.json.mediaType ? (schema ?? { type: 'object' }) : { type: 'string' } } };
  return {
    operationId: route.operationId,
    tags: ['service'],
    summary: route.summary,
    description: `${route.summary}. Takes no query parameters.`,
    responses: {
      200: { description: 'OK', content },
      304: { description: 'Not Modified: the If-None-Match tag is current' },
      400: { $ref: '#/components/responses/BadRequest' },
      ...(route.rateLimited ? { 401: { $ref: '#/components/responses/Unauthorized' }, 429: { $ref: '#/components/responses/TooManyRequests' } } : {}),
      500: { $ref: '#/components/responses/InternalError' },
      ...(route.needsData ? { 503: { $ref: '#/components/responses/DataUnavailable' } } : {}),
    },
  };
}

/**
 * A query parameter, from the zod schema that validates it; its .meta() gives description and
 * example, and `openapi` the type it stands for when the string it arrives as is a number, a
 * boolean or a list (see src/api/params.ts).
 */
/**
 * The rules that tie two parameters of an endpoint, said in the description of each parameter
 * they tie (a gateway validating one parameter at a time cannot check them; the server answers
 * 400 when they are broken).
 */
const ONLY_IN_TREES = 'Only with hierarchy=true (the category tree): on the flat list of lines, 400.';
const SINGLE_YEAR = 'With change: needs a single year (year=2024), otherwise 400.';
const SYNONYM = `include_complementary=false means stage=${stageOfComplementary(false)} and true means stage=${stageOfComplementary(true)}: both given and disagreeing (or with a list of stages), 400.`;
const TIED: Readonly<Record<string, string>> = {
  'expenses.measure': ONLY_IN_TREES,
  'expenses.base_year': ONLY_IN_TREES,
  'resources.measure': ONLY_IN_TREES,
  'resources.base_year': ONLY_IN_TREES,
  'expenses.hierarchy': 'measure and base_year are taken only with hierarchy=true.',
  'resources.hierarchy': 'measure and base_year are taken only with hierarchy=true.',
  'budget-categories.change': 'Needs a single year (year=2024), otherwise 400.',
  'budget-categories.year': SINGLE_YEAR,
  'organization/stats.change': 'Needs a single year (year=2024), otherwise 400.',
  'organization/stats.year': SINGLE_YEAR,
  'totals.include_complementary': SYNONYM,
  'totals.stage': SYNONYM,
};

function parameter(key: string, schema: z.ZodType, tied?: string): Json {
  const { description, example, openapi, ...derived } = z.toJSONSchema(schema, { io: 'input' }) as Json;
  delete derived.$schema;
  if (typeof description !== 'string' || example === undefined) {
    throw new Error(`query parameter ${key} needs .meta({ description, example }) (see src/api/params.ts)`);
  }
  const text = tied ? `${description}. ${tied}` : description;
  return { name: key, in: 'query', required: false, description: text, example, schema: nonEmpty((openapi as Json | undefined) ?? derived) };
}

/** An empty parameter (`search=`) is refused (400): every free string says minLength 1. */
function nonEmpty(schema: Json): Json {
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: (schema.anyOf as Json[]).map(nonEmpty) };
  if (Array.isArray(schema.oneOf)) return { ...schema, oneOf: (schema.oneOf as Json[]).map(nonEmpty) };
  if (schema.type === 'string' && schema.enum === undefined && schema.const === undefined && schema.minLength === undefined) {
    return { ...schema, minLength: 1 };
  }
  return schema;
}

function downloadDescription(endpoint: Endpoint): string {
  const downloads = FORMAT_NAMES.filter((name) => FORMATS[name].download).join(', ');
  const columns = endpoint.variants
    .map(({ table, when }) => `${when ? `${when.text}: ` : 'Columns: '}${table.columns.map((c) => c.name).join(', ')}.`)
    .join(' ');
  const whole = endpoint.paged ? ' Without limit and offset, a download holds every matching row, streamed; with either, just that page.' : '';
  return `**Downloads (${downloads}).** ${columns}${whole}`;
}

/** `/budget/api/organization/stats/` → `getOrganizationStats`. */
function operationId(endpointPath: string): string {
  const words = endpointPath.slice(`${API_PREFIX}/`.length).split(/[/-]/).filter(Boolean);
  return `get${words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`;
}

const problem = (description: string, headers: Json = {}): Json => ({
  description: `${description} (an RFC 9457 problem document)`,
  headers,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

const PROBLEM_RESPONSES: Json = {
  BadRequest: problem('A query parameter is unknown (code unknown_parameter), repeated, empty or invalid (invalid_parameter); `errors` names each'),
  Unauthorized: problem('An X-API-Key that is not a known key, or is malformed (code unauthorized)', {
    'WWW-Authenticate': { description: 'ApiKey header="X-API-Key"', schema: { type: 'string' } },
  }),
  TooManyRequests: problem('Over the rate limit (code rate_limited)', { 'Retry-After': { $ref: '#/components/headers/Retry-After' } }),
  InternalError: problem('The server failed (code internal_error); it shows no internals'),
  DataUnavailable: problem('No data drop is loaded yet (code data_unavailable); try again shortly'),
  UnknownRelease: problem('No such release is kept (code unknown_release); the releases are listed at /budget/api/releases/'),
};

const SECURITY_SCHEMES: Json = {
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'Optional. A key issued by the operator gives its own, higher per-minute limit, named in RateLimit-Policy.',
  },
};

const HEADERS: Json = {
  ETag: { description: "Changes whenever the drop's content or the representation changes", schema: { type: 'string' } },
  'Cache-Control': { description: 'public, max-age=N (N set by the deployment)', schema: { type: 'string' } },
  Vary: {
    description: `Accept, Accept-Encoding: the same URL answers ${FORMAT_NAMES.join(', ')}, and JSON and CSV gzip- or brotli-compressed when asked`,
    schema: { type: 'string' },
  },
  'Content-Encoding': { description: 'gzip or br: JSON answers over 1 KB and CSV downloads, when Accept-Encoding asks', schema: { type: 'string' } },
  'Content-Disposition': {
    description: `Downloads only: attachment; filename="<endpoint>-<parameters>.csv" (or .${FORMAT_NAMES.filter(
      (n) => FORMATS[n].download && n !== 'csv',
    )
      .map((n) => FORMATS[n].extension)
      .join(', .')})`,
    schema: { type: 'string' },
  },
  RateLimit: { description: 'Requests left in the window (IETF draft 8)', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds until the limit resets', schema: { type: 'integer' } },
};
