/**
 * The paged envelope (contract section 2, DRF's LimitOffsetPagination shape). Links are relative
 * and keep every other parameter the client gave, in the order given.
 */
interface Envelope {
  count: number;
  next: string | null;
  previous: string | null;
  results: unknown[];
}

export function envelope(
  path: string,
  url: string,
  count: number,
  results: unknown[],
  limit: number,
  offset: number,
): Envelope {
  const others = [...new URL(url, 'http://local').searchParams].filter(([key]) => key !== 'limit' && key !== 'offset');
  const link = (at: number) => {
    const query = new URLSearchParams([['limit', String(limit)], ['offset', String(at)], ...others]);
    return `${path}?${query}`;
  };
  return {
    count,
    next: offset + limit < count ? link(offset + limit) : null,
    previous: offset > 0 ? link(Math.max(0, offset - limit)) : null,
    results,
  };
}
