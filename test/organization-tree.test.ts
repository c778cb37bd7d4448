/**
 * One organization's expense tree is rolled up in JS from its exact sums per category
 * (sql/organization_expense_sums.sql, src/domain/tree.ts rollUp): it must give the very rows the
 * statement that rolls it up in DuckDB gives (sql/organization_expense_tree.sql), to the last bit
 * of every double, for every organization, stage and year filter. The lines' amounts have four
 * decimals, so that many sums end in a half thousandth (ROUND rounds those away from zero), and
 * some are negative.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { LINES_OF, STAGES, type Stage } from '../src/domain/stages.js';
import { rollUp } from '../src/domain/tree.js';
import { appFor, type TestApp } from './helpers/app.js';
import type { DropData } from './helpers/drop.js';

const LINES = 600;

/** Three organizations, three years, three line stages; categories three deep (1 > 2 > 3, 1 > 4; 5 > 6; 7). */
function drop(amount: string): DropData {
  return {
    organizations: [
      { id: 1, name: 'Ministère A', code: 'A' },
      { id: 2, name: 'Ministère B', code: 'B' },
      { id: 3, name: 'Ministère C', code: 'C' },
    ],
    categories: [
      { id: 1, name: 'Gestion', type: 'expense', parent_id: null },
      { id: 2, name: 'Personnel', type: 'expense', parent_id: 1 },
      { id: 3, name: 'Primes', type: 'expense', parent_id: 2 },
      { id: 4, name: 'Fonctionnement', type: 'expense', parent_id: 1 },
      { id: 5, name: 'Investissement', type: 'expense', parent_id: null },
      { id: 6, name: 'Équipement', type: 'expense', parent_id: 5 },
      { id: 7, name: 'Dette', type: 'expense', parent_id: null },
    ],
    expenses: {
      sql: `SELECT i AS id, 2021 + i % 3 AS year, ${amount} AS amount, [3, 4, 2, 6, 5, 7, 1][1 + (i // 27) % 7] AS category_id,
              1 + (i // 3) % 3 AS organization_id, ['initial', 'amendment', 'outturn'][1 + (i // 9) % 3] AS stage
            FROM range(1, ${LINES + 1}) AS t(i)`,
    },
  };
}

/** The rows organization_expense_tree.sql gives: the roll-up in DuckDB. */
async function statementRows(t: TestApp, organization: number, year: number[], stage: Stage) {
  const lease = t.store.lease()!;
  try {
    return await lease.query('organization_expense_tree', { organization, year, stage });
  } finally {
    lease.release();
  }
}

/** Amounts of up to ±100 with four decimals, a tenth of them negative. */
const FOUR_DECIMALS = `(((i * 7919) % 1000001) * CASE WHEN i % 10 = 0 THEN -1 ELSE 1 END)::DECIMAL(38,6) * 0.0001`;

describe('One organization’s expense tree', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await appFor(drop(FOUR_DECIMALS));
  });
  afterAll(() => t.close());

  it('rolls up to the rows its statement gives, for every organization, stage and year filter', async () => {
    const lease = t.store.lease()!;
    try {
      let halves = 0;
      let nodes = 0;
      for (const organization of [1, 2, 3, 99])
        for (const stage of STAGES)
          for (const year of [null, [2022], [2021, 2023], [1990]]) {
            const sums = await lease.query('organization_expense_sums', { organization, year, line_stages: LINES_OF[stage] });
            const statement = await lease.query('organization_expense_tree', { organization, year, stage });
            expect(rollUp(sums, lease.drop.data.categoryParents), JSON.stringify({ organization, stage, year })).toEqual(statement);
            nodes += statement.length;
            halves += sums.filter((sum) => BigInt(sum.millionths) % 1000n === 500n || BigInt(sum.millionths) % 1000n === -500n).length;
          }
      // The comparisons are of many nodes, some of them summed from a half thousandth.
      expect(nodes).toBeGreaterThan(300);
      expect(halves).toBeGreaterThan(10);
    } finally {
      lease.release();
    }
  });

  it('answers over HTTP with the rolled-up amounts, every node with its ancestors', async () => {
    const statement = await statementRows(t, 2, [2022], 'amended');
    const response = await request(t.app).get('/budget/api/expenses/?hierarchy=true&organization=2&year=2022&stage=amended').expect(200);
    const flat = (nodes: { id: number; amount: number; children: unknown[] }[]): { id: number; amount: number }[] =>
      nodes.flatMap((node) => [{ id: node.id, amount: node.amount }, ...flat(node.children as never)]);
    expect(flat(response.body.results).sort((a, b) => a.id - b.id)).toEqual(statement.map(({ id, amount }) => ({ id, amount })));
    expect(statement.length).toBe(7);
  });
});

describe('One organization’s expense tree with sums past 2^53 thousandths', () => {
  let t: TestApp;
  beforeAll(async () => {
    // 10^13 and a little: a category's sum of its lines reaches about 10^15, 10^18 thousandths.
    t = await appFor(drop(`(10000000000000 + i * 0.0001)::DECIMAL(38,6)`));
  });
  afterAll(() => t.close());

  it('is not rolled up in JS, where doubles would round the sums', async () => {
    const lease = t.store.lease()!;
    try {
      const sums = await lease.query('organization_expense_sums', { organization: 1, year: null, line_stages: LINES_OF.amended });
      expect(sums.length).toBeGreaterThan(0);
      expect(rollUp(sums, lease.drop.data.categoryParents)).toBeUndefined();
    } finally {
      lease.release();
    }
  });

  it('answers with the statement’s own roll-up', async () => {
    const statement = await statementRows(t, 1, [2021], 'outturn');
    const response = await request(t.app).get('/budget/api/expenses/?hierarchy=true&organization=1&year=2021&stage=outturn').expect(200);
    const root = response.body.results.find((node: { id: number }) => node.id === 1);
    expect(root.amount).toBe(statement.find((row) => row.id === 1)!.amount);
    expect(root.amount).toBeGreaterThan(1e14);
  });
});
