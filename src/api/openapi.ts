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
    paths[`${API_PREFIX}/releases/{version}/${endpoint.path.slice(API_PREFIX.length + 1)}`] = { get: atRelease(endpoint, operation) };
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
    components: { schemas, responses: PROBLEM_RESPONSES, parameters: REQUEST_HEADERS, headers: HEADERS, securitySchemes: SECURITY_SCHEMES },
  };
}

/** A data operation as answered from one release: a `version` path parameter, immutable answers, 404 unknown_release. */
function atRelease(endpoint: Endpoint, operation: Json): Json {
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
      // A permalink answers from its release whatever instant Accept-Datetime asks for.
      ...(operation.parameters as Json[]).filter((p) => p !== DATA_REQUEST_HEADERS.acceptDatetime),
    ],
    responses: dataResponses(endpoint, (operation.responses as { 200: { content: Json } })[200].content, false),
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
    parameters: [
      ...Object.entries(endpoint.query.shape).map(([key, schema]) => {
        const mark = marks.parameters?.[key];
        const doc = parameter(key, schema, TIED[`${endpointName(endpoint.path)}.${key}`]);
        return mark ? { ...doc, deprecated: true, description: `${String(doc.description)} Deprecated: ${sunsetText(mark)}` } : doc;
      }),
      ...Object.values(DATA_REQUEST_HEADERS),
    ],
    responses: dataResponses(endpoint, Object.fromEntries(Object.values(FORMATS).map((format) => [format.mediaType, format.openApi(doc)])), true),
  };
}

/**
 * A data operation's answers, with the headers the server sends on each (src/api/pipeline.ts):
 * `current` for the endpoint itself, which names its permalink and answers Accept-Datetime;
 * otherwise its permalink, answered from one release.
 */
function dataResponses(endpoint: Endpoint, content: Json, current: boolean): Json {
  const deprecated = Object.keys(endpoint.deprecations ?? {}).length > 0;
  // What describes the answer, on its 200 and its 304 alike.
  const described = headers(
    'ETag',
    'Cache-Control',
    'Vary',
    ...(current ? ['Content-Location'] : []),
    'Memento-Datetime',
    ...('measure' in endpoint.query.shape ? ['Budget-Measure'] : []),
    ...(endpoint.paged || current || deprecated ? ['Link'] : []),
    ...(deprecated ? ['Deprecation', 'Sunset'] : []),
    ...EVERY_ANSWER,
  );
  return {
    200: {
      description: `The answer, in the format asked for. ${UNITS}`,
      headers: { ...described, ...headers('Content-Encoding', 'Content-Disposition', 'Accept-Ranges') },
      content,
    },
    // Its body is described in words, not as content: a generated client would otherwise type
    // every successful JSON answer as JSON or bytes, and 206 never answers JSON.
    206: {
      description:
        `A byte range (Range) of a whole export (a ${downloadNames()} download without limit and offset) that the server keeps as a file, ` +
        'which it does once one request has made it: those bytes of the download, in its media type. Otherwise Range is ignored and the answer is the whole 200',
      headers: { ...described, ...headers('Content-Range', 'Accept-Ranges', 'Content-Disposition', 'Content-Encoding') },
    },
    304: { description: 'Not Modified: the If-None-Match tag is current', headers: described },
    400: { $ref: '#/components/responses/BadRequest' },
    401: { $ref: '#/components/responses/Unauthorized' },
    404: { $ref: '#/components/responses/UnknownRelease' },
    ...(deprecated ? { 410: { $ref: '#/components/responses/Gone' } } : {}),
    416: { $ref: '#/components/responses/RangeNotSatisfiable' },
    429: { $ref: '#/components/responses/TooManyRequests' },
    500: { $ref: '#/components/responses/InternalError' },
    503: { $ref: '#/components/responses/Unavailable' },
  };
}

