/**
 * JSON text of an answer. Integers past 2^53 (ids of a drop with BIGINT ids) stay bigints from
 * DuckDB to here, because a JS number would round them, and are written as exact JSON integers:
 * docs/api.md#numbers wants integers, never strings. JSON.stringify refuses bigints, so only an answer
 * that holds one takes the second, slower pass, which writes each as a marked string and then
 * unquotes it. The marker is random per process, so no string from a drop can look like one.
 */
import { randomUUID } from 'node:crypto';

const MARK = `bigint-${randomUUID()}:`;
const MARKED = new RegExp(`"${MARK}(-?\\d+)"`, 'g');

export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${MARK}${v}` : v)).replace(MARKED, '$1');
}
