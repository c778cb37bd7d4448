#!/usr/bin/env node
/**
 * budget-data: the analysts' tool for data drops (docs/data-drops.md#the-budget-data-cli). `build`
 * turns CSV files into a drop, `validate` runs the very checks the server runs before it serves or
 * swaps a drop, `synth` writes a synthetic drop of any size, `diff` says what changed between two drops.
 *
 * Exit codes: 0 done (or valid, or equal), 1 failed (or invalid, or different), 2 bad command line
 * (and, for diff, any error: 1 is its answer "different"); a build stopped by SIGINT, SIGTERM or
 * SIGHUP 130, 143 or 129, as a shell reports a process a signal ended.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { diffMarkdown, diffReport } from './tools/diff-report.js';
import { progressPrinter, problemReport, refusedReport, validSummary, writtenSummary } from './tools/report.js';
import { BuildError, abandonBuilds, buildDrop, withoutProblems } from './tools/build.js';
import { encodingProblem, writeTemplate } from './tools/input.js';
import { dropWarnings, warningText } from './data/warnings.js';
import { diffDrops, downloadDrop, dropSideOf, type DropSide } from './data/diff.js';
import { DropError, loadDrop } from './data/drop.js';
import { isIsoDateTime, UnitsSchema, type Manifest, type Units } from './data/manifest.js';
import { SAMPLE_EXPENSE_LINES, synthDrop } from './tools/synth.js';
import { publishDrop } from './tools/publish.js';
import { addKey, KeyNameTaken, keyNameProblem } from './http/api-keys.js';
import { jsonText } from './domain/json.js';
import { ENDPOINTS } from './api/endpoints/index.js';
import { unusedDefinitions } from './api/fields.js';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

interface Command {
  summary: string;
  help: string;
  options: Options;
  /** Names of the positional arguments, all required. */
  positionals: string[];
  run(args: string[], values: Values): Promise<number>;
}

class UsageError extends Error {}

/** The signals that stop a build: Ctrl-C, a kill, a closed terminal. */
const STOPPING = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const NAME = 'budget-data';

