import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { z } from 'zod';
import { LINE_STAGES, SERIES_STAGES } from '../domain/stages.js';
import { TABLES } from './schema.js';

/** The manifest's file name in a drop directory; it is written last. */
export const MANIFEST_FILE = 'drop.json';

/** A file's sha256, as drop.json records it (lower-case hex). */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * A whole number from `min` up. One check with one message, whatever is wrong (a fraction, a value
 * below `min`, or both), that says what the field is: a person editing drop.json reads
 * `must be a whole number >= 0 (the file's row count)`, not the schema library's terms.
 */
const wholeNumber = (min: number, meaning: string) =>
  z.number().refine((n) => Number.isInteger(n) && n >= min, { error: `must be a whole number >= ${min} (${meaning})` });

/** A year of control totals and known gaps. */
const Year = z.number().refine((n) => Number.isInteger(n) && n >= 1900 && n <= 2100, { error: 'must be a year from 1900 to 2100' });

/** What one unit of the drop's amounts is: `scale` units of `currency` (MDT: 1,000,000 TND). */
export const UnitsSchema = z.object({
  name: z.string(),
  currency: z.string(),
  scale: z.number().refine((n) => n > 0, { error: 'must be a number > 0 (one unit of the amounts is this many units of the currency, such as 1000000)' }),
});

/** A drop's files are plain names in its one directory (a README.md beside the tables too). */
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

/** A date, or a date-time with its offset (2026-12-01, 2026-12-01T09:00:00Z, 2026-12-01T10:00:00.5+01:00). */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):?(\d{2}))?)?$/;

/**
 * An ISO 8601 date or date-time that the calendar and the clock have: the pattern alone lets
 * 2026-13-45 or 2026-02-30T25:00:00Z through, and Date.parse rolls 2026-02-30 over to March. A
 * date-time without an offset is ISO 8601 too (Python's datetime.isoformat() writes one); it is
 * read as UTC (instantOf).
 */
/** The instant a created_at names; one without an offset in UTC, whatever the server's time zone. */
export function instantOf(createdAt: string): Date {
  return new Date(/T[^Z+-]*$/.test(createdAt) ? `${createdAt}Z` : createdAt);
}

export function isIsoDateTime(text: string): boolean {
  const parts = ISO_8601.exec(text);
  if (!parts) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0, offsetHour = 0, offsetMinute = 0] = parts.slice(1).map((p) => (p === undefined ? undefined : Number(p)));
  const leap = year! % 4 === 0 && (year! % 100 !== 0 || year! % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month! - 1];
  return days !== undefined && day! >= 1 && day! <= days && hour <= 23 && minute <= 59 && second <= 59 && offsetHour <= 23 && offsetMinute <= 59;
}

/**
 * The law's own totals for a year and stage (docs/data-drops.md#control-totals): what
 * `totals/?year=Y&stage=S` must answer, to half a unit.
 */
export const ControlTotalSchema = z
  .object({
    year: Year,
    stage: z.enum(['initial', 'amended', 'outturn'], { error: 'must be one of initial, amended, outturn' }),
    total_expenses: z.number().optional(),
    total_resources: z.number().optional(),
  })
  .strict();

/** Why a figure changed (docs/data-drops.md#dropjson, `notes`): `id` is the line's id, or the year for a series. */
export const NoteSchema = z
  .object({
    table: z.string(),
    id: z.number().int(),
    text: z.string().min(1),
    source_id: z.number().int().nullable().optional(),
  })
  .strict();
/** A text in both of the service's languages. */
export const TextSchema = z.object({ en: z.string().min(1), fr: z.string().min(1) }, { error: 'must be {"en": text, "fr": text}' });

/** The stages a reader asks for (section 8): what `stages` in drop.json describes. */
const StageName = z.enum(SERIES_STAGES);

/**
 * What each stage's figures are and cover (docs/data-drops.md#stages-known-gaps-and-definitions): a reader told "outturn"
 * must also be told that it leaves out debt principal, say, before setting it beside the law.
 */
export const StagesSchema = z
  .partialRecord(StageName, z.object({ label: TextSchema, basis: TextSchema, comparable_with: z.array(StageName) }))
  .superRefine((stages, ctx) => {
    // "A is comparable with B" and not the reverse would draw one series one way and two the other.
    for (const [stage, described] of Object.entries(stages)) {
      for (const other of described?.comparable_with ?? []) {
        const back = stages[other];
        if (back && !back.comparable_with.includes(stage as (typeof SERIES_STAGES)[number]) && other !== stage) {
          ctx.addIssue({ code: 'custom', path: [other, 'comparable_with'], message: `must list ${stage}, which lists ${other}` });
        }
      }
    }
  });

