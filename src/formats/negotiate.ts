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
  const chosen = new Negotiator({ headers: { accept } }).mediaType(MEDIA_TYPES);
  return (chosen && BY_MEDIA_TYPE.get(chosen)) || 'json';
}

const MEDIA_TYPES = FORMAT_NAMES.map((name) => FORMATS[name].mediaType);
const BY_MEDIA_TYPE = new Map<string, FormatName>(FORMAT_NAMES.map((name) => [FORMATS[name].mediaType, name]));
