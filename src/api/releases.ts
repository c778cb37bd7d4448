/**
 * Releases over HTTP (docs/api.md#releases): the list, its Atom feed, the permalinks
 * `/budget/api/releases/{version}/ENDPOINT` and what a Memento client (RFC 7089) is told.
 */
import { createHash } from 'node:crypto';
import type { CanonicalQuery } from '../http/canonical-query.js';
import { problem, type HttpError } from '../http/errors.js';
import { firstServed, lastServed, type Release, type Releases } from '../data/releases.js';
import type { ChangeSummary } from '../data/diff.js';
import { API_PREFIX } from './routes.js';

export const RELEASES_PATH = `${API_PREFIX}/releases/`;
export const FEED_PATH = `${RELEASES_PATH}feed.atom`;
/** A release never changes: its answers may be kept for a year, without revalidation. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Where a data endpoint is answered from one release: `/budget/api/releases/{version}/totals/`. */
export function releasePath(version: string, endpointPath: string): string {
  return `${RELEASES_PATH}${encodeURIComponent(version)}/${endpointPath.slice(API_PREFIX.length + 1)}`;
}

/** The Express route of an endpoint's permalinks. */
export const releaseRoute = (endpointPath: string): string => `${RELEASES_PATH}:version/${endpointPath.slice(API_PREFIX.length + 1)}`;

/**
 * The permalink of an answer: its release's path with the canonical query, and `format` when the
 * answer is not JSON, or when a paged answer's links keep it (`named`), so that the link names the
 * very representation.
 */
export function permalink(version: string, endpointPath: string, query: CanonicalQuery, formatName: string, named = false): string {
  const keepFormat = formatName !== 'json' || named;
  return withQuery(releasePath(version, endpointPath), keepFormat ? [...query.pairs, ['format', formatName]] : query.pairs);
}

/** The resource a Memento request names (RFC 7089's original): the endpoint with the canonical query, and `format` when named. */
export function originalOf(endpointPath: string, query: CanonicalQuery): string {
  return withQuery(endpointPath, query.format === undefined ? query.pairs : [...query.pairs, ['format', query.format]]);
}

function withQuery(path: string, pairs: readonly (readonly [string, string])[]): string {
  const text = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return `${path}${text ? `?${text}` : ''}`;
}

export function unknownRelease(what: string): HttpError {
  return problem.unknownRelease(`${what}; the releases kept are listed at ${RELEASES_PATH} (and ${FEED_PATH})`, RELEASES_PATH);
}

/**
 * Accept-Datetime is an HTTP-date (RFC 7089 section 2.1.1), in any of the three forms RFC 9110
 * (section 5.6.7) has recipients read: IMF-fixdate, and the obsolete RFC 850 and asctime forms.
 * A header that is none of them, or names no real day (31 February, a weekday that is not that
 * date's), is a 400: Date.parse would take "0" for the year 2000 and roll 31 Feb over to 3 March.
 */
