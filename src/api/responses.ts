/**
 * The shapes of the JSON answers, as zod schemas: the OpenAPI document is generated from them
 * (src/api/openapi.ts), the tests validate real answers against that document, and src/api/endpoints/ types
 * its CSV/Arrow flatteners with them, so code, document and downloads cannot drift apart unseen.
 *
 * Each schema that becomes a named OpenAPI component carries a `title`, used as its name.
 */
import { inWords, LINE_STAGE_MEANINGS, LINE_STAGES, SERIES_STAGES, STAGES } from '../domain/stages.js';
import { z } from 'zod';
import { PROBLEM_CODES } from '../domain/errors.js';

// Examples are real answers from the sample drop in data/ (Tunisia, amounts in MDT).
const UNIT = "in the drop's unit (the sample data: MDT, millions of Tunisian dinars), rounded to 3 decimals";
/**
 * An id as the drop gives it: a 64-bit integer (BIGINT), written with every digit past 2^53, where
 * a JavaScript number would round it. `format: int64` tells generated clients so, and the document
 * drops the safe-integer bounds z.int() has (see INT64 in openapi.ts).
 */
export const INT64 = 'int64';
const int64 = () => z.int().meta({ format: INT64 });
const id = (description: string) => int64().meta({ description });
const name = (description: string) => z.string().meta({ description });
const year = z.int32().meta({ description: 'Budget year' });
const money = (description: string) => z.number().meta({ description: `${description}, ${UNIT}` });
const percent = (description: string) => z.number().meta({ description: `${description}, in percent, rounded to 2 decimals` });
/**
 * A figure that `measure` applies to (docs/api.md, "Measures and changes"): money by default, or
 * the measured figure, null for a year that lacks the value the measure divides by.
 */
const measured = (description: string) =>
  z
    .number()
    .nullable()
    .meta({
      description:
        `${description}, ${UNIT}; with measure: % of GDP, currency units per inhabitant or % of the total (2 decimals), ` +
        'or amount at base_year prices (3 decimals), null for a year without GDP, population or CPI',
    });
const changeNumber = z.number().nullable();
/** change=previous_year: the change of the one figure of a row, and in percent. */
const change = {
  change: changeNumber.optional().meta({
    description: 'With change=previous_year: this figure minus the same figure of the calendar year before; null when that year has none or 0',
  }),
  change_pct: changeNumber.optional().meta({ description: 'With change=previous_year: change in percent of the year before, 2 decimals' }),
};
/** change=previous_year on rows of several figures: objects keyed by figure. */
const changes = (figures: readonly string[]) => {
  const keyed = z.object(Object.fromEntries(figures.map((f) => [f, changeNumber])));
  return {
    change: keyed.optional().meta({
      description: 'With change=previous_year: each figure minus the same figure of the calendar year before; null when that year has none or 0',
    }),
    change_pct: keyed.optional().meta({ description: 'With change=previous_year: each change in percent of the year before, 2 decimals' }),
  };
};

const sourceId = int64().nullable().meta({ description: 'The id of the source this figure comes from (see /budget/api/sources/), or null' });
const derived = z.boolean().meta({ description: 'True when the figure was computed from published figures rather than published itself' });

/** What every line carries: its stage and its provenance (docs/api.md, "Stages"). */
const lineProvenance = {
  stage: z.enum(LINE_STAGES).meta({
    description: `The line's stage: ${inWords(LINE_STAGES.map((s) => `${s} (${LINE_STAGE_MEANINGS[s]})`))}`,
  }),
  source_id: sourceId,
  derived,
};

/** What every series row carries: its stage (null when the drop gives none) and its provenance. */
const seriesProvenance = {
  stage: z
    .enum(SERIES_STAGES)
    .nullable()
    .meta({ description: `The row's stage: ${inWords(SERIES_STAGES)}; null when the drop gives the series no stages` }),
  source_id: sourceId,
  derived,
};

/** What a roll-up row says it sums (docs/api.md#what-every-figure-means): the stage asked, the lines' sources. */
const rollupProvenance = {
  stage: z.enum(['initial', 'amended', 'outturn']).meta({
    description: 'The stage the row sums: initial (the finance law as adopted), amended (with the complementary laws) or outturn',
  }),
  source_ids: z
    .array(int64())
    .meta({ description: 'The distinct source_id of the lines summed, ascending (see /budget/api/sources/); [] when none has one' }),
  derived: z.boolean().meta({ description: 'True when any line summed was computed from published figures rather than published itself' }),
};

/**
 * An item's download row: its fields without the change objects, which downloads write as
 * columns only when change is asked for (api/download-table.ts).
 */
