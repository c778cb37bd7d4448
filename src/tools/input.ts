/**
 * The analyst's input as it comes out of a spreadsheet (docs/data-drops.md#spreadsheets): a
 * directory of CSV files in any character set and in the French convention (`;`, decimal commas,
 * spaces between thousands, VRAI/FAUX), or one `.xlsx` workbook with a sheet per table. Each table
 * is turned into the one CSV form build.ts reads (UTF-8, `,`, `.` decimals, true/false), keeping
 * which spreadsheet line each record came from, so that every problem names the analyst's line.
 *
 * Plain UTF-8 comma-separated files without empty lines, whose lines all end alike (LF or CRLF),
 * are read where they are, untouched: the common case stays as fast as DuckDB's CSV reader.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { access, open, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { stringify } from 'csv-stringify/sync';
import readXlsxFile from 'read-excel-file/node';
import writeXlsxFile from 'write-excel-file/node';
import { TABLES, type ColumnSpec, type TableSpec } from '../data/schema.js';

export type Locale = 'en' | 'fr';

export interface InputOptions {
  /** `fr`: `;`-separated, decimal commas, spaces or non-breaking spaces between thousands, VRAI/FAUX. */
  locale?: Locale;
  /** The CSV files' character set (a WHATWG label: windows-1252, latin1, utf-16le...); UTF-8 by default. */
  encoding?: string;
}

/** One table of the input, ready for build.ts. */
export interface TableInput {
  /** What the analyst calls it: `expenses.csv`, or `expenses (sheet of budget.xlsx)`. */
  label: string;
  /** The UTF-8, comma-separated CSV file build.ts reads. */
  csv: string;
  /** The spreadsheet line of the header; undefined: line 1. */
  header?: number;
  /** What separates the fields of the analyst's CSV file (`;` under --locale fr); undefined for a sheet. */
  separator?: ',' | ';';
  /** The spreadsheet line of the n-th record (0-based); undefined: record n is on line n + 2. */
  lines?: number[];
  /** What reading the input refuses (a dotted number with --locale fr, a second sheet of the table), for build.ts to report. */
  problems?: string[];
  /**
   * A column's values as the analyst wrote them, by record, where the locale's conversion rewrote
   * them (13 700,5 read as 13700.5), so that a problem quotes the value as written.
   */
  written?: Map<string, (string | undefined)[]>;
}

/** An input the analyst must fix, in the analyst's terms (never an engine's message). */
export class InputError extends Error {}

/** The extra tables an input may hold besides the drop's: drop.json fields kept as tables. */
export const MANIFEST_TABLES = {
  control_totals: ['year', 'stage', 'total_expenses', 'total_resources'],
  notes: ['table', 'id', 'text', 'source_id'],
} as const;

/** The number columns of those tables, read with --locale fr as a table's are (decimal commas, spaces between thousands). */
const MANIFEST_NUMBERS: Record<string, ColumnSpec['kind']> = {
  year: 'integer',
  total_expenses: 'numeric',
  total_resources: 'numeric',
  id: 'integer',
  source_id: 'integer',
};
export type ManifestTable = keyof typeof MANIFEST_TABLES;

export const isWorkbook = (src: string) => /\.xlsx$/i.test(src);

/** The analyst's line of record `index` (0-based) of a table. */
export const lineOf = (input: TableInput, index: number): number => input.lines?.[index] ?? index + 2;

/** Where a table's header is, as a problem names it: empty lines before it count. */
export const headerOf = (input: TableInput): string => `${input.label}, line ${input.header ?? 1} (the header)`;

/**
 * Every table the input has, as canonical CSV in `scratch` when it had to be converted. A table
 * the input lacks is absent from the map.
 */
