-- Every expense line matching the filter, for a full download (no LIMIT: it is streamed): the
-- download's columns (docs/api.md#columns), with ids where the download has names.
-- $year         INTEGER[] or NULL only these years
-- $organization BIGINT or NULL    only lines of this organization
-- $category     BIGINT or NULL    only lines of this category and its subtree
-- $stage        VARCHAR           initial, amended or outturn: which lines count (as sql/derive/stage_lines.sql; docs/api.md, "Stages")
-- No ORDER BY: the table is kept in id order (src/data/line-positions.ts) and DuckDB returns a
-- scan of one table in table order (preserve_insertion_order), so the first rows leave at once
-- instead of after sorting every line (10M lines: 3.5 s). A join to the names would void that
-- guarantee, so the lines carry ids and the formats name them (formats/chunk-columns.ts).
-- Amounts are DECIMAL(38,6), whose ROUND costs 20 times that of DECIMAL(18,6) (0.7 s against
-- 0.04 s a million lines): every amount under 10^12 is rounded in the narrower type, exactly the same.
-- The stage is handed over as an ENUM, whose values JS reads from the type once, not per line.
SELECT id,
       year,
       (CASE WHEN amount BETWEEN -999999999999 AND 999999999999
             THEN ROUND(amount::DECIMAL(18, 6), 3)
             ELSE ROUND(amount, 3) END)::DOUBLE AS amount,
       category_id,
       organization_id,
       stage::ENUM('initial', 'amendment', 'outturn') AS stage,
       source_id,
       derived
FROM expenses
WHERE ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year))
  AND ($organization::BIGINT IS NULL OR organization_id = $organization::BIGINT)
  AND ($category::BIGINT IS NULL OR category_id IN (SELECT descendant_id FROM category_closure WHERE ancestor_id = $category::BIGINT))
  AND stage IN (SELECT line_stage FROM stage_lines WHERE stage_lines.stage = $stage::VARCHAR);
