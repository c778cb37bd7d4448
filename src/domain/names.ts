/**
 * The drop's name for an id. Validation guarantees every referenced id has one, so a miss is a
 * bug to report, not a field to leave out of the answer.
 */
export function named<T>(names: ReadonlyMap<unknown, T>, id: unknown): T {
  const found = names.get(id);
  if (found === undefined) throw new Error(`no name for id ${String(id)}`);
  return found;
}
