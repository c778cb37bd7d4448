/**
 * Several stages in one call (docs/api.md#what-every-figure-means): the roll-ups and the series
 * answer each stage asked for as they answer one, and the rows are put together ordered by their
 * key (year, id) and then by stage (initial, amended, outturn); debt's rows of one year and stage
 * stay in origin order. Each row says its stage, and a change is worked out within its stage.
 */
import type { z } from 'zod';
import type { Lease } from '../../data/lease.js';
import type { Stage } from '../../domain/stages.js';
import { flatTable } from '../../formats/table.js';
import type { MeasureRequest } from '../measures.js';
import { rowOf } from '../responses.js';
import type { Variant } from './endpoint.js';
import { measuredSeries, type SeriesOptions } from './measured-rows.js';

type SeriesRequest = MeasureRequest & { year?: number[]; change?: 'previous_year' };

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

/** Orders by year; rows of one year keep their stage's order (perStage's sort is stable). */
export const byYear = <R extends { year: number }>(a: R, b: R): number => a.year - b.year;

/**
 * The list of a yearly series (totals, debt, deficit): each stage of `stages` answered as one
 * (perStage), its rows those `query` reads for the years asked (and the year before each, for a
 * change), shaped and measured on `figures` (measuredSeries); ordered by year, then by stage.
 */
export function seriesList<P extends SeriesRequest, S extends Stage | null, Q extends { year: number }, R extends { year: number }>(spec: {
  item: z.ZodObject;
  stages(params: P): readonly S[];
  query(lease: Lease, years: number[] | undefined, stage: S, params: P): Promise<Q[]>;
  figures: readonly NoInfer<keyof R & string>[];
  shape(row: Q, stage: S): R;
  /** How a row is told from the others of its year, what a share is of, a difference (measuredSeries). */
  options?(stage: S): SeriesOptions<NoInfer<R>>;
}): Variant<P> {
  return {
    name: 'list',
    item: spec.item,
    table: flatTable(rowOf(spec.item)),
    answer: (params, lease) =>
      perStage(
        spec.stages(params),
        (stage) =>
          measuredSeries(
            params,
            lease,
            (years) => spec.query(lease, years, stage, params),
            spec.figures,
            (row) => spec.shape(row, stage),
            spec.options?.(stage),
          ),
        byYear<R>,
      ),
  };
}