export async function readInput(src: string, scratch: string, options: InputOptions): Promise<Map<string, TableInput>> {
  if (isWorkbook(src)) return readWorkbook(src, scratch, options);
  const out = new Map<string, TableInput>();
  const names = [...TABLES.map((t) => t.name), ...Object.keys(MANIFEST_TABLES)];
  const decoder = decoderFor(options.encoding);
  for (const name of names) {
    const file = path.join(src, `${name}.csv`);
    if (
      !(await access(file).then(
        () => true,
        () => false,
      ))
    )
      continue;
    const label = `${name}.csv`;
    if (!decoder) {
      const wide = utf16Of(await firstBytes(file, 4));
      if (wide)
        throw new InputError(
          `${label}: is ${wide} text, not UTF-8; name its character set with --encoding ${wide.toLowerCase()} (or save it as UTF-8)`,
        );
    }
    const plain = options.locale !== 'fr' && !decoder && (await readsAsIs(file));
    if (plain && TABLES.some((t) => t.name === name)) {
      out.set(name, { label, csv: file, separator: ',' });
      continue;
    }
    const bytes = await readFile(file);
    let text: string;
    // A UTF-8 byte-order mark says the file is UTF-8, whatever --encoding names for the others,
    // and so does text beyond ASCII that is all valid UTF-8.
    if (decoder && !hasUtf8Bom(bytes) && !isUtf8Beyond(bytes)) text = decoder(bytes);
    else {
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        // Decoded leniently, the first byte that is not UTF-8 becomes U+FFFD: its line is the one to name.
        const lenient = new TextDecoder('utf-8').decode(bytes);
        const line = lenient.slice(0, lenient.indexOf('\uFFFD')).split('\n').length;
        throw new InputError(
          `${label}, line ${line}: is not UTF-8 text; name its character set with --encoding (a spreadsheet on Windows usually writes windows-1252)`,
        );
      }
    }
    const separator = options.locale === 'fr' ? ';' : ',';
    const records = parseCsv(label, text, separator);
    out.set(name, { ...(await writeCanonical(name, label, records, scratch, options)), separator });
  }
  return out;
}

/**
 * Whether DuckDB's reader can take a file where it is: it skips an empty line (numbering records,
 * not lines), and its sniffer fails on lines ending in a mix of CRLF and LF (an Excel export with a
 * line appended by `echo`) or in CR alone (an old Mac's). Any other file is converted, keeping its
 * lines. Read in chunks; a line break inside a quoted value counts too, which only costs the
 * conversion.
 */
async function readsAsIs(file: string): Promise<boolean> {
  const endings = new Set<'LF' | 'CRLF' | 'CR'>();
  let tail = Buffer.from('\n'); // an empty first line follows the start of the file
  for await (const chunk of createReadStream(file)) {
    // The last two bytes are read again with the next chunk: a CR there is told by what follows it.
    const text = Buffer.concat([tail, chunk as Buffer]);
    if (text.includes('\n\n') || text.includes('\n\r\n')) return false;
    for (let i = text.indexOf(13); i !== -1 && i + 1 < text.length; i = text.indexOf(13, i + 1)) endings.add(text[i + 1] === 10 ? 'CRLF' : 'CR');
    for (let i = text.indexOf(10, 1); i !== -1; i = text.indexOf(10, i + 1)) if (text[i - 1] !== 13) endings.add('LF');
    if (endings.size > 1 || endings.has('CR')) return false;
    tail = text.subarray(-2);
  }
  return tail.at(-1) !== 13;
}