export function acceptDatetime(header: string): Date {
  const date = httpDate(header.trim());
  if (!date) throw problem.invalidRequest('Accept-Datetime must be an HTTP date, such as "Tue, 02 Jan 2024 10:00:00 GMT"');
  return date;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const TIME = String.raw`(\d{2}):(\d{2}):(\d{2})`;
/** `Sun, 06 Nov 1994 08:49:37 GMT`: weekday, day, month, year, time. */
const IMF_FIXDATE = new RegExp(String.raw`^(${WEEKDAYS.join('|')}), (\d{2}) (${MONTHS.join('|')}) (\d{4}) ${TIME} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC_850 = new RegExp(String.raw`^(${LONG_WEEKDAYS.join('|')}), (\d{2})-(${MONTHS.join('|')})-(\d{2}) ${TIME} GMT$`);
/** `Sun Nov  6 08:49:37 1994`: weekday, month, day (space-padded), time, year. */
const ASCTIME = new RegExp(String.raw`^(${WEEKDAYS.join('|')}) (${MONTHS.join('|')}) ([ \d]\d) ${TIME} (\d{4})$`);

function httpDate(text: string): Date | undefined {
  let m: RegExpExecArray | null;
  let weekday: number, day: string, month: string, year: string, time: string[];
  if ((m = IMF_FIXDATE.exec(text))) [weekday, day, month, year, time] = [WEEKDAYS.indexOf(m[1]!), m[2]!, m[3]!, m[4]!, m.slice(5, 8)];
  else if ((m = RFC_850.exec(text))) [weekday, day, month, year, time] = [LONG_WEEKDAYS.indexOf(m[1]!), m[2]!, m[3]!, m[4]!, m.slice(5, 8)];
  else if ((m = ASCTIME.exec(text))) [weekday, month, day, time, year] = [WEEKDAYS.indexOf(m[1]!), m[2]!, m[3]!.trim(), m.slice(4, 7), m[7]!];
  else return undefined;
  const [hours, minutes, seconds] = time.map(Number) as [number, number, number];
  const at = (y: number) => new Date(Date.UTC(y, MONTHS.indexOf(month), Number(day), hours, minutes, seconds));
  let full = Number(year);
  if (year.length === 2) {
    // RFC 850's two digits: this century's year, unless that date is more than 50 years ahead,
    // then the century before (RFC 9110 section 5.6.7); by date, not by year.
    const now = new Date();
    full += Math.floor(now.getUTCFullYear() / 100) * 100;
    const limit = new Date(now);
    limit.setUTCFullYear(now.getUTCFullYear() + 50);
    if (at(full) > limit) full -= 100;
  }
  const date = at(full);
  // Date.UTC rolls an impossible day or time over into the next; a date read back differently named none.
  const real =
    date.getUTCFullYear() === full &&
    date.getUTCMonth() === MONTHS.indexOf(month) &&
    date.getUTCDate() === Number(day) &&
    date.getUTCHours() === hours &&
    date.getUTCMinutes() === minutes &&
    date.getUTCSeconds() === seconds &&
    date.getUTCDay() === weekday;
  return real ? date : undefined;
}

/** When a release began being served, as Memento-Datetime gives it (an HTTP-date). */
export const mementoDatetime = (release: Release): string => new Date(firstServed(release)).toUTCString();

/** GET /budget/api/releases/: newest first. */
export function releaseList(releases: Releases | null, currentVersion: string | undefined) {
  return (releases?.list() ?? []).map((release) => ({
    version: release.version,
    created_at: release.created_at,
    first_served_at: firstServed(release),
    last_served_at: release.version === currentVersion ? null : (lastServed(release) ?? firstServed(release)),
    fingerprint: release.fingerprint,
    current: release.version === currentVersion,
    changes: release.changes,
    links: { totals: releasePath(release.version, `${API_PREFIX}/totals/`) },
  }));
}

/** GET /budget/api/releases/feed.atom: one entry per release, newest first (RFC 4287). */
export function atomFeed(releases: Releases | null, currentVersion: string | undefined): string {
  const list = releases?.list() ?? [];
  // A release served again (a rollback) is news: its entry, and so the feed, are updated then.
  const updated = list.map(lastBecameCurrent).sort().at(-1) ?? new Date(0).toISOString();
  const entries = list.map((release) => {
    const link = releasePath(release.version, `${API_PREFIX}/totals/`);
    const current = release.version === currentVersion ? ' (current)' : '';
    return [
      '  <entry>',
      `    <title>Release ${xml(release.version)}${current}</title>`,
      `    <id>${idOf(release)}</id>`,
      `    <updated>${lastBecameCurrent(release)}</updated>`,
      `    <published>${firstServed(release)}</published>`,
      `    <link rel="alternate" href="${xml(link)}"/>`,
      `    <summary>${xml(changeText(release.changes))}</summary>`,
      `    <content type="text">${xml(`Drop created ${release.created_at}, served from ${firstServed(release)}. Fingerprint ${release.fingerprint}. ${changeText(release.changes)} Permalinks: ${releasePath(release.version, `${API_PREFIX}/`)}ENDPOINT.`)}</content>`,
      '  </entry>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    '  <title>Public Budget Data Service: releases</title>',
    '  <subtitle>Every data drop served, with what changed against the one before</subtitle>',
    '  <id>urn:uuid:4b1f3c2e-6a55-4f0e-9d0b-2f9c7a1e5d10</id>',
    `  <updated>${updated}</updated>`,
    `  <link rel="self" href="${FEED_PATH}"/>`,
    `  <link rel="alternate" type="application/json" href="${RELEASES_PATH}"/>`,
    '  <author><name>Public Budget Data Service</name></author>',
    ...entries,
    '</feed>',
    '',
  ].join('\n');
}

/** When a release last began being served. */
const lastBecameCurrent = (release: Release): string => release.served.at(-1)!.from;

/** The change summary in a few sentences, for feed readers: the lines, the totals, drop.json and the notes, as /releases/ gives them. */
function changeText(changes: ChangeSummary | null): string {
  if (!changes) return 'No earlier release to compare with (or the comparison is not worked out yet).';
  const tables = Object.entries(changes.tables)
    .filter(([, t]) => t.added + t.removed + t.changed > 0)
    .map(([name, t]) => `${name}: ${t.added} added, ${t.removed} removed, ${t.changed} changed`);
  const years = changes.years_with_moved_totals.length ? ` Totals moved for ${changes.years_with_moved_totals.join(', ')}.` : '';
  const fields = changes.drop_json.length ? ` drop.json changed: ${changes.drop_json.map((c) => c.field).join(', ')}.` : '';
  const notes = changes.notes.map((n) => ` Note on ${n.table} ${n.id}: ${n.text.replace(/[.\s]+$/, '')}.`).join('');
  return `Against ${changes.previous_version}: ${tables.length ? tables.join('; ') : 'no line changed'}.${years}${fields}${notes}`;
}

/** A stable entry id from the version (urn:uuid form of its hash: no host name needed). */
function idOf(release: Release): string {
  const h = createHash('sha256').update(release.version).digest('hex');
  return `urn:uuid:${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Text as XML 1.0 character data: markup characters escaped, and characters XML has no place
 * for (controls but tab and line ends, lone surrogates, U+FFFE/U+FFFF) replaced by U+FFFD, since
 * a drop's texts (its notes) may hold them and a feed reader refuses the whole feed for one.
 */
const xml = (text: string) =>
  text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
