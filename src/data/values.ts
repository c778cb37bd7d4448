/**
 * DuckDB hands back BIGINT as bigint and DECIMAL as a value object; JSON wants plain numbers.
 * Queries round money in SQL and cast it to DOUBLE, so in answers this only meets ids, counts and
 * years; the example rows of a rejected drop bring raw DECIMALs and non-finite floats too.
 * Integers past 2^53 stay bigints, which a number would round: json.ts writes them exactly.
 */
export function plainValue(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value;
  if (value !== null && typeof value === 'object') {
    // A LIST (source_ids of a roll-up): its items, each made plain.
    if ('items' in value && Array.isArray(value.items)) return value.items.map(plainValue);
    if ('toDouble' in value && typeof value.toDouble === 'function') return value.toDouble();
    return String(value);
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return value;
}