export function rowOf<Shape extends z.core.$ZodLooseShape>(item: z.ZodObject<Shape>) {
  return item.omit({ change: true, change_pct: true } as never);
}

export const Total = z
  .object({
    year,
    total_expenses: measured('Sum of the expense lines of the year'),
    total_resources: measured('Sum of the resource lines of the year'),
    balance: measured('total_resources - total_expenses'),
    ...rollupProvenance,
    ...changes(['total_expenses', 'total_resources', 'balance']),
  })
  .meta({
    title: 'Total',
    description: 'Expenses, resources and balance of one year',
    example: { year: 2023, total_expenses: 69914, total_resources: 69912, balance: -2, stage: 'amended', source_ids: [17, 18, 19], derived: true },
  });

export const BudgetCategory = z
  .object({
    id: id('Category id'),
    category: name('Category name'),
    type: z.enum(['expense', 'resource']).meta({ description: 'Whether the category holds expenses or resources' }),
    parent_id: id('Parent category id').nullable(),
    expenses: measured('Expenses rolled up over the category and its descendants (0 for a resource category)'),
    resources: measured('Resources rolled up over the category and its descendants (0 for an expense category)'),
    ...rollupProvenance,
    ...changes(['expenses', 'resources']),
  })
  .meta({
    title: 'BudgetCategory',
    description: 'A budget category with the lines under it summed',
    example: {
      id: 1,
      category: 'Dépenses de gestion',
      type: 'expense',
      parent_id: null,
      expenses: 42272,
      resources: 0,
      stage: 'amended',
      source_ids: [17, 18],
      derived: false,
    },
  });

const OrganizationRef = z
  .object({ id: id('Organization id'), name: name('Organization name'), code: name('Organization code') })
  .meta({ description: 'The organization the line is charged to' });

export const Expense = z
  .object({
    id: id('Expense line id'),
    year,
    amount: money('Amount of the line'),
    category: name('Name of the expense category of the line'),
    organization: OrganizationRef,
    ...lineProvenance,
  })
  .meta({
    title: 'Expense',
    description: 'One expense line',
    example: {
      id: 39,
      year: 2023,
      amount: 22772,
      category: 'Dépenses de rémunération',
      organization: { id: 1, name: 'État — budget général (toutes missions)', code: 'ETAT' },
      stage: 'initial',
      source_id: null,
      derived: false,
    },
  });

export const Resource = z
  .object({
    id: id('Resource line id'),
    year,
    amount: money('Amount of the line'),
    source: name('Name of the resource category of the line'),
    ...lineProvenance,
  })
  .meta({
    title: 'Resource',
    description: 'One resource line',
    example: { id: 51, year: 2023, amount: 40536, source: 'Recettes fiscales', stage: 'initial', source_id: null, derived: false },
  });

export interface CategoryNode {
  id: number;
  name: string;
  year: number;
  amount: number | null;
  children: CategoryNode[];
}

export const CategoryNode: z.ZodType<CategoryNode> = z
  .object({
    id: id('Category id'),
    name: name('Category name'),
    year,
    amount: measured('Sum of the lines under this category (itself and its descendants) that year'),
    get children() {
      return z.array(CategoryNode).meta({ description: 'Sub-categories with lines under them, ordered by id' });
    },
  })
  .meta({
    title: 'CategoryNode',
    description: 'A node of a category tree (hierarchy=true); roots are ordered by year then id',
    example: {
      id: 1,
      name: 'Dépenses de gestion',
      year: 2023,
      amount: 42272,
      children: [{ id: 2, name: 'Dépenses de rémunération', year: 2023, amount: 22772, children: [] }],
    },
  });

const BudgetYear = z
  .object({
    year,
    expenses: money('Expenses charged to the organization that year'),
    resources: money('Resources attributed to the organization that year'),
  })
  .meta({ description: "The organization's budget of one year" });

export const Organization = z
  .object({
    id: id('Organization id'),
    name: name('Organization name'),
    code: name('Organization code'),
    budget: z.array(BudgetYear).meta({ description: 'One entry per year with lines, ordered by year; may be empty' }),
  })
  .meta({
    title: 'Organization',
    description: 'An organization with its budget per year',
    example: { id: 9, name: "Ministère de l'Éducation", code: 'ME', budget: [{ year: 2016, expenses: 4525.231, resources: 0 }] },
  });

