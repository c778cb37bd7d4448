-- Every expense line matching the filter, for a full CSV/Arrow export (no LIMIT: it is streamed).
-- $year         INTEGER[] or NULL only these years
-- $organization BIGINT or NULL    only lines of this organization
-- $category     BIGINT or NULL    only lines of this category and its subtree
-- $stage        VARCHAR           initial, amended or outturn: which lines count (as sql/derive/stage_lines.sql; docs/api.md, "Stages")
-- No ORDER BY: the table is kept in id order (derive/expense_positions.sql) and DuckDB returns a
-- scan in table order (preserve_insertion_order), so the first rows leave at once instead of after
-- sorting every line (10M lines: 3.5 s). Lines are named from the drop's names by id, as pages are.
SELECT id,
       year,
       ROUND(amount, 3)::DOUBLE AS amount,
       category_id,
       organization_id,
       stage,
       source_id,
       derived
FROM expenses
WHERE ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year))
  AND ($organization::BIGINT IS NULL OR organization_id = $organization::BIGINT)
  AND ($category::BIGINT IS NULL OR category_id IN (SELECT descendant_id FROM category_closure WHERE ancestor_id = $category::BIGINT))
  AND (CASE $stage::VARCHAR WHEN 'amended' THEN stage IN ('initial', 'amendment') ELSE stage = $stage::VARCHAR END);