/** The first `n` bytes of a file. */
async function firstBytes(file: string, n: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(n), 0, n, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

const hasUtf8Bom = (bytes: Buffer) => bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;

/**
 * Whether a file holds characters beyond ASCII and all of them are valid UTF-8: a UTF-8 file
 * among windows-1252 ones (an accent is one byte there, never a valid UTF-8 sequence; read as
 * windows-1252, a UTF-8 "É" would become "Ã‰" unseen).
 */
const isUtf8Beyond = (bytes: Buffer) => !isAscii(bytes) && isUtf8(bytes);

/**
 * UTF-16 (what Excel's "Unicode text" writes), by its byte-order mark or, without one, by a NUL byte
 * beside each ASCII character of the header; otherwise undefined. Read as UTF-8 it would be a
 * header full of NULs, refused as a header that does not match.
 */
function utf16Of(head: Buffer): 'UTF-16LE' | 'UTF-16BE' | undefined {
  if (head[0] === 0xff && head[1] === 0xfe) return 'UTF-16LE';
  if (head[0] === 0xfe && head[1] === 0xff) return 'UTF-16BE';
  if (head.length >= 4 && head[0] !== 0 && head[1] === 0 && head[2] !== 0 && head[3] === 0) return 'UTF-16LE';
  if (head.length >= 4 && head[0] === 0 && head[1] !== 0 && head[2] === 0 && head[3] !== 0) return 'UTF-16BE';
  return undefined;
}

/**
 * iconv-lite rather than TextDecoder: Node's TextDecoder reads windows-1252 as ISO-8859-1, so the
 * curly apostrophe (0x92) and the euro sign (0x80) of a Windows export would come out as control characters.
 */
function decoderFor(encoding: string | undefined): ((bytes: Buffer) => string) | undefined {
  if (encoding === undefined || /^utf-?8$/i.test(encoding)) return undefined;
  const unknown = encodingProblem(encoding);
  if (unknown) throw new InputError(unknown);
  return (bytes) => iconv.decode(bytes, encoding);
}

/** Why --encoding names no character set this tool reads; undefined when it names one. */
export function encodingProblem(encoding: string): string | undefined {
  if (iconv.encodingExists(encoding)) return undefined;
  return `--encoding "${encoding}" is not a character set this tool knows (e.g. utf-8, windows-1252, iso-8859-1, utf-16le)`;
}

/** Records with the spreadsheet row each is on; the header is row 1. */
function parseCsv(label: string, text: string, delimiter: string): { values: string[]; line: number }[] {
  try {
    const rows = parse(text.replace(/^\uFEFF/, ''), {
      delimiter,
      // Every line ending, whichever the file starts with: a mix is read line by line.
      record_delimiter: ['\r\n', '\n', '\r'],
      bom: true,
      relax_column_count: true,
      info: true,
      skip_empty_lines: true,
    }) as unknown as {
      record: string[];
      info: { records: number; empty_lines: number };
    }[];
    // A spreadsheet numbers rows: each record is one, however many line breaks its quoted values
    // hold, and so is each empty line (skipped here, but counted). The header is record 1.
    return rows.map(({ record, info }) => ({ values: record, line: info.records + info.empty_lines }));
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new InputError(
      `${label}${line ? `, line ${line}` : ''}: cannot be read as ${delimiter === ';' ? '";"' : '","'}-separated values (check the quotes)`,
    );
  }
}

/**
 * Writes one table as canonical CSV: the header as given (build.ts checks it), numbers and flags
 * rewritten from the locale's convention; anything it cannot rewrite is left as it is, for
 * build.ts to report with its line.
 */
async function writeCanonical(
  name: string,
  label: string,
  records: { values: unknown[]; line: number }[],
  scratch: string,
  options: InputOptions,
): Promise<TableInput> {
  const [header, ...rows] = records;
  const names = (header?.values ?? []).map((v) => String(v ?? '').trim());
  const table = TABLES.find((t) => t.name === name);
  const manifestColumn = (n: string): ColumnSpec | undefined =>
    name in MANIFEST_TABLES && MANIFEST_NUMBERS[n] ? { name: n, kind: MANIFEST_NUMBERS[n], sqlType: 'VARCHAR' } : undefined;
  const specs = names.map((n) => table?.columns.find((c) => c.name === n) ?? manifestColumn(n));
  const canonical = rows.map(({ values }) => names.map((_, i) => canonicalValue(values[i], specs[i], options.locale ?? 'en')));
  const problems = options.locale === 'fr' ? dottedNumbers(label, rows, names, specs) : [];
  const written = new Map<string, (string | undefined)[]>();
  rows.forEach(({ values }, r) =>
    names.forEach((column, i) => {
      const text = typeof values[i] === 'string' ? (values[i] as string).trim() : undefined;
      if (text === undefined || text === canonical[r]![i]) return;
      if (!written.has(column)) written.set(column, []);
      written.get(column)![r] = text;
    }),
  );
  // A row wider than the header is kept wide, so that build.ts reports it by its line.
  rows.forEach(({ values }, r) => {
    for (let i = names.length; i < values.length; i++)
      if (String(values[i] ?? '') !== '') canonical[r]!.push(canonicalValue(values[i], undefined, 'en'));
  });
  const csv = path.join(scratch, `${name}.csv`);
  await writeFile(csv, stringify([names, ...canonical], { quoted_match: /[\r\n]/ }), 'utf8');
  return {
    label,
    csv,
    header: header?.line,
    lines: rows.map((r) => r.line),
    ...(problems.length ? { problems } : {}),
    ...(written.size ? { written } : {}),
  };
}

/**
 * With --locale fr a dot in a number is refused, never read: "1.000" is one thousand to a French
 * or German writer and one to the reader, and either way the figure would pass silently.
 */
function dottedNumbers(label: string, rows: { values: unknown[]; line: number }[], names: string[], specs: (ColumnSpec | undefined)[]): string[] {
  const problems: string[] = [];
  for (const { values, line } of rows) {
    specs.forEach((spec, i) => {
      const value = values[i];
      if ((spec?.kind === 'numeric' || spec?.kind === 'integer') && typeof value === 'string' && value.includes('.')) {
        problems.push(
          `${label}, line ${line}, column ${names[i]}: "${value.trim()}" has a dot, which --locale fr does not read (1.000 may mean one or one thousand); write decimals with a comma and thousands with a space or nothing, such as 13 700,5`,
        );
      }
    });
  }
  return problems;
}

/** A workbook's number cell, as its own text: a dot there is the decimal point, whatever the locale. */
class CellNumber {
  constructor(readonly text: string) {}
  toString() {
    return this.text;
  }
}

/** A number as --locale fr writes it: a decimal comma, and spaces only between groups of three digits. */
const FRENCH_NUMBER = /^[+-]?(\d+|\d{1,3}([ \u00a0\u202f]\d{3})+)(,\d+)?$/;

function canonicalValue(value: unknown, spec: ColumnSpec | undefined, locale: Locale): string {
  if (value === null || value === undefined) return '';
  if (value instanceof CellNumber) return value.text;
  if (value instanceof Date) return value.toISOString().replace(/T00:00:00\.000Z$/, '');
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isFinite(value) ? numberText(value) : String(value);
  const text = String(value).trim();
  if (!spec || locale !== 'fr') return text;
  if (spec.kind === 'boolean') return /^vrai$/i.test(text) ? 'true' : /^faux$/i.test(text) ? 'false' : text;
  if (spec.kind === 'integer' || spec.kind === 'numeric') {
    // 13 700,5 and 13\u00a0700,5 (and the narrow no-break space some tools write) are 13700.5.
    // A space anywhere else (58 25, an id 1 0) is a typo, never read as one number.
    if (!FRENCH_NUMBER.test(text)) return text;
    return text.replace(/[ \u00a0\u202f]/g, '').replace(',', '.');
  }
  return text;
}

/** A spreadsheet's number as plain decimal text (never an exponent, which build.ts would read slowly). */
function numberText(n: number): string {
  const text = String(n);
  return /e/i.test(text) ? n.toFixed(Math.min(20, Math.max(0, -Math.floor(Math.log10(Math.abs(n) || 1)) + 15))) : text;
}

async function readWorkbook(src: string, scratch: string, options: InputOptions): Promise<Map<string, TableInput>> {
  let sheets: { sheet: string; data: unknown[][] }[];
  try {
    // Numbers as the cell's own text: a float parsed and printed again could gain noise digits.
    sheets = (await readXlsxFile(await readFile(src), { parseNumber: (text: string) => new CellNumber(text) })) as {
      sheet: string;
      data: unknown[][];
    }[];
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new InputError(`${path.basename(src)}: ${missing ? 'file not found' : 'is not an .xlsx workbook this tool can read'}`);
  }
  const out = new Map<string, TableInput>();
  const names = new Set<string>([...TABLES.map((t) => t.name), ...Object.keys(MANIFEST_TABLES)]);
  const sheetOf = new Map<string, string>();
  for (const { sheet, data } of sheets) {
    const name = sheet.trim().replace(/\.csv$/i, '');
    if (!names.has(name)) continue;
    // Either sheet may be the one meant: reading one of them would drop the other's lines unseen.
    const first = sheetOf.get(name);
    if (first !== undefined) {
      const table = out.get(name)!;
      const problem = `${path.basename(src)}: sheets ${JSON.stringify(first)} and ${JSON.stringify(sheet)} are both the ${name} table; keep one of them`;
      table.problems = [...(table.problems ?? []), problem];
      continue;
    }
    sheetOf.set(name, sheet);
    // Blank rows are kept in the count (the analyst's line numbers) but not in the table.
    const records = data.map((values, i) => ({ values, line: i + 1 })).filter(({ values }) => values.some((v) => v !== null && v !== ''));
    const table = await writeCanonical(name, `${name} (sheet of ${path.basename(src)})`, records, scratch, options);
    out.set(name, table);
  }
  return out;
}

/** One example row per table, as the sample's own data would have it. */
const EXAMPLES: Record<string, Record<string, unknown>> = {
  organizations: { id: 1, name: 'Ministère des Finances', code: 'MF' },
  categories: { id: 1, name: 'Dépenses de rémunération', type: 'expense', parent_id: null },
  expenses: {
    id: 1,
    year: 2026,
    amount: 24380,
    category_id: 1,
    organization_id: 1,
    complementary: false,
    stage: 'initial',
    source_id: 1,
    derived: false,
  },
  resources: {
    id: 1,
    year: 2026,
    amount: 45200,
    category_id: 2,
    organization_id: null,
    complementary: false,
    stage: 'initial',
    source_id: 1,
    derived: false,
  },
  debt_origins: { id: 1, parent_id: null, name: 'Dette intérieure' },
  debt: { year: 2026, debt_origin_id: 1, value: 9000, stage: 'initial', source_id: 1, derived: false },
  gdp: { year: 2026, gdp: 180000, source_id: 1, derived: false },
  outstanding_debt: { year: 2026, outstanding_debt: 150000, stage: 'initial', source_id: 1, derived: false },
  deficit: { year: 2026, value: 5000, stage: 'initial', source_id: 1, derived: false },
  sources: {
    id: 1,
    title: 'Loi de finances 2026',
    url: 'https://www.finances.gov.tn/',
    publisher: 'Ministère des Finances',
    published: '2025-12-10',
    quote: null,
  },
  population: { year: 2026, population: 12200000, source_id: 1, derived: false },
  cpi: { year: 2026, index: 100, source_id: 1, derived: false },
  control_totals: { year: 2026, stage: 'initial', total_expenses: 63000, total_resources: 63000 },
  notes: { table: 'deficit', id: 2024, text: 'Corrected from the outturn published in 2026', source_id: 1 },
};

/** `budget-data template`: a workbook with one sheet per table, its header and one example row. */
export async function writeTemplate(file: string): Promise<string[]> {
  const tables: { name: string; columns: string[] }[] = [
    ...TABLES.map((t: TableSpec) => ({ name: t.name, columns: t.columns.map((c) => c.name) })),
    ...Object.entries(MANIFEST_TABLES).map(([name, columns]) => ({ name, columns: [...columns] })),
  ];
  const sheets = tables.map(({ name, columns }) => ({
    sheet: name,
    data: [
      columns.map((c) => ({ value: c, fontWeight: 'bold' as const })),
      columns.map((c) => {
        const value = EXAMPLES[name]?.[c];
        return value === null || value === undefined ? null : { value: value as string | number | boolean };
      }),
    ],
  }));
  await writeXlsxFile(sheets as never).toFile(file);
  return tables.map((t) => t.name);
}