export const OrganizationStats = z
  .object({
    organization_id: id('Organization id'),
    total_expenses: measured('Expenses charged to the organization over the filter'),
    total_resources: measured('Resources attributed to the organization over the filter'),
    ...rollupProvenance,
    ...changes(['total_expenses', 'total_resources']),
  })
  .meta({
    title: 'OrganizationStats',
    description: "An organization's totals",
    example: { organization_id: 9, total_expenses: 4525.231, total_resources: 0, stage: 'amended', source_ids: [48], derived: false },
  });

export const Debt = z
  .object({
    year,
    debt_origin: z
      .object({ id: id('Debt origin id'), parent: id('Parent origin id').nullable(), name: name('Debt origin name') })
      .meta({ description: 'Where the debt comes from' }),
    value: measured('Debt of this origin and its descendants that year'),
    ...seriesProvenance,
    ...change,
  })
  .meta({
    title: 'Debt',
    description: 'The debt of one origin in one year',
    example: {
      year: 2023,
      debt_origin: { id: 1, parent: null, name: 'Dette intérieure' },
      value: 59755,
      stage: null,
      source_id: null,
      derived: false,
    },
  });

export const OutstandingDebt = z
  .object({
    year,
    outstanding_debt: money('Outstanding public debt at the end of the year'),
    gdp: money('Gross domestic product of the year'),
    value: percent('outstanding_debt / gdp * 100'),
    published_value: z.number().nullable().meta({
      description: "The debt's ratio to GDP as the row's source printed it (on the GDP the source used), in percent; null when the drop has none",
    }),
    ...seriesProvenance,
    ...change,
  })
  .meta({
    title: 'OutstandingDebt',
    description: 'Outstanding public debt of one year, and its share of GDP',
    example: {
      year: 2023,
      outstanding_debt: 126600,
      gdp: 149793.6,
      value: 84.52,
      published_value: 84.6,
      stage: 'outturn',
      source_id: 42,
      derived: false,
    },
  });

export const Deficit = z
  .object({
    year,
    value: measured('Budget deficit of the year'),
    percent: percent('value / gdp * 100'),
    published_percent: z.number().nullable().meta({
      description: "The deficit's ratio to GDP as the row's source printed it (on the GDP the source used), in percent; null when the drop has none",
    }),
    gdp: money('Gross domestic product of the year'),
    ...seriesProvenance,
    ...change,
  })
  .meta({
    title: 'Deficit',
    description: 'The budget deficit of one year, and its share of GDP',
    example: { year: 2024, value: 10000, percent: 6.26, published_percent: null, gdp: 159852.7, stage: 'outturn', source_id: 66, derived: false },
  });

export const Source = z
  .object({
    id: id("Source id, as the figures' source_id gives it"),
    title: name('Title of the document'),
    url: z.string().nullable().meta({ description: 'Where to read it, or null' }),
    publisher: z.string().nullable().meta({ description: 'Who published it, or null' }),
    published: z.string().nullable().meta({ description: 'When it was published (as the drop gives it, e.g. 2024-12-20), or null' }),
    quote: z.string().nullable().meta({ description: "The figure's wording in the document, or null" }),
  })
  .meta({
    title: 'Source',
    description: 'A document the figures come from',
    example: {
      id: 1,
      title: 'Loi de finances 2024',
      url: 'https://example.org/lf2024.pdf',
      publisher: 'Ministère des Finances',
      published: '2023-12-20',
      quote: null,
    },
  });

