-- Every resource line matching the filter, for a full CSV/Arrow export (no LIMIT: it is streamed).
-- $year     INTEGER[] or NULL only these years
-- $category BIGINT or NULL    only lines of this category and its subtree
-- $stage    VARCHAR           initial, amended or outturn: which lines count (as sql/derive/stage_lines.sql; docs/api.md, "Stages")
-- In id order without ORDER BY, and named from the drop's names by id, as in all_expenses.sql.
SELECT id,
       year,
       ROUND(amount, 3)::DOUBLE AS amount,
       category_id,
       stage,
       source_id,
       derived
FROM resources
WHERE ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year))
  AND ($category::BIGINT IS NULL OR category_id IN (SELECT descendant_id FROM category_closure WHERE ancestor_id = $category::BIGINT))
  AND (CASE $stage::VARCHAR WHEN 'amended' THEN stage IN ('initial', 'amendment') ELSE stage = $stage::VARCHAR END);
