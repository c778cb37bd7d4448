/**
 * Several stages in one call (docs/api.md#what-every-figure-means): the roll-ups and the series
 * answer each stage asked for as they answer one, and the rows are put together ordered by their
 * key (year, id) and then by stage (initial, amended, outturn). Each row says its stage, and a
 * change is worked out within its stage.
 */
import type { Stage } from '../../domain/stages.js';

/**
 * The rows of every stage of `stages` (given in the stages' order), ordered by `compare` and then
 * by stage; one stage is answered as it always was.
 */
export async function perStage<R, S extends Stage | null = Stage>(
  stages: readonly S[],
  answer: (stage: S) => Promise<R[]>,
  compare: (a: R, b: R) => number,
): Promise<R[]> {
  if (stages.length === 1) return answer(stages[0]!);
  // One stage after the other, as one request's queries always run.
  const rows: R[] = [];
  for (const stage of stages) rows.push(...(await answer(stage)));
  // Array.prototype.sort is stable: rows the comparison ties keep their stage's order.
  return rows.sort(compare);
}

/** The stages a series request asks for: the list, or [null] for each year's most final stage. */
export const seriesStagesOf = (stages: readonly Stage[] | undefined): (Stage | null)[] => (stages ? [...stages] : [null]);

/** Orders by year (and then by `then`, e.g. the debt origin). */
export const byYear =
  <R extends { year: number }>(then: (a: R, b: R) => number = () => 0) =>
  (a: R, b: R): number =>
    a.year - b.year || then(a, b);
