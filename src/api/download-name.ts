/** What a download is called: its file name, from the endpoint and the parameters given. */
import type { DownloadFormat } from '../formats/format.js';
import { API_PREFIX } from './routes.js';

/**
 * `expenses-year-2023-organization-1.csv`: the endpoint, then each parameter given (format aside)
 * as name-value, in the endpoint's order. Values are already validated; anything outside
 * [A-Za-z0-9._-] is still replaced, so the name is safe in a header and in any file system.
 */
export function fileName(path: string, params: Record<string, unknown>, format: DownloadFormat): string {
  const endpoint = path.slice(`${API_PREFIX}/`.length).replace(/\/$/, '').replaceAll('/', '-');
  const given = Object.entries(params).filter(([name, value]) => name !== 'format' && value !== undefined);
  const stem = [endpoint, ...given.flatMap(([name, value]) => [name, Array.isArray(value) ? yearsText(value) : String(value)])].join('-');
  return `${stem.replace(/[^A-Za-z0-9._-]+/g, '_')}.${format.extension}`;
}

/** A list of years as the client could have written it: a range when the years follow each other. */
function yearsText(years: readonly number[]): string {
  const consecutive = years.every((year, i) => i === 0 || year === years[i - 1]! + 1);
  return consecutive && years.length > 1 ? `${years[0]}..${years.at(-1)}` : years.join(',');
}
