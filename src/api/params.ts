/**
 * Query-parameter validation (docs/api.md#query-parameters), done once at the edge.
 *
 * Each endpoint declares a zod object of its parameters; every parameter arrives as one string.
 * Unknown, repeated and empty parameters are refused before zod sees anything, so that a typo like
 * `years=2020` never silently returns everything.
 */
import { z } from 'zod';
import { DEFAULT_STAGE, inWords, STAGE_MEANINGS, STAGES, type Stage } from '../domain/stages.js';
import { FORMAT_NAMES } from '../formats/registry.js';
import { MEASURE_NAMES, MEASURES, measureSpec, type Measure } from './measures.js';
import { problem, type ParameterError } from '../domain/errors.js';
import { memo } from '../lib/memo.js';

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

const MAX_YEARS = 50;

/**
 * Every parameter arrives as a string, but the OpenAPI document types it as what it means
 * (`openapi` in a schema's meta; see openapi.ts), so that a generated client takes integers
 * and booleans. Examples are of that type too.
 */
const YEAR_TYPE = { type: 'integer', minimum: 1900, maximum: 2100 } as const;
/** A year as the server reads one (leading zeros allowed), 1900 to 2100: never negative. */
const YEAR_PATTERN = '0*(19\\d\\d|20\\d\\d|2100)';
const YEARS_TYPE = {
  oneOf: [
    YEAR_TYPE,
    {
      type: 'string',
      pattern: `^${YEAR_PATTERN}(,${YEAR_PATTERN})+$|^${YEAR_PATTERN}\\.\\.${YEAR_PATTERN}$`,
      // A pattern cannot compare two numbers: the order and the span are the server's to check.
      description: `a list (2016,2018) or a range (2016..2020, earlier year first) of at most ${MAX_YEARS} years; the pattern takes each year from 1900 to 2100, and the order of a range and the number of years are checked by the server only (400)`,
    },
  ],
};
const ID_TYPE = { type: 'integer', format: 'int64', minimum: 1 } as const;
/**
 * A word in any case, as a JSON Schema pattern (ECMA-262 patterns have no case-insensitive flag):
 * the server takes enums case-insensitively, and the document says exactly that
 * (docs/api.md#query-parameters).
 */
const anyCase = (word: string) => [...word].map((c) => (c.toUpperCase() === c ? c : `[${c}${c.toUpperCase()}]`)).join('');
/** The canonical values (a generated client's type), or any spelling of them that differs only in case. */
const anyCaseOf = (values: readonly string[]) => ({
  anyOf: [
    { type: 'string', enum: values },
    { type: 'string', pattern: `^(${values.map(anyCase).join('|')})$`, description: 'any case' },
  ],
});
const STAGE_TYPE = anyCaseOf(STAGES);

/**
 * `2016`, `2016,2018` or `2016..2020` (docs/api.md): the years asked for, ascending and distinct.
 * A list or range is capped at MAX_YEARS so that a filter stays a short list bound into the query.
 */
const yearSet = z.string().transform((text, ctx): number[] => parseYears(text, ctx));

/** `alsoAccepted` names the other values the parameter takes (`last`), so that a refusal lists them. */
function parseYears(text: string, ctx: z.RefinementCtx, alsoAccepted = ''): number[] {
  const fail = (message: string) => {
    ctx.addIssue({ code: 'custom', message: alsoAccepted && message.startsWith('must be') ? `${message}, or ${alsoAccepted}` : message });
    return z.NEVER;
  };
  const range = /^(-?\d{1,9})\.\.(-?\d{1,9})$/.exec(text);
  const parts = range ? [range[1]!, range[2]!] : text.split(',');
  if (!parts.every((part) => /^-?\d{1,9}$/.test(part))) {
    return fail(parts.length > 1 || range ? YEARS_MESSAGE : YEAR_MESSAGE);
  }
  const numbers = parts.map(Number);
  if (numbers.some((n) => n < 1900 || n > 2100)) return fail(parts.length > 1 ? YEARS_MESSAGE : YEAR_MESSAGE);
  let years = numbers;
  if (range) {
    const [first, last] = numbers as [number, number];
    if (first > last) return fail(`range ${text} runs backwards: write the earlier year first`);
    if (last - first + 1 > MAX_YEARS) return fail(`must hold at most ${MAX_YEARS} years`);
    years = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  }
  const distinct = [...new Set(years)].sort((a, b) => a - b);
  if (distinct.length > MAX_YEARS) return fail(`must hold at most ${MAX_YEARS} years`);
  return distinct;
}

const YEARS_MESSAGE = 'must be a year, a list of years (2016,2018) or a range (2016..2020), each between 1900 and 2100';

const measureOf = (measures: readonly Measure[]) =>
  z.enum(measures as [Measure, ...Measure[]], { error: `must be one of ${measures.join(', ')}` }).meta({
    description: measures.map((m) => MEASURES[m].description).join('; '),
    example: 'nominal',
  });

