-- Every resource line matching the filter, for a full download (no LIMIT: it is streamed): the
-- download's columns (docs/api.md#columns), with ids where the download has names.
-- $year     INTEGER[] or NULL only these years
-- $category BIGINT or NULL    only lines of this category and its subtree
-- $stage    VARCHAR           initial, amended or outturn: which lines count (as sql/derive/stage_lines.sql; docs/api.md, "Stages")
-- In id order without ORDER BY, named by the formats, amounts rounded in the narrower decimal:
-- all as in all_expenses.sql.
SELECT id,
       year,
       (CASE WHEN amount BETWEEN -999999999999 AND 999999999999
             THEN ROUND(amount::DECIMAL(18, 6), 3)
             ELSE ROUND(amount, 3) END)::DOUBLE AS amount,
       category_id,
       stage::ENUM('initial', 'amendment', 'outturn') AS stage,
       source_id,
       derived
FROM resources
WHERE ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year))
  AND ($category::BIGINT IS NULL OR category_id IN (SELECT descendant_id FROM category_closure WHERE ancestor_id = $category::BIGINT))
  AND stage IN (SELECT line_stage FROM stage_lines WHERE stage_lines.stage = $stage::VARCHAR);
