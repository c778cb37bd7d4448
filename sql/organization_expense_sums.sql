-- One organization's exact expense sums per year, category and line stage, in millionths (the
-- drop keeps money as DECIMAL(38,6)), read from the sums made at load
-- (derive/organization_category_sums.sql) for its expense tree: JS rolls them up the category
-- tree (src/domain/tree.ts rollUp) as organization_expense_tree.sql would, which it still does
-- where a sum would not fit a double exactly.
-- $organization BIGINT              the organization
-- $year         INTEGER[] or NULL   only these years
-- $line_stages  VARCHAR[]           the line stages the asked stage counts (LINES_OF in src/domain/stages.ts)
-- Why: that statement's joins, grouping and sort cost 3-4 ms of DuckDB's time per tree at 1M lines
-- (scripts/bench/query-time.ts), where this filter of a table kept in organization order costs
-- about 1 ms and the roll-up in JS a fraction of that (docs/performance.md#what-makes-it-fast).
-- No ORDER BY: the roll-up sorts the nodes it makes.
SELECT year, category_id, (amount * 1000000)::HUGEINT AS millionths
FROM organization_category_sums
WHERE organization_id = $organization::BIGINT
  AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year))
  AND list_contains($line_stages::VARCHAR[], stage);