const COMMANDS: Record<string, Command> = {
  build: {
    summary: 'build a drop from CSV files or an .xlsx workbook, validated, then put in place at once',
    positionals: ['SRC', 'OUT_DIR'],
    options: {
      version: { type: 'string' },
      description: { type: 'string' },
      source: { type: 'string' },
      license: { type: 'string' },
      units: { type: 'string' },
      'created-at': { type: 'string' },
      from: { type: 'string' },
      without: { type: 'string', multiple: true },
      locale: { type: 'string' },
      encoding: { type: 'string' },
      strict: { type: 'boolean' },
    },
    help: `Usage: ${NAME} build SRC OUT_DIR [--from PREV] [--without TABLE]... [--locale fr] [--encoding E] [--strict]
                 [--version V] [--description TEXT] [--source S] [--license L] [--units NAME,CURRENCY,SCALE] [--created-at ISO]

SRC is a directory holding one CSV file per table (organizations.csv, categories.csv, expenses.csv,
resources.csv, debt_origins.csv, debt.csv, gdp.csv, outstanding_debt.csv, deficit.csv; optionally
sources.csv, population.csv, cpi.csv, and control_totals.csv and notes.csv for drop.json), or one
.xlsx workbook with one sheet per table, named as the CSV files (${NAME} template FILE.xlsx writes one).

The new drop is written beside OUT_DIR and checked with every rule the server applies (control
totals included); only then does it replace OUT_DIR, at once. A problem stops the build with every
problem found (file or sheet, line as the spreadsheet numbers it, column, value, what was
expected), exit code 1, and OUT_DIR byte for byte as it was. Stopped by Ctrl-C, SIGTERM or SIGHUP
(a closed terminal), it removes what it wrote beside OUT_DIR and exits 130, 143 or 129. Files in OUT_DIR that are not part of
a drop (data/sources/) are kept. When OUT_DIR is a symbolic link, the new drop gets a directory of
its own beside the link's target and the link is re-pointed at it (roll back: point it back).

CSV files: UTF-8 (a byte-order mark is fine), comma-separated, "-quoted, a header row with the
table's columns in the order of docs/data-drops.md (the optional ones, such as stage, source_id and
derived, may be left out), an empty field for a missing value; money with at most 3 decimals,
less than 10^32.

  --from PREV         carry over every drop.json field of the drop in PREV (description, source,
                      license, units, stages, known gaps, definitions, control totals) not given
                      here; a table PREV has and SRC lacks is then an error, unless --without says so
  --without TABLE     leave an optional table out on purpose (repeatable)
  --locale fr         files as a French spreadsheet exports them: ";"-separated, decimal commas,
                      spaces or non-breaking spaces between thousands (13 700,5), VRAI/FAUX
  --encoding E        the CSV files' character set when not UTF-8 (e.g. windows-1252)
  --strict            warnings (a year far from all others; lines of a year without GDP,
                      population or CPI; a definition of no field) are errors
  --version V         drop.json's version (default: build-<created_at>)
  --description TEXT  drop.json's description (default: PREV's, or "Built from SRC")
  --source S          drop.json's source: a URL or a citation
  --license L         drop.json's license: the data's licence (not the software's)
  --units N,C,S       drop.json's units: one unit of the amounts is S units of currency C,
                      named N (e.g. MDT,TND,1000000)
  --created-at ISO    drop.json's created_at (default: now); fix it to make builds reproducible

Relative paths are from the directory you run the command in (under npm run data -- too).
Progress (rows and rows/s per table) goes to stderr. Then: ${NAME} diff OLD OUT_DIR --format markdown`,
    async run([src, outDir], values) {
      const createdAt = isoOption(values['created-at'], '--created-at') ?? new Date().toISOString();
      const locale = values.locale as string | undefined;
      if (locale !== undefined && locale !== 'fr' && locale !== 'en') throw new UsageError(`--locale takes fr (or en, the default), not "${locale}"`);
      const encoding = values.encoding as string | undefined;
      // A command line's mistake (exit 2), found before anything is read or written.
      const wrongEncoding = encoding === undefined ? undefined : encodingProblem(encoding);
      if (wrongEncoding) throw new UsageError(wrongEncoding);
      const version = (values.version as string | undefined) ?? `build-${createdAt}`;
      if (version.trim() === '') throw new UsageError('--version must name the drop: it must not be empty or only spaces');
      const [wrongTable] = withoutProblems((values.without as unknown as string[] | undefined) ?? []);
      if (wrongTable) throw new UsageError(wrongTable);
      const started = performance.now();
      // Stopped while building (Ctrl-C, a kill, the terminal or SSH session closed), the
      // half-written drop beside OUT_DIR is removed first; the exit code is the shell's for a
      // process a signal ended (128 + its number).
      const stop = (signal: NodeJS.Signals) => {
        if (abandonBuilds()) process.exit(128 + constants.signals[signal]);
      };
      for (const signal of STOPPING) process.on(signal, stop);
      try {
        const built = await buildDrop(here(src!), here(outDir!), {
          version,
          description: values.description as string | undefined,
          source: values.source as string | undefined,
          license: values.license as string | undefined,
          units: unitsOption(values.units),
          createdAt,
          from: values.from === undefined ? undefined : here(values.from as string),
          without: values.without as unknown as string[] | undefined,
          locale,
          encoding,
          strict: values.strict === true,
          manifestWarnings: apiWarnings,
          onProgress: progressPrinter(),
        });
        process.stdout.write(`${writtenSummary('built', built.manifest, built.dir, (performance.now() - started) / 1000)}\n`);
        for (const warning of built.warnings) process.stdout.write(`warning: ${warning}\n`);
        return 0;
      } catch (error) {
        if (!(error instanceof BuildError)) throw error;
        process.stdout.write(`${refusedReport(error.version || version, error.problems)}\n${outDir} was left as it was\n`);
        return 1;
      } finally {
        for (const signal of STOPPING) process.off(signal, stop);
      }
    },
  },

  template: {
    summary: 'write an .xlsx workbook with every table as a sheet: its header and one example row',
    positionals: ['FILE'],
    options: {},
    help: `Usage: ${NAME} template FILE.xlsx

Writes a workbook with one sheet per table of a drop (and control_totals and notes, the drop.json
fields kept as tables), each with its header row and one example row. Fill it in, delete the
example rows, leave out the optional sheets you do not need, then: ${NAME} build FILE.xlsx OUT_DIR`,
    async run([file]) {
      if (!/\.xlsx$/i.test(file!)) throw new UsageError(`template writes an .xlsx workbook: name it FILE.xlsx, not "${file}"`);
      const sheets = await writeTemplate(here(file!));
      process.stdout.write(`wrote ${file}: ${sheets.length} sheets (${sheets.join(', ')})\n`);
      return 0;
    },
  },

  validate: {
    summary: 'check a drop with the server’s own rules, reporting every problem',
    positionals: ['DIR'],
    options: { strict: { type: 'boolean' } },
    help: `Usage: ${NAME} validate DIR [--strict]

Loads the drop in DIR exactly as the server does before serving or swapping it in, but reports
every broken rule rather than the first: the file, the rule, the number of offending rows and
up to five of them. Exit code 0 when the drop is valid (with a one-line summary: row counts and
the fingerprint that the API's ETags derive from), 1 when it is not. Then warnings: a year more than
5 years from every other year, lines of a year without a GDP, population or CPI row, a
definitions key of drop.json that names no field; --strict makes them errors (exit code 1).`,
    async run([dir], values) {
      const started = performance.now();
      try {
        const drop = await loadDrop(here(dir!), { allProblems: true });
        let warnings: string[];
        try {
          warnings = [...(await dropWarnings(drop)).map(warningText), ...apiWarnings(drop.manifest)];
        } finally {
          drop.instance.closeSync();
        }
        // With --strict a warning is an error: the drop is not called valid.
        if (values.strict && warnings.length) {
          process.stdout.write(`invalid with --strict: ${warnings.length} ${warnings.length === 1 ? 'warning' : 'warnings'} in ${dir}\n`);
          for (const warning of warnings) process.stdout.write(`warning: ${warning}\n`);
          return 1;
        }
        process.stdout.write(`${validSummary(drop, (performance.now() - started) / 1000)}\n`);
        for (const warning of warnings) process.stdout.write(`warning: ${warning}\n`);
        return 0;
      } catch (error) {
        if (!(error instanceof DropError)) throw error;
        process.stdout.write(`${problemReport(dir!, error.problems)}\n`);
        return 1;
      }
    },
  },

  synth: {
    summary: 'write a synthetic drop of any size, to try the service',
    positionals: ['OUT_DIR'],
    options: {
      scale: { type: 'string' },
      lines: { type: 'string' },
      seed: { type: 'string', default: '1' },
      stages: { type: 'boolean' },
      'created-at': { type: 'string' },
    },
    help: `Usage: ${NAME} synth OUT_DIR (--scale N | --lines L) [--seed S] [--stages] [--created-at ISO]

Writes a synthetic drop, labelled synthetic in drop.json's version and description: 300
organizations, category trees 4 levels deep for expenses and resources, a 2-level debt-origin
tree, every year 2000–2025 with gdp, population, cpi, outstanding_debt, deficit and debt rows,
and pseudo-random expense and resource lines. The same seed gives the same files.

  --scale N        N times the sample drop's ${SAMPLE_EXPENSE_LINES} expense lines (resource lines in proportion)
  --lines L        exactly L expense lines instead
  --seed S         an integer (default 1)
  --stages         lines in three stages (initial, amendment, outturn), series in three stages
                   (initial, amended, outturn), five sources, and source_id and derived columns
  --created-at ISO drop.json's created_at (default: now)`,
    async run([outDir], values) {
      const expenseLines = lineCount(values);
      const seed = integerOption(values.seed as string, '--seed', 0);
      const started = performance.now();
      const manifest = await synthDrop(here(outDir!), {
        expenseLines,
        seed,
        stages: values.stages === true,
        createdAt: isoOption(values['created-at'], '--created-at'),
        onProgress: progressPrinter(),
      });
      process.stdout.write(`${writtenSummary('wrote', manifest, outDir!, (performance.now() - started) / 1000)}\n`);
      return 0;
    },
  },

  publish: {
    summary: 'validate a drop and upload it to S3, drop.json last',
    positionals: ['DIR', 'S3_URL'],
    options: {},
    help: `Usage: ${NAME} publish DIR s3://bucket/prefix/

Validates the drop in DIR with the server's own checks, then uploads every file drop.json lists
to the bucket under the prefix, and drop.json last, so that servers reading DATA_URL never see a
manifest before its files. Credentials, region and endpoint come from the standard AWS_*
variables (AWS_ENDPOINT_URL for S3-compatible stores). Exit code 1 when the drop is invalid (with
every problem, as validate reports them) or an upload fails.`,
    async run([dir, s3Url]) {
      if (!/^s3:\/\/[^/]+/.test(s3Url!)) throw new UsageError(`publish uploads to an s3://bucket/prefix/ URL, not "${s3Url}"`);
      const started = performance.now();
      try {
        const published = await publishDrop(here(dir!), s3Url!, (name, bytes) => process.stderr.write(`uploaded ${name} (${bytes} bytes)\n`));
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        process.stdout.write(
          `published "${published.version}" to ${s3Url}: ${published.files.length} files, ${published.bytes} bytes in ${seconds} s\n`,
        );
        return 0;
      } catch (error) {
        if (!(error instanceof DropError)) throw error;
        process.stdout.write(`${problemReport(dir!, error.problems)}\nnothing was uploaded\n`);
        return 1;
      }
    },
  },

  keys: {
    summary: 'add an API key (its hash) to the API keys file',
    positionals: ['add', 'NAME'],
    options: { limit: { type: 'string' }, file: { type: 'string' } },
    help: `Usage: ${NAME} keys add NAME --limit N [--file F]

Makes a new API key named NAME with a limit of N requests per minute, stores its SHA-256 hash
(never the key) in F, and prints the key on stdout: this is the only time it is shown. F is
created when missing; default: the API_KEYS_FILE variable. The server re-reads F on SIGHUP.`,
    async run([action, name], values) {
      if (action !== 'add') throw new UsageError(`keys takes the action "add", not "${action}"`);
      if (values.limit === undefined) throw new UsageError('keys add takes --limit N (requests per minute)');
      const limit = integerOption(values.limit as string, '--limit', 1);
      const given = (values.file as string | undefined) ?? process.env.API_KEYS_FILE;
      const file = given === undefined ? undefined : here(given);
      if (!file) throw new UsageError('keys add takes --file F, or the API_KEYS_FILE variable');
      const wrongName = keyNameProblem(name!);
      if (wrongName) throw new UsageError(wrongName);
      try {
        process.stdout.write(`${await addKey(file, name!, limit)}\n`);
      } catch (error) {
        // A name taken is the command line's to change; a keys file that cannot be read or is
        // malformed is a failure (exit 1), whatever the command line says.
        if (error instanceof KeyNameTaken) throw new UsageError(error.message);
        throw error;
      }
      process.stderr.write(`added the key "${name}" (${limit} per minute) to ${file}; send it as X-API-Key. It is not stored: keep it now.\n`);
      return 0;
    },
  },
  diff: {
    summary: 'say what changed between two drops (directories, or http(s) or s3 URLs)',
    positionals: ['OLD', 'NEW'],
    options: { json: { type: 'boolean' }, format: { type: 'string' } },
    help: `Usage: ${NAME} diff OLD NEW [--format text|markdown|json]

Compares two drops, each a directory (a drop.json and the Parquet files it lists) or the http(s)
or s3 URL of one (URL/drop.json and the files it lists are downloaded first, as DATA_URL reads them). Lists drop.json's changed
fields (units, source, license, stages, known gaps, definitions, control totals, description),
each table's rows before and after and how many were added, removed and changed, matched by key
(id for organizations, categories, expense and resource lines, debt origins and sources; year,
debt origin and stage for the series), every expense and resource line added, removed or changed
with its year, amount, category, organization, stage and source, a few keys of the other tables'
changes, the totals by year and stage (what totals/ answers: old, new, change) and the new drop's notes.

  --format text       for a terminal (the default)
  --format markdown   a release note, to paste into a changelog or an issue
  --format json       one JSON document, for a machine (--json says the same)

Exit codes: 0 the drops hold the same rows and drop.json differs at most in version and
created_at, 1 they differ, 2 an error (a drop that cannot be read, a bad command line).`,
    async run([oldDrop, newDrop], values) {
      const format = values.json ? 'json' : ((values.format as string | undefined) ?? 'text');
      if (!['text', 'markdown', 'json'].includes(format)) throw new UsageError(`--format takes text, markdown or json, not "${format}"`);
      const scratch = await mkdtemp(path.join(tmpdir(), 'budget-data-diff-'));
      try {
        const side = (where: string, name: string): Promise<DropSide> =>
          /^(https?|s3):\/\//i.test(where) ? downloadDrop(where, path.join(scratch, name)) : dropSideOf(here(where));
        const diff = await diffDrops(await side(oldDrop!, 'old'), await side(newDrop!, 'new'));
        process.stdout.write(`${format === 'json' ? jsonText(diff) : format === 'markdown' ? diffMarkdown(diff) : diffReport(diff)}\n`);
        return diff.equal ? 0 : 1;
      } catch (error) {
        process.stderr.write(`${NAME}: diff failed: ${error instanceof Error ? error.message : String(error)}\n`);
        return 2;
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
  },
};

const MAIN_HELP = `Usage: ${NAME} <command> [arguments]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}

Run ${NAME} <command> --help for a command's arguments.
Exit codes: 0 done, valid or equal; 1 failed, invalid or different; 2 bad command line
(diff: any error).`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? COMMANDS[rest[0] ?? ''] : undefined;
    process.stdout.write(`${topic?.help ?? MAIN_HELP}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  try {
    if (!command) throw new UsageError(`unknown command "${name}"; the commands are ${Object.keys(COMMANDS).join(', ')}`);
    const { values, positionals } = parseCommandLine(command, rest);
    if (values.help) {
      process.stdout.write(`${command.help}\n`);
      return 0;
    }
    if (positionals.length !== command.positionals.length) {
      throw new UsageError(`${name} takes ${command.positionals.join(' ')}, got ${positionals.length ? positionals.join(' ') : 'nothing'}`);
    }
    return await command.run(positionals, values);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${NAME}: ${error.message}\nRun ${NAME} ${command ? `${name} ` : ''}--help for usage.\n`);
      return 2;
    }
    process.stderr.write(`${NAME}: ${name} failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/** What validation warns of in drop.json that only the API's fields can tell: a definition of no field. */
function apiWarnings(manifest: Manifest): string[] {
  return unusedDefinitions(ENDPOINTS, manifest.definitions ?? {}).map(
    (key) =>
      `drop.json: definitions has "${key}", which names no field, so it defines nothing (keys are FIELD or ENDPOINT.FIELD, as /budget/api/fields/ lists them, such as totals.balance)`,
  );
}

function parseCommandLine(command: Command, args: string[]) {
  try {
    return parseArgs({
      args,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // parseArgs explains unknown options and missing values well; keep its message.
    throw new UsageError((error as Error).message);
  }
}

function lineCount(values: Values): number {
  if ((values.scale === undefined) === (values.lines === undefined)) throw new UsageError('synth takes one of --scale N or --lines L');
  if (values.lines !== undefined) return integerOption(values.lines as string, '--lines', 1);
  const scale = Number(values.scale);
  if (!/^\d+(\.\d+)?$/.test(String(values.scale)) || !(scale > 0)) throw new UsageError(`--scale must be a positive number, not "${values.scale}"`);
  return Math.max(1, Math.round(scale * SAMPLE_EXPENSE_LINES));
}

function integerOption(value: string, name: string, min: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min) throw new UsageError(`${name} must be an integer >= ${min}, not "${value}"`);
  return n;
}

function unitsOption(value: unknown): Units | undefined {
  if (value === undefined) return undefined;
  const [name, currency, scale, ...rest] = String(value).split(',');
  const units = UnitsSchema.safeParse({ name, currency, scale: Number(scale) });
  if (rest.length || !name || !currency || !/^\d+(\.\d+)?$/.test(scale ?? '') || !units.success) {
    throw new UsageError(`--units must be NAME,CURRENCY,SCALE with a positive SCALE (e.g. MDT,TND,1000000), not "${value}"`);
  }
  return units.data;
}

/**
 * A path as the analyst means it: from the directory the command was started in. Under
 * \`npm run data --\` npm runs the script from the checkout's root and says where it was started
 * in INIT_CWD.
 */
function here(where: string): string {
  const base = process.env.npm_lifecycle_event === 'data' && process.env.INIT_CWD ? process.env.INIT_CWD : process.cwd();
  return path.resolve(base, where);
}

function isoOption(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  // The rule drop.json's created_at is validated by, so that a build never writes a drop it refuses.
  if (typeof value !== 'string' || !isIsoDateTime(value))
    throw new UsageError(`${name} must be an ISO 8601 date or date-time that exists, such as 2026-12-01T09:00:00Z, not "${String(value)}"`);
  return value;
}

// A reader that has gone (`| head -1`, `| true`) must not stop a build halfway, leaving its new
// drop half-written: what it no longer reads is dropped, as command-line tools do, and the command
// finishes (or fails) as it would have, with its own exit code.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

process.exitCode = await main(process.argv.slice(2));
