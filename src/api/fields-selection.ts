/**
 * `fields=a,b` (docs/api.md#field-selection): every data endpoint keeps only those fields of each
 * row, in every format. A tree's nodes keep them and `children`; a download keeps the columns the
 * chosen fields flatten into (`organization` → `organization_id`, `organization_name`, …; `budget`
 * → the organization list's `year`, `expenses`, `resources`) and the columns no field owns (a
 * tree's `parent_id` and `depth`, which say where a row sits). Without the field whose list makes
 * an item several rows (`budget`), an item is one row, as in JSON.
 */
import { z } from 'zod';
import { problem } from '../domain/errors.js';
import type { Column, Table } from '../formats/table.js';
import { inWords } from '../domain/stages.js';

const NAMES = /^[A-Za-z0-9_]+(,[A-Za-z0-9_]+)*$/;

/** Fields a row has only when a parameter asks for them, with the parameter as the message names it. */
const ASKED_FOR: Readonly<Record<string, { parameter: string; asked: string }>> = {
  change: { parameter: 'change', asked: 'change=previous_year' },
  change_pct: { parameter: 'change', asked: 'change=previous_year' },
};

/**
 * The parameter: names, read as a set (sorted, once each), so that any order is one query. The
 * server checks the names against the rows being answered (checkFields); the document's pattern
 * takes exactly the endpoint's `names` (of every kind of row it has) with the separator the
 * server reads, a comma, and says in words which need another parameter or another kind of row.
 */
export const fieldsParameter = (names: readonly string[], example: string, twoKindsOfRows = false) => {
  const name = `(${names.join('|')})`;
  const asked = [...new Set(names.filter((n) => n in ASKED_FOR).map((n) => ASKED_FOR[n]!.asked))];
  const tied = asked.map((a) => ` ${inWords(names.filter((n) => ASKED_FOR[n]?.asked === a))} only with ${a}.`).join('');
  return z
    .string()
    .regex(NAMES, { error: 'must be field names separated by commas, e.g. year,total_expenses' })
    .transform((list) => [...new Set(list.split(','))].sort())
    .meta({
      description:
        "Keep only these fields of each row (comma-separated, any order), in every format; a tree's nodes also keep children. " +
        `An unknown field is refused with the list of the fields${twoKindsOfRows ? ', as is a field of the other kind of row (a tree node with hierarchy=true, a line without)' : ''}. ` +
        `The fields of each endpoint are listed by /budget/api/fields/.${tied}`,
      example,
      openapi: { type: 'string', pattern: `^${name}(,${name})*$`, minLength: 1 },
    });
};

/** The top-level field names of a row schema (an object schema; its keys). */
export function fieldNames(item: z.ZodType): string[] {
  return item instanceof z.ZodObject ? Object.keys(item.shape) : [];
}

/** The fields of the rows being answered: the item's, but those a parameter not given would add. */
export function fieldsAnswered(item: z.ZodType, params: Readonly<Record<string, unknown>>): string[] {
  return fieldNames(item).filter((name) => !(name in ASKED_FOR) || params[ASKED_FOR[name]!.parameter] !== undefined);
}

/**
 * Refuses names that are not fields of the rows being answered, naming them and listing the
 * fields; a field that another parameter would add (change) says which.
 */
export function checkFields(fields: readonly string[] | undefined, names: readonly string[]): void {
  if (!fields) return;
  const unknown = fields.filter((f) => !names.includes(f));
  if (unknown.length === 0) return;
  const asked = unknown.every((f) => f in ASKED_FOR) ? ASKED_FOR[unknown[0]!]!.asked : undefined;
  const which = asked
    ? `${unknown.join(' and ')}, ${unknown.length > 1 ? 'fields' : 'a field'} only with ${asked}`
    : `${unknown.length > 1 ? 'unknown fields' : 'an unknown field'} ${unknown.slice(0, 5).join(', ')}`;
  throw problem.invalidParameters([{ parameter: 'fields', message: `has ${which}; the fields are ${names.join(', ')}` }]);
}

/** The field every row keeps whatever `fields` chooses: a tree node's children, which make it a tree. */
export const ALWAYS_KEPT = 'children';

/** The rows of a JSON answer with only the chosen fields (and a tree node's children). */
export function selectFields<T>(items: T[], fields: readonly string[] | undefined): T[] {
  if (!fields) return items;
  const keep = new Set(fields);
  const select = (item: unknown): unknown => {
    if (item === null || typeof item !== 'object') return item;
    const row = item as Record<string, unknown>;
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row)) if (keep.has(key)) kept[key] = value;
    const children = row[ALWAYS_KEPT];
    if (Array.isArray(children)) kept[ALWAYS_KEPT] = children.map(select);
    return kept;
  };
  return items.map(select) as T[];
}

/** A download's table with only the columns of the chosen fields, and those no field owns. */
export function selectColumns(table: Table, fields: readonly string[] | undefined, names: readonly string[]): Table {
  if (!fields) return table;
  // A column belongs to the field it names, else to the longest field name it is, or starts with followed by `_`.
  const owner = (column: Column) =>
    column.field ?? names.filter((n) => column.name === n || column.name.startsWith(`${n}_`)).sort((a, b) => b.length - a.length)[0];
  const columns = table.columns.filter((c) => {
    const field = owner(c);
    return field === undefined || fields.includes(field);
  });
  const { listField } = table;
  if (listField === undefined || fields.includes(listField)) return { columns, rows: table.rows, listField };
  return { columns, rows: (item) => table.rows(item).slice(0, 1) };
}