/** An omission the drop knows of and says (docs/data-drops.md#stages-known-gaps-and-definitions). */
export const KnownGapSchema = z
  .object({
    table: z.enum(TABLES.map((t) => t.name) as [string, ...string[]]),
    stage: z.string().nullable(),
    years: z.array(Year),
    reason: TextSchema,
  })
  .superRefine((gap, ctx) => {
    // The stage in the table's own vocabulary (lines: initial, amendment, outturn; series: initial,
    // amended, outturn); tables without stages take null.
    const allowed: readonly string[] = STAGED_LINES.has(gap.table) ? LINE_STAGES : STAGED_SERIES.has(gap.table) ? SERIES_STAGES : [];
    if (gap.stage !== null && !allowed.includes(gap.stage)) {
      ctx.addIssue({ code: 'custom', path: ['stage'], message: allowed.length ? `must be null or one of ${allowed.join(', ')}` : `must be null: ${gap.table} has no stages` });
    }
  });

const STAGED_LINES = new Set(['expenses', 'resources']);
const STAGED_SERIES = new Set(['debt', 'outstanding_debt', 'deficit']);

/**
 * The drop's own wording for a field: `FIELD` (every endpoint) or `ENDPOINT.FIELD`, the endpoint
 * as its path after /budget/api/ (`organization/stats.total_expenses`). The keys are checked
 * against the service's field table when the drop loads.
 */
export const DefinitionsSchema = z.record(
  // A field may be nested (organization.name of an expense line), with or without its endpoint.
  z.string().regex(/^([a-z][a-z/-]*\.)?[a-z][a-z_]*(\.[a-z][a-z_]*)?$/, {
    error: 'keys are FIELD or ENDPOINT.FIELD, such as deficit.value or expenses.organization.name',
  }),
  TextSchema,
);

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * drop.json (docs/data-drops.md#dropjson). Unknown keys are kept out; `source`, `license` (the data's
 * licence), `units`, `stages`, `known_gaps` and `definitions` are optional.
 */
export const ManifestSchema = z.object({
  // It names the release and its permalinks (/budget/api/releases/VERSION/…): an empty one has
  // none; "." and ".." are path segments a client removes from the URL (RFC 3986), so the
  // permalink would lead elsewhere; a control character has no place in the feed's XML.
  version: z
    .string()
    .refine((version) => version.trim() !== '', { error: 'must name the drop: it must not be empty or only spaces' })
    .refine((version) => version !== '.' && version !== '..', {
      error: (issue) => `must not be "${String(issue.input)}": a permalink's URL would lose it`,
    })
    .refine((version) => !CONTROL.test(version), {
      error: (issue) => `must not hold a control character (${codePoint(CONTROL.exec(String(issue.input))![0])})`,
    }),
  created_at: z.string().refine(isIsoDateTime, {
    error: (issue) => `must be an ISO 8601 date or date-time that exists, such as 2026-12-01T09:00:00Z, not ${JSON.stringify(String(issue.input).slice(0, 40))}`,
  }),
  description: z.string(),
  source: z.string().optional(),
  license: z.string().optional(),
  units: UnitsSchema.optional(),
  stages: StagesSchema.optional(),
  known_gaps: z.array(KnownGapSchema).optional(),
  definitions: DefinitionsSchema.optional(),
  files: z
    .record(
      z.string({ error: 'must be an object mapping file names to {"sha256", "rows"}' }),
      z.object({
        sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, { error: 'must be 64 hex digits' }),
        rows: wholeNumber(0, "the file's row count"),
        /** The file's size; a DATA_URL download stops at it (src/data/remote.ts). Optional: older drops lack it. */
        bytes: wholeNumber(0, "the file's size in bytes").optional(),
      }),
      { error: 'must be an object mapping file names to {"sha256", "rows"}' },
    )
    .superRefine((files, ctx) => {
      // Every listed file is read, copied into a release and downloaded by its name: a path would
      // reach outside the drop's directory.
      for (const name of Object.keys(files)) {
        if (!FILE_NAME.test(name)) ctx.addIssue({ code: 'custom', message: `lists "${name.slice(0, 200)}", which is not a plain file name (no /, no ..)` });
      }
    }),
  control_totals: z.array(ControlTotalSchema).optional(),
  notes: z.array(NoteSchema).optional(),
});

