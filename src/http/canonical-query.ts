/**
 * The query as the service keys an answer: the same parameters in another order, or with
 * `format=json` spelled out (but on a paged endpoint: see representation), or with values written another way (`year=2004,2003,2003` and
 * `year=2003,2004`, `stage=AMENDED` and `stage=amended`), are the same query, so they share one
 * ETag and one response-cache entry (docs/api.md#caching-and-etags); otherwise any client could
 * force misses at will (security review, finding 8). Parameters are put in the endpoint's order
 * (unknown ones after, as given) and each valid value in its canonical spelling (`normalize`);
 * paging links repeat them so, and the answer's bytes are the same too.
 */
export interface CanonicalQuery {
  /** The parameters in the endpoint's order, `format` left out when given once. */
  pairs: (readonly [string, string])[];
  /** The `format` value when given once (validated elsewhere). */
  format: string | undefined;
}

/** A value's canonical spelling, or the value as given when it is not valid (it is refused anyway). */
export type Normalize = (key: string, value: string) => string;

export function canonicalQuery(url: string, order: readonly string[], normalize?: Normalize): CanonicalQuery {
  const given = [...new URL(url, 'http://local').searchParams].map(
    ([key, value]) => [key, normalize && key !== 'format' ? normalize(key, value) : value] as [string, string],
  );
  const rank = (key: string) => {
    const at = order.indexOf(key);
    return at < 0 ? order.length : at;
  };
  // Array.prototype.sort is stable, so repeated and unknown parameters keep their given order.
  const sorted = given.sort(([a], [b]) => rank(a) - rank(b));
  const formats = sorted.filter(([key]) => key === 'format');
  // A repeated format stays in the query: it is refused, and must not share a valid query's key.
  if (formats.length !== 1) return { pairs: sorted, format: undefined };
  return { pairs: sorted.filter(([key]) => key !== 'format'), format: formats[0]![1] };
}

/**
 * The key of an answer: the drop, the endpoint, the canonical query and the representation. The
 * drop's fingerprint keeps a request still finishing on a replaced drop from filling the new
 * drop's cache; the ETag is a hash of this key.
 */
export function answerKey(fingerprint: string, path: string, query: CanonicalQuery, representation: string): string {
  return fingerprint + keyButDrop(path, query, representation);
}

/**
 * An answer's representation, as its key names it: the format, and on a paged endpoint whether the
 * request named it with `format`, since the paging links then carry it (api/paging.ts envelope).
 */
export function representation(format: string, namedOnPagedEndpoint: boolean): string {
  return namedOnPagedEndpoint ? `${format} named` : format;
}

/** An answer's key without the drop's fingerprint, which goes before it: what a cache hit can remember per URL. */
export function keyButDrop(path: string, query: CanonicalQuery, representation: string): string {
  const text = query.pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return `\n${path}\n${text}\n${representation}`;
}
