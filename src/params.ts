/**
 * Query-parameter validation (docs/api.md#query-parameters), done once at the edge.
 *
 * Each endpoint declares a zod object of its parameters; every parameter arrives as one string.
 * Unknown, repeated and empty parameters are refused before zod sees anything, so that a typo like
 * `years=2020` never silently returns everything.
 */
import { z } from 'zod';
import { FORMAT_NAMES } from './formats/registry.js';
import { HttpError, type ParameterError } from './http/errors.js';

const YEAR_MESSAGE = 'must be an integer between 1900 and 2100';
const ID_MESSAGE = 'must be a positive integer';
const BOOLEAN_MESSAGE = 'must be one of true, false, 1, 0';

const MAX_ID = 2n ** 63n - 1n;

/**
 * A positive id, as the drop's ids are: 64-bit integers. Past 2^53 a JS number would round it and
 * a filter would match another id, so it stays a bigint there.
 */
const positiveId = z
  .string()
  .regex(/^0*[1-9]\d*$/, { error: ID_MESSAGE, abort: true })
  .refine((digits) => digits.replace(/^0+/, '').length <= 19 && BigInt(digits) <= MAX_ID, {
    error: `must be a positive integer up to ${MAX_ID} (ids are 64-bit)`,
  })
  .transform((digits): number | bigint => {
    const id = Number(digits);
    return Number.isSafeInteger(id) ? id : BigInt(digits);
  });

const yearNumber = z
  .string()
  .regex(/^-?\d{1,9}$/, { error: YEAR_MESSAGE })
  .transform(Number)
  .pipe(z.number().min(1900, { error: YEAR_MESSAGE }).max(2100, { error: YEAR_MESSAGE }));

const stage = z
  .string()
  .transform((v) => v.toLowerCase())
  .pipe(z.enum(['initial', 'amended', 'outturn'], { error: 'must be one of initial, amended, outturn' }));

export const param = {
  year: yearNumber.meta({ description: 'Budget year, 1900 to 2100', example: '2023' }),
  /** `year=last` means the most recent year with data; represented as null after parsing. */
  yearOrLast: z
    .union([z.literal('last').transform(() => 'last' as const), yearNumber], {
      error: `must be an integer between 1900 and 2100, or last`,
    })
    .meta({ description: 'Year, or `last` for the most recent one', example: 'last' }),
  id: positiveId.meta({ description: 'A positive integer id', example: '1' }),
  parent: z
    .union([z.literal('null').transform(() => null), positiveId], {
      error: 'must be a positive integer or null',
    })
    .meta({ description: 'Parent origin id, or `null` for top-level origins', example: 'null' }),
  boolean: z
    .string()
    .regex(/^(true|false|1|0)$/i, { error: BOOLEAN_MESSAGE })
    .transform((v) => v === '1' || v.toLowerCase() === 'true')
    .meta({ description: 'true, false, 1 or 0 (case-insensitive)', example: 'true' }),
  categoryType: z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(
      z.enum(['expense', 'dépense', 'depense', 'resource', 'ressource'], {
        error: 'must be one of expense, resource, dépense, depense, ressource',
      }),
    )
    .transform((v): 'expense' | 'resource' => (v === 'expense' || v.startsWith('d') ? 'expense' : 'resource'))
    .meta({ description: 'expense (dépense, depense) or resource (ressource), case-insensitive', example: 'expense' }),
  stage: stage.meta({
    description:
      'Which lines count: initial (the finance law as adopted), amended (the default: initial lines and the ' +
      'amendments of complementary laws) or outturn (executed); case-insensitive',
    example: 'amended',
  }),
  seriesStage: stage.meta({
    description:
      "Which figures: initial (the finance law's), amended (as amended) or outturn (executed); by default each " +
      "year's most final one (outturn, then amended, then initial); case-insensitive",
    example: 'outturn',
  }),
  format: z
    .enum(FORMAT_NAMES, { error: `must be one of ${FORMAT_NAMES.join(', ')}` })
    .meta({
      description:
        'json (default), csv, arrow (an Arrow IPC stream) or parquet (a Parquet file); wins over the Accept header. ' +
        'On paged endpoints, csv, arrow and parquet hold every matching row unless limit or offset is given',
      // json, not csv: Swagger UI's "Try it out" starts from the example, and should show data, not a download.
      example: 'json',
    }),
};

export type QuerySchema = z.ZodObject<Record<string, z.ZodType>>;

/**
 * Reads the raw query string (not Express's parsed `req.query`, which merges repeats and nests
 * brackets) and returns the parsed parameters, or throws a 400 HttpError.
 */
export function parseQuery<S extends QuerySchema>(url: string, schema: S): z.infer<S> {
  const search = new URL(url, 'http://local').searchParams;
  const accepted = Object.keys(schema.shape);
  const values = new Map<string, string[]>();
  for (const [key, value] of search) values.set(key, [...(values.get(key) ?? []), value]);

  const unknown = [...values.keys()].filter((key) => !accepted.includes(key));
  if (unknown.length > 0) {
    const list = accepted.length ? `accepted parameters: ${accepted.join(', ')}` : 'this endpoint takes no parameters';
    throw HttpError.badRequest(
      'unknown_parameter',
      unknown.map((parameter) => ({ parameter: shown(parameter), message: `is not a parameter of this endpoint (${list})` })),
    );
  }

  const errors: ParameterError[] = [];
  const single: Record<string, string> = {};
  for (const [parameter, list] of values) {
    if (list.length > 1) errors.push({ parameter, message: 'must be given at most once' });
    else if (list[0] === '') errors.push({ parameter, message: 'must not be empty' });
    else single[parameter] = list[0]!;
  }
  const parsed = schema.safeParse(single);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) errors.push({ parameter: String(issue.path[0]), message: issue.message });
  }
  if (errors.length > 0 || !parsed.success) throw HttpError.badRequest('invalid_parameter', errors);
  return parsed.data;
}

/** A client's parameter name as echoed in an error: long enough to recognise, never the whole of a huge one. */
function shown(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}…` : name;
}