const stage = z
  .string()
  .transform((v) => v.toLowerCase())
  .pipe(z.enum(STAGES, { error: `must be one of ${STAGES.join(', ')}` }));

/**
 * A stage or a list of stages (`initial,outturn`; docs/api.md#what-every-figure-means), for the
 * roll-ups and the series: distinct, in the stages' own order (initial, amended, outturn).
 */
const stageList = z.string().transform((text, ctx): Stage[] => {
  const names = text.toLowerCase().split(',');
  const unknown = names.find((name) => !(STAGES as readonly string[]).includes(name));
  if (unknown !== undefined) {
    ctx.addIssue({ code: 'custom', message: `must be one of ${STAGES.join(', ')}, or a list of them (initial,outturn)` });
    return z.NEVER;
  }
  return STAGES.filter((s) => names.includes(s));
});
const ANY_STAGE = `(${STAGES.map(anyCase).join('|')})`;
const STAGE_LIST_TYPE = {
  type: 'string',
  pattern: `^${ANY_STAGE}(,${ANY_STAGE})*$`,
  description: `one of ${STAGES.join(', ')}, or a list of them (initial,outturn); case-insensitive`,
} as const;
const SEVERAL = 'A list (initial,outturn) answers one row per year and stage, each row saying its stage';

export const param = {
  year: yearSet.meta({
    description: `Budget year (1900 to 2100), a list (2016,2018) or a range (2016..2020) of at most ${MAX_YEARS} years; a range runs from the earlier year to the later (otherwise 400, as more than ${MAX_YEARS} years is)`,
    example: 2023,
    openapi: YEARS_TYPE,
  }),
  /** `year=last` means the most recent year with data. */
  yearOrLast: z
    .string()
    .transform((text, ctx): number[] | 'last' => (text === 'last' ? 'last' : parseYears(text, ctx, 'last')))
    .meta({
      description: 'Year, list or range of years, or `last` for the most recent one',
      example: 'last',
      openapi: { oneOf: [...YEARS_TYPE.oneOf, { type: 'string', const: 'last' }] },
    }),
  baseYear: yearNumber.meta({
    description: 'With measure=real: the year whose prices amounts are shown in (default: the latest year with a CPI)',
    example: 2024,
    openapi: YEAR_TYPE,
  }),
  /** Every measure; endpoints whose rows do not split a whole take measureWithoutShare. */
  measure: measureOf(MEASURE_NAMES),
  measureWithoutShare: measureOf(MEASURE_NAMES.filter((m) => !measureSpec(m).ofParts)),
  change: z
    .enum(['previous_year'], { error: 'must be previous_year' })
    .meta({ description: 'previous_year: add change and change_pct against the calendar year before', example: 'previous_year' }),
  search: z
    .string()
    .max(200, { error: 'must be at most 200 characters' })
    .meta({ description: 'Part of the name or code, case- and accent-insensitive', example: 'education' }),
  /** A field of the row, `-` first for descending; ties are broken by id. */
  ordering: (fields: readonly [string, ...string[]]) => {
    const accepted = fields.flatMap((f) => [f, `-${f}`]) as [string, ...string[]];
    return z
      .enum(accepted, { error: `must be one of ${fields.join(', ')}, each optionally preceded by - for descending order` })
      .meta({ description: `A field to order by (${fields.join(', ')}), - first for descending; ties by id`, example: `-${fields.at(-1)}` });
  },
  id: positiveId.meta({ description: 'A positive integer id', example: 1, openapi: ID_TYPE }),
  category: positiveId.meta({ description: 'A category id: only lines of that category and of its subtree', example: 1, openapi: ID_TYPE }),
  parent: z
    .union([z.literal('null').transform(() => null), positiveId], {
      error: 'must be a positive integer or null',
    })
    .meta({
      description: 'Parent origin id, or `null` for top-level origins',
      example: 'null',
      openapi: { oneOf: [ID_TYPE, { type: 'string', const: 'null' }] },
    }),
  boolean: z
    .string()
    .regex(/^(true|false|1|0)$/i, { error: BOOLEAN_MESSAGE })
    .transform((v) => v === '1' || v.toLowerCase() === 'true')
    .meta({
      description: 'true, false, 1 or 0 (case-insensitive)',
      example: true,
      openapi: { anyOf: [{ type: 'boolean' }, { type: 'string', pattern: `^(${anyCase('true')}|${anyCase('false')}|1|0)$` }] },
    }),
  categoryType: z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(
      z.enum(['expense', 'dépense', 'depense', 'resource', 'ressource'], {
        error: 'must be one of expense, resource, dépense, depense, ressource',
      }),
    )
    .transform((v): 'expense' | 'resource' => (v === 'expense' || v.startsWith('d') ? 'expense' : 'resource'))
    .meta({
      description: 'expense (dépense, depense) or resource (ressource), case-insensitive',
      example: 'expense',
      openapi: anyCaseOf(['expense', 'resource', 'dépense', 'depense', 'ressource']),
    }),
  stage: stage.meta({
    description: `Which lines count: ${inWords(
      STAGES.map((s) => `${s} (${s === DEFAULT_STAGE ? 'the default: ' : ''}${STAGE_MEANINGS[s].lines})`),
    )}; case-insensitive`,
    example: DEFAULT_STAGE,
    openapi: STAGE_TYPE,
  }),
  /** stage on the roll-ups (totals, budget-categories, organization/stats): one stage or several. */
  stages: stageList.meta({
    description: `Which lines count: ${inWords(
      STAGES.map((s) => `${s} (${s === DEFAULT_STAGE ? 'the default: ' : ''}${STAGE_MEANINGS[s].lines})`),
    )}; case-insensitive. ${SEVERAL}`,
    example: DEFAULT_STAGE,
    openapi: STAGE_LIST_TYPE,
  }),
  /** stage on the series (debt, outstanding-debt, deficit): one stage or several. */
  seriesStages: stageList.meta({
    description:
      `Which figures: ${inWords(STAGES.map((s) => `${s} (${STAGE_MEANINGS[s].series})`))}; by default each ` +
      `year's most final one (${[...STAGES].reverse().join(', then ')}); case-insensitive. ${SEVERAL}`,
    example: STAGES.at(-1),
    openapi: STAGE_LIST_TYPE,
  }),
  seriesStage: stage.meta({
    description:
      `Which figures: ${inWords(STAGES.map((s) => `${s} (${STAGE_MEANINGS[s].series})`))}; by default each ` +
      `year's most final one (${[...STAGES].reverse().join(', then ')}); case-insensitive`,
    example: STAGES.at(-1),
    openapi: STAGE_TYPE,
  }),
  format: z.enum(FORMAT_NAMES, { error: `must be one of ${FORMAT_NAMES.join(', ')}` }).meta({
    description:
      'json (default), csv, arrow (an Arrow IPC stream) or parquet (a Parquet file); wins over the Accept header. ' +
      'On paged endpoints, csv, arrow and parquet hold every matching row unless limit or offset is given',
    // json, not csv: Swagger UI's "Try it out" starts from the example, and should show data, not a download.
    example: 'json',
  }),
};

