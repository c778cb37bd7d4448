/**
 * Which of the optional parts a loaded drop has (docs/data-drops.md, "Stages and sources"): the
 * rules, /budget/api/meta/ and the endpoints ask it, since the service fills in what a drop leaves
 * out (a stage from `complementary`, null stages and sources, empty optional tables).
 */
export class DropShape {
  constructor(
    /** The optional tables whose files the drop has. */
    private readonly tables: ReadonlySet<string>,
    /** Per table, the optional columns its file has. */
    private readonly columns: ReadonlyMap<string, ReadonlySet<string>>,
  ) {}

  /** Whether the drop has this optional table (sources, population, cpi). */
  hasTable(table: string): boolean {
    return this.tables.has(table);
  }

  /** Whether the table's file has this optional column (stage, complementary, source_id, derived). */
  hasColumn(table: string, column: string): boolean {
    return this.columns.get(table)?.has(column) ?? false;
  }
}
