/**
 * `compute`, remembered per key. Past `max` keys the memory starts afresh (a miss only
 * recomputes), so keys that a client chooses (addresses, header values) cannot grow it.
 */
export function memo<K, V>(compute: (key: K) => V, max = Infinity): (key: K) => V {
  let seen = new Map<K, V>();
  return (key) => {
    const known = seen.get(key);
    if (known !== undefined || seen.has(key)) return known as V;
    if (seen.size >= max) seen = new Map();
    const value = compute(key);
    seen.set(key, value);
    return value;
  };
}
