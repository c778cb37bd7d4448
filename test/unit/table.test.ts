/** flatTable: a download's columns and rows derived from a JSON item's zod schema. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { flatTable } from '../../src/formats/table.js';
import * as item from '../../src/api/responses.js';

describe('flatTable', () => {
  it('joins nested fields with _, years int32, other integers int64, other numbers float64, strings utf8, booleans bool', () => {
    const expenses = flatTable(item.Expense);
    expect(expenses.columns).toEqual([
      { name: 'id', type: 'int64', nullable: false },
      { name: 'year', type: 'int32', nullable: false },
      { name: 'amount', type: 'float64', nullable: false },
      { name: 'category', type: 'utf8', nullable: false },
      { name: 'organization_id', type: 'int64', nullable: false },
      { name: 'organization_name', type: 'utf8', nullable: false },
      { name: 'organization_code', type: 'utf8', nullable: false },
      { name: 'stage', type: 'utf8', nullable: false },
      { name: 'source_id', type: 'int64', nullable: true },
      { name: 'derived', type: 'bool', nullable: false },
    ]);
    const line = {
      id: 1,
      year: 2023,
      amount: 100.1,
      category: 'Primes',
      organization: { id: 2, name: 'Santé', code: 'SAN' },
      stage: 'outturn' as const,
      source_id: null,
      derived: true,
    };
    expect(expenses.rows(line)).toEqual([
      {
        id: 1,
        year: 2023,
        amount: 100.1,
        category: 'Primes',
        organization_id: 2,
        organization_name: 'Santé',
        organization_code: 'SAN',
        stage: 'outturn',
        source_id: null,
        derived: true,
      },
    ]);
  });
  it('keeps nullable fields nullable, and enums as strings', () => {
    // Without its change objects (item.rowOf); a measured figure is nullable.
    expect(flatTable(item.rowOf(item.BudgetCategory)).columns.map((c) => [c.name, c.type, c.nullable])).toEqual([
      ['id', 'int64', false],
      ['category', 'utf8', false],
      ['type', 'utf8', false],
      ['parent_id', 'int64', true],
      ['expenses', 'float64', true],
      ['resources', 'float64', true],
      ['stage', 'utf8', false],
      ['source_ids', 'int64_list', false],
      ['derived', 'bool', false],
    ]);
    const debt = flatTable(item.Debt);
    const row = { year: 2023, debt_origin: { id: 1, parent: null, name: 'Intérieure' }, value: 110, stage: null, source_id: null, derived: false };
    expect(debt.rows(row)).toEqual([
      {
        year: 2023,
        debt_origin_id: 1,
        debt_origin_parent: null,
        debt_origin_name: 'Intérieure',
        value: 110,
        stage: null,
        source_id: null,
        derived: false,
      },
    ]);
  });
  it('refuses an item with a list of objects in it, which has no single row; a list of integers is one list column', () => {
    expect(() => flatTable(z.object({ id: z.int(), budget: z.array(z.object({ year: z.int() })) }))).toThrow(/budget has no column type/);
    expect(flatTable(z.object({ id: z.int(), source_ids: z.array(z.int()) })).columns[1]).toEqual({
      name: 'source_ids',
      type: 'int64_list',
      nullable: false,
    });
  });
});
