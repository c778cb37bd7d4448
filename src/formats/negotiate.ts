/**
 * Which representation a data request gets (docs/api.md#formats): `format=` when given,
 * otherwise the client's Accept header; `format` wins because a download link must not depend on
 * what the browser happens to send.
 */
import Negotiator from 'negotiator';
import { FORMATS, FORMAT_NAMES, type FormatName } from './registry.js';

/**
 * JSON is listed first, so no Accept, `*\/*` and browsers' `text/html,...,*\/*;q=0.8` all get JSON.
 * An Accept naming none of our types also gets JSON rather than 406: a public API should answer
 * clients that send odd lists, and the Content-Type says what they got.
 */
export function negotiate(accept: string | undefined, requested: FormatName | undefined): FormatName {
  if (requested) return requested;
  if (accept === undefined || accept === '*/*' || accept === 'application/json') return 'json';
  const chosen = new Negotiator({ headers: { accept: withoutParameters(accept) } }).mediaType(MEDIA_TYPES);
  return (chosen && BY_MEDIA_TYPE.get(chosen)) || 'json';
}

const MEDIA_TYPES = FORMAT_NAMES.map((name) => FORMATS[name].mediaType);
const BY_MEDIA_TYPE = new Map<string, FormatName>(FORMAT_NAMES.map((name) => [FORMATS[name].mediaType, name]));

/** A media range's parameters but its weight (`;charset=utf-8`, `;header=present`, quoted or not). */
const PARAMETER = /;\s*(?!q\s*=)[^;,=\s]+\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^;,]*)/gi;

/**
 * The Accept header without its media types' parameters. Negotiator matches a type only when the
 * server offers it with the same parameters, so `text/csv; charset=utf-8` or RFC 4180's
 * `header=present` would get JSON; the service has one representation of each type, which such a
 * client accepts.
 */
function withoutParameters(accept: string): string {
  return accept.includes(';') ? accept.replace(PARAMETER, '') : accept;
}
