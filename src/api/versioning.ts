/**
 * The API's promise to the people who build on it (docs/api.md#versioning-and-deprecation): a semantic version,
 * a changelog, and deprecation announced in the answers themselves. An endpoint, a parameter, a
 * field or a format is deprecated by one mark in the endpoint's description (endpoints/); from
 * that mark come `deprecated: true` in the OpenAPI document, the `Deprecation`, `Sunset` and
 * `Link` headers on every answer that used it, a count in the request log, and `410 sunset`
 * once the sunset has passed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../data/sql.js';
import { problem, type HttpError } from '../domain/errors.js';
import type { FormatName } from '../formats/registry.js';
import { API_PREFIX } from './routes.js';

/**
 * The API's semantic version (OpenAPI `info.version`, `/meta/` `api_version`, CHANGELOG.md). It
 * is not the package's version: the package changes with every release of the software, the API
 * only when what a client sees changes. Minor: something added; major: something removed or
 * given another meaning, served under its own prefix beside the old one.
 */
export const API_VERSION = '1.3.2';

/** Where the changelog is served; deprecation links point into it. */
export const CHANGELOG_PATH = `${API_PREFIX}/changelog`;

/** CHANGELOG.md, read once: it ships with the service (the image copies it). */
export function changelogText(): string {
  return readFileSync(path.join(projectRoot(), 'CHANGELOG.md'), 'utf8');
}

/** The shortest notice the API gives between announcing a deprecation and its sunset. */
export const MINIMUM_NOTICE_MONTHS = 6;

/** One deprecation: when it was announced, when it stops being served, and what replaces it. */
export interface Deprecation {
  /** When the deprecation was published (ISO 8601 date). */
  since: string;
  /** When it stops being served (ISO 8601 date): from then on, using it answers 410. */
  sunset: string;
  /** What to use instead, in words a client's developer can act on. */
  replacement: string;
  /** The changelog entry that announced it; the changelog by default. */
  link?: string;
}

/** The deprecated parts of one endpoint. */
export interface Deprecations {
  endpoint?: Deprecation;
  parameters?: Readonly<Record<string, Deprecation>>;
  /** Fields of the endpoint's rows. */
  fields?: Readonly<Record<string, Deprecation>>;
  formats?: Readonly<Partial<Record<FormatName, Deprecation>>>;
}

/** A deprecated thing a request used, as the log, the headers and the 410 name it. */
export interface Used {
  /** `endpoint`, `parameter:NAME`, `field:NAME` or `format:NAME`. */
  what: string;
  mark: Deprecation;
}

/**
 * Checks a table of marks once, when the endpoint is described: dates that parse, and at least
 * the promised notice between announcement and sunset.
 */
export function checkDeprecations(path: string, marks: Deprecations): Deprecations {
  for (const { what, mark } of allMarks(marks)) {
    const since = Date.parse(mark.since);
    const sunset = Date.parse(mark.sunset);
    if (Number.isNaN(since) || Number.isNaN(sunset)) throw new Error(`${path} ${what}: since and sunset must be ISO 8601 dates`);
    const earliest = new Date(since);
    earliest.setUTCMonth(earliest.getUTCMonth() + MINIMUM_NOTICE_MONTHS);
    if (sunset < earliest.getTime()) throw new Error(`${path} ${what}: a sunset needs at least ${MINIMUM_NOTICE_MONTHS} months of notice`);
  }
  return marks;
}

function allMarks(marks: Deprecations): Used[] {
  return [
    ...(marks.endpoint ? [{ what: 'endpoint', mark: marks.endpoint }] : []),
    ...Object.entries(marks.parameters ?? {}).map(([name, mark]) => ({ what: `parameter:${name}`, mark })),
    ...Object.entries(marks.fields ?? {}).map(([name, mark]) => ({ what: `field:${name}`, mark })),
    ...Object.entries(marks.formats ?? {}).map(([name, mark]) => ({ what: `format:${name}`, mark: mark! })),
  ];
}

/**
 * What a request used of the deprecated: the endpoint; each parameter it gives; the format it is
 * answered in; each field its rows carry (all of them unless `fields` leaves some out).
 */
export function usedBy(marks: Deprecations | undefined, request: { given: Iterable<string>; format: string; fields?: readonly string[] }): Used[] {
  if (!marks) return [];
  const given = new Set(request.given);
  const fields = request.fields && new Set(request.fields);
  return allMarks(marks).filter(({ what }) => {
    const [kind, name = ''] = what.split(':');
    if (kind === 'parameter') return given.has(name);
    if (kind === 'format') return request.format === name;
    if (kind === 'field') return !fields || fields.has(name);
    return true;
  });
}

/** The headers an answer that used deprecated things carries: the earliest announcement and sunset. */
export function deprecationHeaders(used: readonly Used[]): Record<string, string> {
  if (used.length === 0) return {};
  const since = Math.min(...used.map((u) => Date.parse(u.mark.since)));
  const sunset = Math.min(...used.map((u) => Date.parse(u.mark.sunset)));
  const links = [...new Set(used.map((u) => u.mark.link ?? CHANGELOG_PATH))];
  return {
    // RFC 9745: a Structured Field date, seconds since the epoch.
    Deprecation: `@${Math.floor(since / 1000)}`,
    // RFC 8594: an HTTP-date.
    Sunset: new Date(sunset).toUTCString(),
    Link: links.map((link) => `<${link}>; rel="deprecation"`).join(', '),
  };
}

/** A 410 for the first thing used past its sunset, naming its replacement; undefined while all are served. */
export function pastSunset(used: readonly Used[], now: Date): HttpError | undefined {
  const gone = used.find((u) => Date.parse(u.mark.sunset) <= now.getTime());
  if (!gone) return undefined;
  const [kind, name] = gone.what.split(':');
  const thing = name ? `the ${kind} ${name}` : 'this endpoint';
  return problem.sunset(`${thing} was withdrawn on ${gone.mark.sunset} (see ${gone.mark.link ?? CHANGELOG_PATH}); ${gone.mark.replacement}`);
}
