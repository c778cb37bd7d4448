/**
 * GET /budget/api/fields/ (docs/api.md#fields): every field of every data endpoint's rows, with
 * its type and unit and what it means, from the table in field-texts.ts and the same zod schemas
 * that describe the answers (responses.ts); a drop's `definitions` replace the service's text.
 */
import { z } from 'zod';
import type { Definitions, Manifest } from '../data/manifest.js';
import type { Endpoint } from './endpoints/index.js';
import { fieldText, type Text } from './field-texts.js';
import { API_PREFIX } from './routes.js';

export interface FieldEntry {
  endpoint: string;
  field: string;
  type: string;
  nullable: boolean;
  unit: string | null;
  label: Text;
  definition: Text;
}

/** A field as the row schemas give it, before its texts. */
type FieldShape = Pick<FieldEntry, 'endpoint' | 'field' | 'type' | 'nullable'>;

type JsonSchema = { type?: string | string[]; anyOf?: JsonSchema[]; properties?: Record<string, JsonSchema>; items?: JsonSchema; $ref?: string };

/** The endpoint's name in field keys: its path after /budget/api/, without the trailing slash. */
export const endpointName = (path: string): string => path.slice(API_PREFIX.length + 1).replace(/\/$/, '');

/**
 * Each endpoint's fields, top-level then nested (`organization.id`), once even when two variants
 * share one, in an order each variant's rows keep: a field only one variant has goes before the
 * first of that variant's later fields already listed (a tree node's `name` before `year`), so
 * that every answer's keys read in the order /fields/ gives them; nullable when any variant's is.
 */
export function fieldsOf(endpoints: readonly Endpoint[]): FieldShape[] {
  const out: FieldShape[] = [];
  for (const e of endpoints) {
    const endpoint = endpointName(e.path);
    const listed: FieldShape[] = [];
    for (const variant of e.variants) {
      const fields = variantFields(z.toJSONSchema(variant.item, { io: 'output', unrepresentable: 'any' }) as JsonSchema);
      fields.forEach(({ field, type, nullable }, i) => {
        // A field is null where any variant can make it so: a tree node's measured amount, not a line's.
        const known = listed.find((f) => f.field === field);
        if (known) return void (known.nullable ||= nullable);
        const later = new Set(fields.slice(i + 1).map((f) => f.field));
        const at = listed.findIndex((f) => later.has(f.field));
        listed.splice(at === -1 ? listed.length : at, 0, { endpoint, field, type, nullable });
      });
    }
    out.push(...listed);
  }
  return out;
}

/** A row schema's fields in its order, each nested object's right after it. */
function variantFields(schema: JsonSchema, prefix = ''): Omit<FieldShape, 'endpoint'>[] {
  return Object.entries(schema.properties ?? {}).flatMap(([key, property]) => {
    const field = prefix + key;
    const typesOf = (s: JsonSchema): string[] => (Array.isArray(s.type) ? s.type : [s.type ?? 'object']);
    const types = property.anyOf ? property.anyOf.flatMap(typesOf) : typesOf(property);
    const own = { field, type: types.find((t) => t !== 'null') ?? 'null', nullable: types.includes('null') };
    const inner = property.anyOf?.find((s) => s.type === 'object' || s.type === 'array') ?? property;
    // Objects and lists of objects have fields of their own; change objects repeat the figures' names.
    if (key === 'change' || key === 'change_pct') return [own];
    if (inner.type === 'object' && inner.properties) return [own, ...variantFields(inner, `${field}.`)];
    if (inner.type === 'array' && inner.items?.type === 'object') return [own, ...variantFields(inner.items, `${field}.`)];
    return [own];
  });
}

/**
 * A drop's own definition of an endpoint's field (drop.json `definitions`): `ENDPOINT.FIELD`
 * before `FIELD`. A key of two parts whose first names an endpoint is that endpoint's field only
 * (a one-word key, `expenses`, is a field of every endpoint):
 * `organization.name` is the organization list's name, not every line's organization.name
 * (which `expenses.organization.name` names).
 */
export function ownDefinition(
  own: Definitions,
  endpointNames: ReadonlySet<string>,
  endpoint: string,
  field: string,
): Definitions[string] | undefined {
  const [first, ...rest] = field.split('.');
  const bare = rest.length > 0 && endpointNames.has(first!) ? undefined : own[field];
  return own[`${endpoint}.${field}`] ?? bare;
}

/**
 * The /fields/ answer for a drop: the service's texts, or the drop's own `definitions`
 * (`ENDPOINT.FIELD` before `FIELD`); amounts in the drop's unit, `unstated` when it gives none.
 */
export function fieldsAnswer(endpoints: readonly Endpoint[], manifest: Pick<Manifest, 'units' | 'definitions'>): FieldEntry[] {
  const own = manifest.definitions ?? {};
  const endpointNames = new Set(endpoints.map((e) => endpointName(e.path)));
  return fieldsOf(endpoints).map(({ endpoint, field, type, nullable }) => {
    const text = fieldText(endpoint, field);
    if (!text) throw new Error(`no text for ${endpoint}.${field}: add it to src/api/field-texts.ts`);
    const unit = text.unit === 'amount' ? (manifest.units?.name ?? 'unstated') : text.unit === 'percent' ? '%' : null;
    const definition = ownDefinition(own, endpointNames, endpoint, field) ?? text.definition;
    return { endpoint, field, type, nullable, unit, label: text.label, definition };
  });
}

/**
 * The keys of a drop's `definitions` that define no field of these endpoints, as ownDefinition
 * reads them (`expenses.amout`, `organization.year`): a typo the drop would carry unseen, since
 * /fields/ and the OpenAPI document just keep the service's text. Validation warns of them.
 */
export function unusedDefinitions(endpoints: readonly Endpoint[], definitions: Definitions): string[] {
  const endpointNames = new Set(endpoints.map((e) => endpointName(e.path)));
  const fields = fieldsOf(endpoints);
  return Object.keys(definitions).filter(
    (key) => !fields.some(({ endpoint, field }) => ownDefinition({ [key]: definitions[key]! }, endpointNames, endpoint, field) !== undefined),
  );
}