/** How many unknown parameters a refusal names. */
const UNKNOWN_NAMED = 5;

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
    // The first few only: a URL of thousands of made-up names must not get an answer thousands of
    // times the accepted list's size (security review, finding 10).
    const named = unknown.slice(0, UNKNOWN_NAMED);
    throw problem.unknownParameters(
      named.map((parameter) => ({ parameter: shown(parameter), message: `is not a parameter of this endpoint (${list})` })),
      unknown.length - named.length,
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
  if (errors.length > 0 || !parsed.success) throw problem.invalidParameters(errors);
  return parsed.data;
}

/** A client's parameter name as echoed in an error: long enough to recognise, never the whole of a huge one. */
function shown(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}…` : name;
}

/**
 * One canonical spelling for each valid value of each parameter of `schema` (http/canonical-query.ts):
 * the value as parsed, written back (`02003` → `2003`, `TRUE` → `true`, `AMENDED` → `amended`,
 * a year list sorted and without repeats, contiguous years of three or more as a range). A value
 * that does not parse is kept as given. Remembered per value: this runs on every request.
 */
export function canonicalValues(schema: QuerySchema): (key: string, value: string) => string {
  const spell = memo((pair: string): string => {
    const at = pair.indexOf('\0');
    const key = pair.slice(0, at);
    const value = pair.slice(at + 1);
    // Own keys only: a query may name `constructor` or `__proto__`, which every object inherits.
    const parameter = Object.hasOwn(schema.shape, key) ? schema.shape[key] : undefined;
    if (!parameter || value === '') return value;
    const parsed = parameter.safeParse(value);
    return parsed.success ? (spelling(parsed.data) ?? value) : value;
  }, CANONICAL_REMEMBERED);
  return (key, value) => spell(`${key}\0${value}`);
}

/** How many parameter values canonicalValues remembers per endpoint. */
const CANONICAL_REMEMBERED = 10_000;

function spelling(value: unknown): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  // A list of names (stages, fields) comes parsed in its one order: that order is its spelling.
  if (Array.isArray(value) && value.length > 0 && value.every((n) => typeof n === 'string')) return value.join(',');
  if (Array.isArray(value) && value.every((n) => typeof n === 'number')) {
    // Years come sorted and distinct from parseYears.
    const years = value as number[];
    const contiguous = years.length >= 3 && years.at(-1)! - years[0]! === years.length - 1;
    return contiguous ? `${years[0]}..${years.at(-1)}` : years.join(',');
  }
  return undefined;
}
