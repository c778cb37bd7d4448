/**
 * A new object with `base`'s fields and then `extra`'s. Not `{ ...base, ...extra }`, nor a spread
 * copy given new fields later: on Node.js 20 (V8 11.3) objects made so survive the young
 * generation's collections, so that 600 of them made per answer cost 0.5 ms, and a 4-6 ms pause
 * every few dozen answers (docs/performance.md#spread-copies-on-nodejs-20). Object.assign is fast on Node.js 20 and 24 alike.
 */
export function extended<T extends object, E extends object = object>(base: T, extra?: E): T & E {
  return Object.assign({}, base, extra);
}
