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
 * roll-up reaches all of them), so one pass builds the forest with roots and children ordered by id.
 */
export function buildForest(rows: TreeRow[], nameOf: (id: TreeRow['id']) => string): TreeNode[] {
  const roots: TreeNode[] = [];
  const nodes = new Map<string, TreeNode>();
  for (const row of rows) {
    nodes.set(`${row.year}:${row.id}`, { id: row.id, name: nameOf(row.id), year: row.year, amount: row.amount, children: [] });
  }
  for (const row of rows) {
    const node = nodes.get(`${row.year}:${row.id}`)!;
    const parent = row.parent_id === null ? undefined : nodes.get(`${row.year}:${row.parent_id}`);
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
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