export type Manifest = z.infer<typeof ManifestSchema>;
export type Units = z.infer<typeof UnitsSchema>;
export type ControlTotal = z.infer<typeof ControlTotalSchema>;
export type Note = z.infer<typeof NoteSchema>;

/** What the schema library calls a kind of value, as a person editing drop.json calls it. */
const KINDS: Record<string, string> = { object: 'an object', record: 'an object', array: 'a list', int: 'a whole number' };

/** A JSON value's kind, as a person editing drop.json calls it. */
const kindOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `a ${typeof value}`);

/**
 * Every mistake a field's own message does not cover, said as a person editing drop.json would:
 * `version is required (a string)`, `notes.0.text must not be empty`, `control_totals.0 takes no field "by"`.
 */
const inPlainWords: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type': {
      const expected = KINDS[issue.expected] ?? `a ${issue.expected}`;
      if (issue.input === undefined) return `is required (${expected})`;
      // A number that is not whole is itself what is wrong with it: `must be a whole number, not 1.5`.
      return `must be ${expected}, not ${issue.expected === 'int' && typeof issue.input === 'number' ? issue.input : kindOf(issue.input)}`;
    }
    case 'too_small':
      return issue.origin === 'string' && issue.minimum === 1 ? 'must not be empty' : `must be ${issue.inclusive ? '>=' : '>'} ${issue.minimum}`;
    case 'too_big':
      return `must be ${issue.inclusive ? '<=' : '<'} ${issue.maximum}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}`;
    case 'unrecognized_keys':
      return `takes no field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}`;
    case 'invalid_key':
      return `is not a valid key${issue.issues[0] ? ` (${issue.issues[0].message})` : ''}`;
    default:
      return undefined;
  }
};

/** A field's place in drop.json as its editor finds it: `files."gdp.parquet".rows`, `notes.0.text`. */
const pathText = (path: PropertyKey[]): string =>
  path.map((key) => (typeof key === 'string' && !/^[A-Za-z_]\w*$/.test(key) ? JSON.stringify(key) : String(key))).join('.');

/**
 * drop.json's text read, by the one parser every reader of a drop.json shares (loading a drop,
 * the diff, a DATA_URL download, the releases kept): the manifest with the JSON it was read from,
 * or why it is none: JSON.parse's error, or the schema's issues (each a dotted path and a message).
 * Each reader words the reason for its own reader.
 */
export function readManifestText(
  text: string,
): { ok: true; manifest: Manifest; json: unknown } | { ok: false; notJson: Error } | { ok: false; issues: { path: string; message: string }[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, notJson: error as Error };
  }
  const parsed = ManifestSchema.safeParse(json, { error: inPlainWords });
  if (parsed.success) return { ok: true, manifest: parsed.data, json };
  return { ok: false, issues: parsed.error.issues.map((issue) => ({ path: pathText(issue.path), message: issue.message })) };
}

/**
 * drop.json's text checked: the manifest, or every problem (up to 20) in terms a person editing
 * the file can act on: where the JSON breaks (line and column), which field is wrong and how.
 */
export function parseManifest(text: string): { ok: true; manifest: Manifest } | { ok: false; problems: string[] } {
  const read = readManifestText(text);
  if (read.ok) return { ok: true, manifest: read.manifest };
  if ('notJson' in read) return { ok: false, problems: [`must be valid JSON${jsonPosition(text, read.notJson.message)}`] };
  return { ok: false, problems: read.issues.slice(0, 20).map((issue) => `${issue.path || 'manifest'} ${issue.message}`) };
}

/** ": line L, column C" from JSON.parse's "at position N" (Node 20) or "(line L column C)" (later versions). */
function jsonPosition(text: string, message: string): string {
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) return `: line ${lineColumn[1]}, column ${lineColumn[2]}`;
  const position = /position (\d+)/.exec(message);
  if (position) {
    const before = text.slice(0, Number(position[1])).split('\n');
    return `: line ${before.length}, column ${before[before.length - 1]!.length + 1}`;
  }
  if (text.trim() === '') return ': the file is empty';
  const start = text.search(/\S/);
  if (text[start] !== '{') {
    const before = text.slice(0, start).split('\n');
    return `: line ${before.length}, column ${before[before.length - 1]!.length + 1}: drop.json is one JSON object, starting with {`;
  }
  return /end of JSON|Unterminated/i.test(message) ? ': it ends too early (a missing } or ])' : `: ${message}`;
}
export type Stages = z.infer<typeof StagesSchema>;
export type KnownGap = z.infer<typeof KnownGapSchema>;
export type Definitions = z.infer<typeof DefinitionsSchema>;
export type Text = z.infer<typeof TextSchema>;
