/** Category trees per year, assembled from the flat rows of category_tree.sql / organization_expense_tree.sql. */
/** Ids are numbers, or bigints past 2^53 (see data/values.ts). */
export interface TreeRow {
  year: number;
  id: number | bigint;
  parent_id: number | bigint | null;
  amount: number;
}

export interface TreeNode {
  id: TreeRow['id'];
  name: string;
  year: number;
  /** Null once measured, for a year without the value the measure divides by. */
  amount: number | null;
  children: TreeNode[];
}

/**
 * Rows come ordered by year then id, and every ancestor of a row is present for that year (the
 * roll-up reaches all of them), so each year's rows, read together, build that year's trees with
 * roots and children ordered by id. Nodes are looked up by id within a year: keys built of year
 * and id cost a third of the time of an 18,000-node forest.
 */
export function buildForest(rows: readonly TreeRow[], nameOf: (id: TreeRow['id']) => string): TreeNode[] {
  const roots: TreeNode[] = [];
  for (let start = 0; start < rows.length;) {
    const year = rows[start]!.year;
    let end = start;
    const nodes = new Map<TreeRow['id'], TreeNode>();
    for (; end < rows.length && rows[end]!.year === year; end++) {
      const row = rows[end]!;
      nodes.set(row.id, { id: row.id, name: nameOf(row.id), year, amount: row.amount, children: [] });
    }
    for (let i = start; i < end; i++) {
      const row = rows[i]!;
      const node = nodes.get(row.id)!;
      const parent = row.parent_id === null ? undefined : nodes.get(row.parent_id);
      if (parent) parent.children.push(node);
      else roots.push(node);
    }
    start = end;
  }
  return roots;
}

/** A category's exact sum in one year, in millionths: money is DECIMAL(38,6) (sql/organization_expense_sums.sql). */
export interface CategorySum {
  year: number;
  category_id: TreeRow['id'];
  millionths: number | bigint;
}

const HALF_THOUSANDTH = 500n;
const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The rows organization_expense_tree.sql gives for the sums it would roll up: per year, every
 * category with a sum under it, its amount the exact sum of its own and its descendants',
 * rounded half away from zero to three decimals as DuckDB rounds a DECIMAL, then made a double,
 * in year then id order. `parents`: each category's parent id (null for a root); the load has
 * refused cycles and lines of unknown categories. Undefined when an amount's thousandths pass
 * 2^53, past which a double no longer holds them exactly: the statement answers then.
 */
export function rollUp(sums: readonly CategorySum[], parents: ReadonlyMap<unknown, unknown>): TreeRow[] | undefined {
  const years = new Map<number, Map<TreeRow['id'], bigint>>();
  for (const { year, category_id, millionths } of sums) {
    let nodes = years.get(year);
    if (!nodes) years.set(year, (nodes = new Map()));
    const amount = BigInt(millionths);
    for (let id: unknown = category_id; id !== null && id !== undefined; id = parents.get(id)) {
      const key = id as TreeRow['id'];
      nodes.set(key, (nodes.get(key) ?? 0n) + amount);
    }
  }
  const rows: TreeRow[] = [];
  for (const year of [...years.keys()].sort((a, b) => a - b)) {
    const nodes = years.get(year)!;
    for (const id of [...nodes.keys()].sort(byId)) {
      const millionths = nodes.get(id)!;
      const size = millionths < 0n ? -millionths : millionths;
      const thousandths = (size + HALF_THOUSANDTH) / 1000n;
      if (thousandths > MAX_EXACT) return undefined;
      const amount = Number(thousandths) / 1000;
      rows.push({
        year,
        id,
        parent_id: (parents.get(id) ?? null) as TreeRow['parent_id'],
        amount: millionths < 0n && amount !== 0 ? -amount : amount,
      });
    }
  }
  return rows;
}

/** Ids in order, numbers and bigints past 2^53 alike. */
const byId = (a: TreeRow['id'], b: TreeRow['id']) => (a < b ? -1 : a > b ? 1 : 0);

/** `nodes` and all their descendants made read-only: shared trees that no answer may change. */
export function deepFreeze(nodes: TreeNode[]): readonly TreeNode[] {
  for (const node of nodes) {
    deepFreeze(node.children);
    Object.freeze(node.children);
    Object.freeze(node);
  }
  return Object.freeze(nodes);
}

/** A copy of `node` and its subtree with every amount passed through `amount` (a measure). */
export function mapAmounts(node: TreeNode, amount: (node: TreeNode) => number | null): TreeNode {
  return { ...node, amount: amount(node), children: node.children.map((child) => mapAmounts(child, amount)) };
}

/** A type, not an interface, so that it is a download's FlatRow as it is. */
type TreeNodeRow = {
  id: TreeRow['id'];
  parent_id: TreeRow['parent_id'];
  name: string;
  year: number;
  amount: number | null;
  depth: number;
};

/** One row per node, depth-first (a node, then its children's subtrees by id), the root at depth 0. */
export function flattenTree(root: TreeNode): TreeNodeRow[] {
  const rows: TreeNodeRow[] = [];
  const visit = (node: TreeNode, parent_id: TreeRow['parent_id'], depth: number) => {
    rows.push({ id: node.id, parent_id, name: node.name, year: node.year, amount: node.amount, depth });
    for (const child of node.children) visit(child, node.id, depth + 1);
  };
  visit(root, null, 0);
  return rows;
}

/**
 * A category and every category under it, from each category's children (a drop has no cycles:
 * validation refuses them). An id the drop does not have is its own subtree, which no line matches.
 */
export function subtreeOf<Id>(children: ReadonlyMap<unknown, readonly unknown[]>, id: Id): Id[] {
  const subtree: Id[] = [id];
  for (let i = 0; i < subtree.length; i++) subtree.push(...((children.get(subtree[i]) ?? []) as Id[]));
  return subtree;
}
