import { z } from 'zod';
import { flatTable, float64, int32, int64, table, utf8 } from '../../formats/table.js';
import { pageBounds, pagingParams } from '../paging.js';
import { param } from '../params.js';
import * as item from '../responses.js';
import { API_PREFIX } from '../routes.js';
import { rowsOf } from '../filtered-rows.js';
import { stageOrDefault, type Stage } from '../../domain/stages.js';
import { perStage } from './stage-lists.js';
import { extended } from '../../lib/extended.js';
import { define, ORDER, page } from './endpoint.js';
import { changing, measuredSums, measuring, ordered, sumsHeader } from './measured-rows.js';

export const organizations = define({
  path: `${API_PREFIX}/organization/`,
  summary: 'Organizations with their expenses and resources per year',
  description:
    'Without year: every organization (budget may be empty). With year: only organizations with lines that ' +
    `year, and budget holds that year alone. ${ORDER('id')} In downloads: one row per organization and ` +
    'year; an organization without lines is one row with empty year, expenses and resources.',
  paged: true,
  query: { year: param.year.optional(), search: param.search.optional(), stage: param.stage.optional(), ...pagingParams },
  variants: [
    {
      name: 'list',
      item: item.Organization,
      // One row per organization and year: the budget is a list, which no `_` name can flatten.
      // Without the budget (fields=id,name), one row per organization.
      table: table<z.infer<typeof item.Organization>>(
        [
          int64('id'),
          utf8('name'),
          utf8('code'),
          int32('year', { nullable: true, field: 'budget' }),
          float64('expenses', { nullable: true, field: 'budget' }),
          float64('resources', { nullable: true, field: 'budget' }),
        ],
        ({ budget, ...organization }) =>
          budget.length > 0
            ? budget.map((year) => extended(organization, year))
            : [extended(organization, { year: null, expenses: null, resources: null })],
        'budget',
      ),
      answer: async ({ year, search, stage, ...paged }, lease) => {
        const rows = await rowsOf(lease, 'organizations', {
          year: year ?? null,
          search: search ?? null,
          stage: stageOrDefault(stage),
          ...pageBounds(paged),
        });
        return page(rows, (r) => ({ id: r.id, name: r.name, code: r.code, budget: JSON.parse(r.budget) }));
      },
      exportAll: ({ year, search, stage, fields }) => ({
        sql: fields && !fields.includes('budget') ? 'all_organizations' : 'all_organization_years',
        params: { year: year ?? null, search: search ?? null, stage: stageOrDefault(stage) },
      }),
    },
  ],
});

export const organizationStats = define({
  path: `${API_PREFIX}/organization/stats/`,
  summary: 'Total expenses and resources per organization',
  description: `Without year: every organization; with year: those with lines that year. ${ORDER('organization_id')}`,
  paged: false,
  query: {
    year: param.year.optional(),
    organization_id: param.id.optional(),
    stage: param.stages.optional(),
    ...measuring,
    ...changing,
    ordering: param.ordering(['organization_id', 'stage', 'derived', 'total_expenses', 'total_resources']).optional(),
  },
  figures: ['total_expenses', 'total_resources'],
  headers: sumsHeader,
  variants: [
    {
      name: 'list',
      item: item.OrganizationStats,
      table: flatTable(item.rowOf(item.OrganizationStats)),
      answer: async (params, lease) => {
        const stages = params.stage ?? [stageOrDefault(undefined)];
        const answer = async (stage: Stage) => {
          return measuredSums(
            params,
            lease,
            (year: number[] | undefined, by_year: boolean) =>
              rowsOf(lease, 'organization_stats', { year: year ?? null, organization_id: params.organization_id ?? null, stage, by_year }),
            [
              { name: 'total_expenses', kind: () => 'expense' },
              { name: 'total_resources', kind: () => 'resource' },
            ],
            'organization_id',
            (r) => ({
              organization_id: r.organization_id,
              total_expenses: r.total_expenses,
              total_resources: r.total_resources,
              stage,
              source_ids: r.source_ids,
              derived: r.derived,
            }),
            { lines: stage },
          );
        };
        // Several stages: every organization's rows together, in stage order (ordered() is stable).
        const rows = await perStage(stages, answer, () => 0);
        return ordered(rows, params.ordering ?? (stages.length > 1 ? 'organization_id' : undefined), 'organization_id');
      },
    },
  ],
});