export const Problem = z
  .object({
    type: z.string().meta({ description: 'Always about:blank: `code` tells the kind of problem' }),
    title: z.string().meta({ description: 'The HTTP status text' }),
    status: z.int().meta({ description: 'The HTTP status code' }),
    detail: z.string().meta({ description: 'What went wrong, in words' }),
    code: z.enum(PROBLEM_CODES).meta({ description: 'A stable code for programs to act on' }),
    errors: z
      .array(z.object({ parameter: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'On 400 answers: one entry per faulty query parameter' }),
  })
  .meta({
    title: 'Problem',
    description: 'An RFC 9457 problem document; every 4xx and 5xx answer is one',
    example: {
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: 'year must be an integer between 1900 and 2100',
      code: 'invalid_parameter',
      errors: [{ parameter: 'year', message: 'must be an integer between 1900 and 2100' }],
    },
  });

// Service endpoints. Their answers are described loosely where other work may add fields
// (the reload outcome in /meta/), strictly where docs/api.md#service-endpoints fixes the shape.

export const ServiceIndex = z
  .object({
    name: z.string(),
    description: z.string(),
    api_version: z.string().meta({ description: "The API's semantic version (CHANGELOG.md)", example: '1.3.2' }),
    documentation: z
      .object({ openapi: z.string(), docs: z.string(), changelog: z.string() })
      .meta({ description: 'Where the API is described, and what changed in each version' }),
    endpoints: z.array(
      z.object({
        path: z.string(),
        summary: z.string(),
        parameters: z.array(z.string()).meta({ description: 'Accepted query parameters' }),
        paged: z.boolean(),
        formats: z.array(z.string()).meta({ description: 'Representations the endpoint answers in' }),
      }),
    ),
    health: z.object({ live: z.string(), ready: z.string() }),
  })
  .meta({ title: 'ServiceIndex', description: 'The endpoints of the API, with links' });

/** A text in English and French. */
const Text = z.object({ en: z.string(), fr: z.string() });

export const Meta = z
  .looseObject({
    api_version: z.string().meta({ description: "The API's semantic version (CHANGELOG.md), not the drop's", example: '1.3.2' }),
    version: z.string().meta({ description: "The drop's version label (free text)" }),
    description: z.string(),
    created_at: z.string().meta({ description: 'When the drop was made (ISO 8601)' }),
    source: z.string().nullable(),
    license: z.string().nullable().meta({ description: "The data's licence (not the software's), or null" }),
    loaded_at: z.string().meta({ description: 'When this service loaded the drop (ISO 8601)' }),
    fingerprint: z.string().meta({
      description: "Derived from the files' checksums and every drop.json field that can change an answer; changes with the data",
    }),
    files: z.record(z.string(), z.looseObject({ rows: z.int().min(0) })).meta({ description: 'Row count per file' }),
    years: z.array(z.int()).meta({ description: 'Years of expense or resource lines, debt, outstanding debt or deficit (coverage has the others)' }),
    coverage: z.record(z.string(), z.union([z.array(z.int()), z.record(z.string(), z.array(z.int()))])).meta({
      description:
        'For each table of figures, the years it has: a list, or per stage where the table has stages (expenses and ' +
        `resources always: ${LINE_STAGES.join(', ')}; debt, outstanding_debt and deficit when the drop gives ` +
        `them stages: ${SERIES_STAGES.join(', ')})`,
      example: { expenses: { initial: [2023, 2024], amendment: [2023], outturn: [2023] }, gdp: [2023, 2024] },
    }),
    gaps: z.array(z.int()).meta({
      description: 'Years between the first and last year with lines that lack expense lines or lack resource lines',
    }),
    units: z
      .object({
        name: z.string().meta({ description: 'What the amounts are in, e.g. MDT' }),
        currency: z.string().meta({ description: 'The currency, e.g. TND' }),
        scale: z.number().meta({ description: 'One unit of the amounts is this many units of the currency' }),
      })
      .nullable()
      .meta({ description: "The amounts' unit, or null when the drop does not say" }),
    stages: z
      .partialRecord(
        z.enum(STAGES),
        z.object({
          label: Text.meta({ description: "The stage's name for a reader" }),
          basis: Text.meta({ description: "What the stage's figures include and leave out" }),
          comparable_with: z
            .array(z.enum(STAGES))
            .meta({ description: 'The stages whose figures cover the same scope: only these may be set beside it as one series' }),
        }),
      )
      .nullable()
      .meta({
        description: 'What each stage covers, as the drop says; null when it does not',
        example: {
          initial: {
            label: { en: 'Finance law', fr: 'Loi de finances' },
            basis: { en: 'All expenses, debt principal included', fr: 'Toutes les dépenses, principal de la dette compris' },
            comparable_with: ['amended'],
          },
        },
      }),
    known_gaps: z
      .array(
        z.object({
          table: z.string().meta({ description: 'The table the gap is in (expenses, deficit, population...)' }),
          stage: z.string().nullable().meta({ description: "The stage missing, in the table's vocabulary; null: every stage" }),
          years: z.array(z.int()),
          reason: Text.meta({ description: 'What is missing and why' }),
        }),
      )
      .meta({ description: 'Omissions the drop states (beside the computed gaps); [] when it states none' }),
    last_reload: z
      .looseObject({
        status: z.enum(['ok', 'rejected']),
        reason: z.string().nullable(),
        code: z.enum(['invalid_drop', 'control_total_mismatch', 'download_failed', 'load_failed']).nullable(),
        file: z.string().nullable(),
        at: z.string(),
        rejected_version: z.string().nullable().optional().meta({ description: 'On a rejection: the version refused (not the one still served)' }),
        problems: z.array(z.string()).optional().meta({ description: 'On a rejection: every problem found, up to 20' }),
      })
      .nullable()
      .meta({ description: 'Outcome of the last reload, null if none happened' }),
    rate_limit: z
      .looseObject({
        limit: z.int().min(0).meta({ description: 'Requests per minute per client without an API key; 0: off' }),
        store: z.enum(['redis', 'memory']).meta({ description: 'Where the counts are kept right now' }),
        redis: z.enum(['connected', 'unavailable']).nullable().meta({ description: 'null when no Redis is configured' }),
      })
      .optional(),
    previous_version: z.string().nullable().meta({
      description:
        'The version served before the last swap; before the first swap, the release served before the current one; null when none is kept',
    }),
    changes: z
      .object({
        tables: z.record(z.string(), z.object({ added: z.int().min(0), removed: z.int().min(0), changed: z.int().min(0) })),
        years_with_moved_totals: z.array(z.int()),
        drop_json: z.array(z.object({ field: z.string(), before: z.unknown(), after: z.unknown() })).meta({
          description:
            "drop.json's fields that changed (units, source, license, stages, known gaps, definitions, control totals, description), before and after",
        }),
        notes: z
          .array(z.looseObject({ table: z.string(), id: int64(), text: z.string(), source_id: int64().nullable().optional() }))
          .meta({ description: "Why figures changed: the new drop's notes (the line id, or the year for a series)" }),
      })
      .nullable()
      .meta({
        description:
          'What the last swap changed: rows added, removed and changed per table (matched by id, or by year, origin and ' +
          'stage for series), and the years whose expense or resource total (law as amended) moved; before the first swap, ' +
          'what the current release changed against the release before it. Null when no release before it is kept, and ' +
          'for a moment after a swap or a start while it is worked out',
        example: { tables: { expenses: { added: 73, removed: 6, changed: 60 } }, years_with_moved_totals: [2016, 2019] },
      }),
  })
  .meta({ title: 'Meta', description: 'The data drop being served' });

export const Fields = z
  .array(
    z.object({
      endpoint: z.string().meta({ description: 'The endpoint: its path after /budget/api/ (organization/stats)' }),
      field: z.string().meta({ description: 'The field, nested fields joined with dots (organization.id)' }),
      type: z.string().meta({ description: 'The JSON type: integer, number, string, boolean, array or object' }),
      nullable: z.boolean().meta({ description: 'Whether the field may be null' }),
      unit: z.string().nullable().meta({ description: "The drop's amount unit (units.name, or unstated), % for a percentage, null where none" }),
      label: Text.meta({ description: 'A short name for a column heading' }),
      definition: Text.meta({ description: "What the field means; the drop's own definition where drop.json gives one" }),
    }),
  )
  .meta({
    title: 'Fields',
    description: 'Every field of every data endpoint, ordered as the endpoints and their rows',
    example: [
      {
        endpoint: 'totals',
        field: 'balance',
        type: 'number',
        nullable: true,
        unit: 'MDT',
        label: { en: 'Balance (resources − expenses)', fr: 'Solde (ressources − dépenses)' },
        definition: { en: 'total_resources − total_expenses. Resources include borrowing, so this is not the budget deficit ...', fr: '...' },
      },
    ],
  });

export const ReleaseList = z
  .array(
    z.looseObject({
      version: z.string().meta({ description: "The release's drop version: it names one content" }),
      created_at: z.string().meta({ description: 'When the drop was made (ISO 8601, from its drop.json)' }),
      first_served_at: z.string().meta({ description: 'When this service first served it (ISO 8601)' }),
      last_served_at: z.string().nullable().meta({ description: 'When it stopped being served; null for the current release' }),
      fingerprint: z.string().meta({ description: 'The drop fingerprint, as /meta/ gives it' }),
      current: z.boolean().meta({ description: 'The release being served now' }),
      changes: z
        .looseObject({
          previous_version: z.string(),
          tables: z.record(z.string(), z.object({ added: z.int().min(0), removed: z.int().min(0), changed: z.int().min(0) })),
          years_with_moved_totals: z.array(z.int()),
        })
        .nullable()
        .meta({ description: 'Against the release before (as /meta/ changes); null for the first, or while it is worked out' }),
      links: z.looseObject({ totals: z.string() }).meta({ description: 'A permalink into the release; any data endpoint works the same way' }),
    }),
  )
  .meta({
    title: 'ReleaseList',
    description: 'The releases kept, newest first. Each answers every data endpoint at /budget/api/releases/{version}/ENDPOINT, for ever.',
  });

export const Health = z
  .looseObject({ status: z.enum(['ok', 'ready']), version: z.string().optional() })
  .meta({ title: 'Health', description: 'Liveness or readiness' });