/** References to shared headers (components.headers), by name. */
const headers = (...names: string[]): Json => Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** Sent on every answer, errors included: the request id, and the rate limit where it applies. */
const EVERY_ANSWER = ['X-Request-Id', 'RateLimit', 'RateLimit-Policy'];

/** The request headers a data operation reads, beside Accept and Accept-Encoding (which OpenAPI leaves to content negotiation). */
const DATA_REQUEST_HEADERS = {
  acceptDatetime: { $ref: '#/components/parameters/Accept-Datetime' },
  ifNoneMatch: { $ref: '#/components/parameters/If-None-Match' },
  range: { $ref: '#/components/parameters/Range' },
  ifRange: { $ref: '#/components/parameters/If-Range' },
};

const REQUEST_HEADERS: Json = {
  'Accept-Datetime': {
    name: 'Accept-Datetime',
    in: 'header',
    required: false,
    description:
      'RFC 7089 (Memento): answer as the release served at that instant did, with Memento-Datetime and its permalink in Content-Location; ' +
      'an instant before the first release kept, or while a release no longer kept was served, is a 404 unknown_release; not an HTTP date, 400 invalid_request. ' +
      'Only where the service keeps releases; a permalink ignores it.',
    schema: { type: 'string' },
    example: 'Tue, 02 Jan 2024 10:00:00 GMT',
  },
  'If-None-Match': {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'The ETag of a copy the client holds: 304 when it is current',
    schema: { type: 'string' },
  },
  Range: {
    name: 'Range',
    in: 'header',
    required: false,
    description:
      'A byte range (bytes=0-1023) of a whole export once the server keeps it as a file: 206 with Content-Range, 416 when it starts past the end. Otherwise ignored: the whole answer, 200.',
    schema: { type: 'string' },
    example: 'bytes=0-1023',
  },
  'If-Range': {
    name: 'If-Range',
    in: 'header',
    required: false,
    description: "With Range: the range is sent only if this is the export's current ETag (a strong match), else the whole export",
    schema: { type: 'string' },
  },
};

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
    parameters: [DATA_REQUEST_HEADERS.ifNoneMatch],
    responses: {
      200: { description: 'OK', headers: headers('ETag', 'Cache-Control', 'Vary', 'Content-Encoding', ...EVERY_ANSWER), content },
      304: { description: 'Not Modified: the If-None-Match tag is current', headers: headers('ETag', 'Cache-Control', 'Vary', ...EVERY_ANSWER) },
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

/** The download formats, in words: csv, arrow, parquet. */
const downloadNames = (): string => FORMAT_NAMES.filter((name) => FORMATS[name].download).join(', ');

function downloadDescription(endpoint: Endpoint): string {
  const downloads = downloadNames();
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

/** A problem answer: never cached, with the request id and rate limit of every answer, and the data endpoints' Vary. */
const problem = (description: string, own: Json = {}): Json => ({
  description: `${description} (an RFC 9457 problem document)`,
  headers: {
    'Cache-Control': { description: 'no-store: a problem is never cached', schema: { type: 'string' } },
    ...headers('Vary', ...EVERY_ANSWER),
    ...own,
  },
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

const PROBLEM_RESPONSES: Json = {
  BadRequest: problem(
    'A query parameter is unknown (code unknown_parameter), repeated, empty or invalid (invalid_parameter; `errors` names each); ' +
      'or the request cannot be read: a URL that is not valid percent-encoded UTF-8, an Accept-Datetime that is not an HTTP date (invalid_request)',
  ),
  Unauthorized: problem('An X-API-Key that is not a known key, or is malformed (code unauthorized)', {
    'WWW-Authenticate': { description: 'ApiKey header="X-API-Key"', schema: { type: 'string' } },
  }),
  TooManyRequests: problem(
    'Over the rate limit, or past the full exports a client may start per minute or run at once (code rate_limited)',
    headers('Retry-After'),
  ),
  InternalError: problem('The server failed (code internal_error); it shows no internals'),
  DataUnavailable: problem(
    'No data drop is served yet, or the server is shutting down (code data_unavailable); try again shortly. ' +
      '/readyz also answers overloaded (with Retry-After) while every database connection is held',
    headers('Retry-After'),
  ),
  Unavailable: problem(
    'No data drop is served yet, the server is shutting down, or a kept release could not be read (code data_unavailable); ' +
      'no database connection was free within QUEUE_WAIT_MS, too many queries are running or waiting, or too many full exports are being made (overloaded, with Retry-After); ' +
      'or the query ran past QUERY_TIMEOUT_MS and was stopped (query_timeout)',
    headers('Retry-After'),
  ),
  UnknownRelease: problem(
    'No such release is kept, or Accept-Datetime names an instant before the first release kept or while a release no longer kept was served (code unknown_release); ' +
      'the releases are listed at /budget/api/releases/',
    { Link: { description: '</budget/api/releases/>; rel="index": where the releases are listed', schema: { type: 'string' } } },
  ),
  RangeNotSatisfiable: problem('A Range that starts past the end of a whole export kept as a file (code invalid_request)', {
    'Content-Range': { description: 'bytes */SIZE: the length of the export', schema: { type: 'string' } },
    // Set for the export before its range was found unsatisfiable.
    ...headers('Accept-Ranges', 'Content-Location'),
  }),
  Gone: problem('Something deprecated, past its sunset (code sunset): the detail names its replacement'),
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
  'Cache-Control': {
    description: 'public, max-age=N (N set by the deployment); on a permalink (releases/{version}/…), public, max-age=31536000, immutable',
    schema: { type: 'string' },
  },
  Vary: {
    description:
      `Accept, Accept-Encoding on data endpoints: the same URL answers ${FORMAT_NAMES.join(', ')}, and JSON and CSV gzip- or brotli-compressed when asked; ` +
      'Accept-Datetime too where the service keeps releases (not on a permalink). Accept-Encoding on a service answer sent compressed',
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
  'Content-Location': {
    description:
      "The answer's permalink, /budget/api/releases/{version}/… with the canonical query: the URL to cite (where the service keeps releases)",
    schema: { type: 'string' },
  },
  'Memento-Datetime': {
    description: 'RFC 7089: when the release that answered was first served; on a permalink and an answer to Accept-Datetime',
    schema: { type: 'string' },
  },
  'Budget-Measure': {
    description:
      'The measure the figures are in, with its unit: nominal; unit="MDT", pct_gdp; unit="% of GDP", real; base_year=2025; unit="MDT, 2025 prices"…',
    schema: { type: 'string' },
  },
  Link: {
    description:
      'RFC 8288: a page\'s rel="next" and rel="prev"; on an answer to Accept-Datetime its rel="original timegate" and rel="timemap"; on a deprecated use, rel="deprecation" (the changelog)',
    schema: { type: 'string' },
  },
  Deprecation: {
    description: 'RFC 9745: @<unix seconds> when a deprecated endpoint, parameter, format or field was used',
    schema: { type: 'string' },
  },
  Sunset: { description: 'RFC 8594: the HTTP-date after which what was deprecated answers 410', schema: { type: 'string' } },
  'Accept-Ranges': { description: 'bytes: a whole export the server keeps as a file, which answers Range', schema: { type: 'string' } },
  'Content-Range': { description: 'bytes FIRST-LAST/SIZE: the part of the export sent', schema: { type: 'string' } },
  RateLimit: {
    description:
      'IETF draft 8, when a rate limit applies (not /healthz, /readyz): "<policy>"; r=<requests left>; t=<seconds until the window resets>',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'IETF draft 8, when a rate limit applies: "<policy>"; q=<requests per window>; w=<window, seconds>; pk=:<partition key>:',
    schema: { type: 'string' },
  },
  'X-Request-Id': {
    description: "The request's id, as the request log has it: the client's own X-Request-Id when it sent a well-formed one",
    schema: { type: 'string' },
  },
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' } },
};
