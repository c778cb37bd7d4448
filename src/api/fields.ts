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

type JsonSchema = { type?: string | string[]; anyOf?: JsonSchema[]; properties?: Record<string, JsonSchema>; items?: JsonSchema; $ref?: string };

/** The endpoint's name in field keys: its path after /budget/api/, without the trailing slash. */
export const endpointName = (path: string): string => path.slice(API_PREFIX.length + 1).replace(/\/$/, '');

/** Each endpoint's fields, top-level then nested (`organization.id`), once even when two variants share one. */
export function fieldsOf(endpoints: readonly Endpoint[]): { endpoint: string; field: string; type: string; nullable: boolean }[] {
  const out: { endpoint: string; field: string; type: string; nullable: boolean }[] = [];
  for (const e of endpoints) {
    const endpoint = endpointName(e.path);
    const seen = new Set<string>();
    const walk = (schema: JsonSchema, prefix: string) => {
      for (const [key, property] of Object.entries(schema.properties ?? {})) {
        const field = prefix + key;
        const typesOf = (s: JsonSchema): string[] => (Array.isArray(s.type) ? s.type : [s.type ?? 'object']);
        const types = property.anyOf ? property.anyOf.flatMap(typesOf) : typesOf(property);
        const nullable = types.includes('null');
        const type = types.find((s) => s !== 'null') ?? 'null';
        if (!seen.has(field)) {
          seen.add(field);
          out.push({ endpoint, field, type, nullable });
        }
        const inner = property.anyOf?.find((s) => s.type === 'object' || s.type === 'array') ?? property;
        // Objects and lists of objects have fields of their own; change objects repeat the figures' names.
        if (key === 'change' || key === 'change_pct') continue;
        if (inner.type === 'object' && inner.properties) walk(inner, `${field}.`);
        if (inner.type === 'array' && inner.items?.type === 'object') walk(inner.items, `${field}.`);
      }
    };
    for (const variant of e.variants) walk(z.toJSONSchema(variant.item, { io: 'output', unrepresentable: 'any' }) as JsonSchema, '');
  }
  return out;
}

/**
 * The /fields/ answer for a drop: the service's texts, or the drop's own `definitions`
 * (`ENDPOINT.FIELD` before `FIELD`); amounts in the drop's unit, `unstated` when it gives none.
 */
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
