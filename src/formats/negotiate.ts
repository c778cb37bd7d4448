/**
 * Which representation a data request gets (contract section 5): `format=` when given, otherwise
 * the client's Accept header; `format` wins because a download link must not depend on what the
 * browser happens to send.
 */
import type { Request } from 'express';

export const FORMATS = {
  json: { mediaType: 'application/json', contentType: 'application/json; charset=utf-8', extension: 'json' },
  csv: { mediaType: 'text/csv', contentType: 'text/csv; charset=utf-8', extension: 'csv' },
  arrow: {
    mediaType: 'application/vnd.apache.arrow.stream',
    contentType: 'application/vnd.apache.arrow.stream',
    extension: 'arrow',
  },
} as const;

export type Format = keyof typeof FORMATS;
export const FORMAT_NAMES = Object.keys(FORMATS) as [Format, ...Format[]];

/**
 * JSON is listed first, so no Accept, `*\/*` and browsers' `text/html,...,*\/*;q=0.8` all get JSON.
 * An Accept naming none of our types also gets JSON rather than 406: a public API should answer
 * clients that send odd lists, and the Content-Type says what they got.
 */
export function negotiate(req: Request, requested: Format | undefined): Format {
  if (requested) return requested;
  const accept = req.headers.accept;
  if (accept === undefined || accept === '*/*' || accept === 'application/json') return 'json';
  const chosen = req.accepts(MEDIA_TYPES);
  return (chosen && BY_MEDIA_TYPE.get(chosen)) || 'json';
}

const MEDIA_TYPES = FORMAT_NAMES.map((name) => FORMATS[name].mediaType);
const BY_MEDIA_TYPE = new Map<string, Format>(FORMAT_NAMES.map((name) => [FORMATS[name].mediaType, name]));
