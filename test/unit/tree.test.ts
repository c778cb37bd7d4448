/** buildForest and flattenTree: category trees per year from flat rows, and back to rows. */
import { describe, expect, it } from 'vitest';
import { buildForest, flattenTree } from '../../src/domain/tree.js';

const NAMES = new Map<unknown, string>([
  [10, 'Gestion'],
  [11, 'Rémunérations'],
  [12, 'Fonctionnement'],
  [13, 'Primes'],
  [20, 'Investissement'],
]);
const nameOf = (id: unknown) => NAMES.get(id)!;

// As category_tree.sql gives them: ordered by year then id, every ancestor present.
const ROWS = [
  { year: 2023, id: 10, parent_id: null, amount: 350.35 },
  { year: 2023, id: 11, parent_id: 10, amount: 300.3 },
  { year: 2023, id: 12, parent_id: 10, amount: 50.05 },
  { year: 2023, id: 13, parent_id: 11, amount: 200.2 },
  { year: 2024, id: 20, parent_id: null, amount: 300 },
];

describe('buildForest', () => {
  it('builds one tree per year and root, children ordered by id, named from the names by id', () => {
    expect(buildForest(ROWS, nameOf)).toEqual([
      {
        id: 10,
        name: 'Gestion',
        year: 2023,
        amount: 350.35,
        children: [
          {
            id: 11,
            name: 'Rémunérations',
            year: 2023,
            amount: 300.3,
            children: [{ id: 13, name: 'Primes', year: 2023, amount: 200.2, children: [] }],
          },
          { id: 12, name: 'Fonctionnement', year: 2023, amount: 50.05, children: [] },
        ],
      },
      { id: 20, name: 'Investissement', year: 2024, amount: 300, children: [] },
    ]);
  });
  it('keeps the same category of two years in two trees', () => {
    const forest = buildForest(
      [
        { year: 2023, id: 20, parent_id: null, amount: 1 },
        { year: 2024, id: 20, parent_id: null, amount: 2 },
      ],
      nameOf,
    );
    expect(forest.map((root) => [root.year, root.amount])).toEqual([
      [2023, 1],
      [2024, 2],
    ]);
  });
  it('makes a root of a node whose parent has no row that year (an organization tree cut above it)', () => {
    expect(buildForest([{ year: 2023, id: 13, parent_id: 11, amount: 5 }], nameOf)).toEqual([
      { id: 13, name: 'Primes', year: 2023, amount: 5, children: [] },
    ]);
  });
});

describe('flattenTree', () => {
  it('gives one row per node, depth-first, with parent_id and depth, the root at depth 0', () => {
    const [root] = buildForest(ROWS, nameOf);
    expect(flattenTree(root!)).toEqual([
      { id: 10, parent_id: null, name: 'Gestion', year: 2023, amount: 350.35, depth: 0 },
      { id: 11, parent_id: 10, name: 'Rémunérations', year: 2023, amount: 300.3, depth: 1 },
      { id: 13, parent_id: 11, name: 'Primes', year: 2023, amount: 200.2, depth: 2 },
      { id: 12, parent_id: 10, name: 'Fonctionnement', year: 2023, amount: 50.05, depth: 1 },
    ]);
  });
});
