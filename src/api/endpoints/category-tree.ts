/** The tree variant of expenses and resources: their category tree per year, with hierarchy=true. */
import type { Lease } from '../../data/lease.js';
import { float64, int32, int64, table, utf8 } from '../../formats/table.js';
import { pageBounds } from '../paging.js';
import * as item from '../responses.js';
import { buildForest, flattenTree, mapAmounts, rollUp, type TreeNode, type TreeRow } from '../../domain/tree.js';
import { invalid, type MeasureRequest } from '../measures.js';
import { LINES_OF, type Stage } from '../../domain/stages.js';
import { named } from '../../domain/names.js';
import type { Variant } from './endpoint.js';
import { measureHeader, measurerFor } from './measured-rows.js';

/**
 * One row per node of a category tree, depth-first, roots at depth 0 (docs/api.md#columns). A
 * measure makes a node's amount null in a year without the value it divides by.
 */
const TREE_TABLE = table<TreeNode>(
  [int64('id'), int64('parent_id', { nullable: true }), utf8('name'), int32('year'), float64('amount', { nullable: true }), int32('depth')],
  flattenTree,
);

interface TreeParams {
  hierarchy?: boolean;
  limit?: number;
  offset?: number;
}

/**
 * The tree variant: pages count root nodes (one tree per year), and a full download holds every
 * node of every tree, in one chunk: a tree's size is bounded by categories × years, not by lines.
 */
export function treeVariant<P extends TreeParams>(trees: (params: P, lease: Lease) => Promise<TreeNode[]>): Variant<P> {
  return {
    name: 'tree',
    when: { test: (params) => params.hierarchy === true, text: 'With hierarchy=true' },
    item: item.CategoryNode,
    table: TREE_TABLE,
    answer: async (params, lease) => {
      const roots = await trees(params, lease);
      const { limit, offset } = pageBounds(params);
      return { count: roots.length, items: roots.slice(offset, offset + limit) };
    },
    async *exportAll(params, lease) {
      yield (await trees(params, lease)).flatMap((root) => TREE_TABLE.rows(root));
    },
  };
}

/**
 * The trees built at load answer the whole tree (derived.ts), shared and read-only; one
 * organization's expense tree rolls up its sums per category (organizationTreeRows). Nodes are named from the drop's category names (sql/derive/category_names.sql). With a
 * category, each year's tree is that category's subtree; with a measure, every node of a copy is measured.
 */
export async function categoryTree(
  lease: Lease,
  type: 'expense' | 'resource',
  stage: Stage,
  params: MeasureRequest & { year?: number[]; organization?: number | bigint; category?: number | bigint },
): Promise<TreeNode[]> {
  const { year, organization, category } = params;
  const { categoryNames, categoryForests } = lease.drop.data;
  const forest =
    organization === undefined
      ? categoryForests.get(`${type}:${stage}`)!.filter((root) => !year || year.includes(root.year))
      : buildForest(await organizationTreeRows(lease, organization, year ?? null, stage), (id) => named(categoryNames, id));
  const roots = category === undefined ? forest : forest.flatMap((root) => subtree(root, category));
  if ((params.measure ?? 'nominal') === 'nominal') return roots;
  const m = await measurerFor(params, lease, year, { lines: stage });
  return roots.map((root) => mapAmounts(root, (node) => m.round(m.apply(node.amount, node.year, type))));
}

/**
 * One organization's expense tree as rows: its sums per category rolled up in JS, or the
 * statement's own roll-up where a sum would not fit a double exactly (rollUp).
 */
async function organizationTreeRows(lease: Lease, organization: number | bigint, year: number[] | null, stage: Stage): Promise<TreeRow[]> {
  const sums = await lease.query('organization_expense_sums', { organization, year, line_stages: LINES_OF[stage] });
  return rollUp(sums, lease.drop.data.categoryParents) ?? (await lease.query('organization_expense_tree', { organization, year, stage }));
}

/** The node of `id` in a tree, as a list of none or one. Ids are compared as the drop gives them (numbers, or bigints past 2^53). */
function subtree(node: TreeNode, id: number | bigint): TreeNode[] {
  if (node.id == id) return [node];
  for (const child of node.children) {
    const found = subtree(child, id);
    if (found.length) return found;
  }
  return [];
}

/** Budget-Measure on a tree; lines are not measured, so measure (other than nominal) is refused on them. */
export function treeHeaders(params: MeasureRequest & { hierarchy?: boolean }, lease: Lease): Record<string, string> {
  if (!params.hierarchy && (params.measure ?? 'nominal') !== 'nominal') {
    throw invalid('measure', 'applies only to the category tree (hierarchy=true)');
  }
  return params.hierarchy ? measureHeader(params, lease) : {};
}
