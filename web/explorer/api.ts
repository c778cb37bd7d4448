/**
 * Talks to the public API of the server that served the page: the drop's meta, the OpenAPI
 * document (to learn which parameters each endpoint takes, so switches appear only where the
 * API supports them), and the data. Answers are kept by URL for the life of the page.
 */
import type { Stage } from '../../src/domain/stages.js';

export const API = '/budget/api/';

export type Params = Record<string, string | number | boolean | null | undefined>;

export interface Answer<T> {
  /** The exact API URL asked, as a reader can open it. */
  url: string;
  /** The same data as CSV. */
  csvUrl: string;
  data: T;
  /** Its permanent address under the release that answered it (`Content-Location`), to cite. */
  permalink?: string;
  /** How the API says the amounts are measured (`Budget-Measure: real; base_year=2025; unit="…"`), if it says. */
  measure?: string;
}

export class ApiError extends Error {}

/** `path` relative to the API root, e.g. `totals/`; parameters in the order given, empty ones left out. */
export function apiUrl(path: string, params: Params = {}): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value));
  const search = query.toString();
  return `${API}${path}${search ? `?${search}` : ''}`;
}

const answers = new Map<string, Promise<Answer<unknown>>>();

export function get<T>(path: string, params: Params = {}): Promise<Answer<T>> {
  const url = apiUrl(path, params);
  let answer = answers.get(url);
  if (!answer) {
    answer = load(url, apiUrl(path, { ...params, format: 'csv' }));
    // A failure is not kept: the next render asks again.
    answer.catch(() => answers.delete(url));
    answers.set(url, answer);
  }
  return answer as Promise<Answer<T>>;
}

async function load(url: string, csvUrl: string): Promise<Answer<unknown>> {
  const response = await fetch(url, { headers: { Accept: 'application/json' } });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const detail = (body as { detail?: string } | null)?.detail ?? `${response.status} ${response.statusText}`;
    throw new ApiError(detail);
  }
  return {
    url,
    csvUrl,
    data: body,
    permalink: response.headers.get('Content-Location') ?? undefined,
    measure: response.headers.get('Budget-Measure') ?? undefined,
  };
}

/** Every row of a paged endpoint, following `next`. */
export async function getAll<T>(path: string, params: Params = {}): Promise<Answer<T[]>> {
  const first = await get<Page<T>>(path, { ...params, limit: 1000 });
  const rows = [...first.data.results];
  let next = first.data.next;
  while (next) {
    const page = (await (answers.get(next) ?? load(next, next))) as Answer<Page<T>>;
    rows.push(...page.data.results);
    next = page.data.next;
  }
  return { ...first, data: rows };
}

interface Page<T> {
  count: number;
  next: string | null;
  results: T[];
}

export interface Meta {
  version: string;
  description: string;
  source: string | null;
  license: string | null;
  years: number[];
  /** The drop's files: optional series (cpi, population) are only there when the drop has them. */
  files: Record<string, { rows: number }>;
  units?: { name?: string; currency?: string; scale?: number } | null;
  /** The years each table has: per stage for the staged ones, a list for the others. */
  coverage?: Record<string, number[] | Record<string, number[]>>;
  /** What each stage covers (drop.json `stages`), when the drop says. */
  stages?: Partial<Record<Stage, StageInfo>> | null;
  /** Gaps the drop declares (drop.json `known_gaps`), when it does. */
  known_gaps?: KnownGap[] | null;
}

/** A document the drop's figures come from (`sources/`). */
export interface Source {
  id: number;
  title: string;
  url?: string | null;
  publisher?: string | null;
}

export interface Bilingual {
  en: string;
  fr: string;
}

export interface StageInfo {
  label?: Bilingual;
  basis?: Bilingual;
  comparable_with?: string[];
}

export interface KnownGap {
  table: string;
  stage: string | null;
  years: number[];
  reason: Bilingual;
}

/**
 * What the served API accepts, read from its OpenAPI document: for an endpoint and a parameter,
 * whether a value is accepted (by the parameter's enum or pattern when it has one).
 */
export class Capabilities {
  constructor(private readonly parameters: Map<string, Map<string, Schema>>) {}

  /** Before the document is read: no endpoint is known to take anything. */
  static readonly NONE = new Capabilities(new Map());

  static async load(): Promise<Capabilities> {
    const document = (await get<OpenApi>('openapi.json')).data;
    const resolve = <X>(item: X | { $ref: string }): X => {
      if (item && typeof item === 'object' && '$ref' in item) {
        return item.$ref
          .replace(/^#\//, '')
          .split('/')
          .reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], document) as X;
      }
      return item as X;
    };
    const parameters = new Map<string, Map<string, Schema>>();
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      const byName = new Map<string, Schema>();
      for (const parameter of item.get?.parameters ?? []) {
        const p = resolve(parameter);
        if (p?.in === 'query' && p.name) byName.set(p.name, resolve(p.schema ?? {}) ?? {});
      }
      parameters.set(path.startsWith(API) ? path.slice(API.length) : path, byName);
    }
    return new Capabilities(parameters);
  }

  /** Whether `path` (relative to the API root) takes `parameter`, with `value` if given. */
  accepts(path: string, parameter: string, value?: string): boolean {
    const schema = this.parameters.get(path)?.get(parameter);
    if (!schema) return false;
    if (value === undefined) return true;
    const allowed = schema.enum ?? schema.items?.enum ?? schema.anyOf?.flatMap((s) => s.enum ?? []) ?? schema.oneOf?.flatMap((s) => s.enum ?? []);
    if (allowed && allowed.length > 0) return allowed.map(String).includes(value);
    if (schema.pattern) return new RegExp(schema.pattern).test(value);
    return true;
  }

  has(path: string): boolean {
    return this.parameters.has(path);
  }
}

interface Schema {
  enum?: unknown[];
  pattern?: string;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
}

interface OpenApi {
  paths?: Record<string, { get?: { parameters?: (Parameter | { $ref: string })[] } }>;
}

interface Parameter {
  name?: string;
  in?: string;
  schema?: Schema | { $ref: string };
}
