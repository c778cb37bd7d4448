-- Every line of a table of lines matching the filter, for a full download (no LIMIT: it is
-- streamed): the shape that all_expenses.sql and all_resources.sql share, made at load as a table
-- macro for each table of lines (data/derived.ts names the table for `line_table`: expenses_all,
-- resources_all). Every column comes out, the amount rounded and the stage as the line_stage ENUM
-- (derive/line_stage_type.sql); each query picks the download's columns (docs/api.md#columns).
--   line_stages    VARCHAR[] or NULL: the line stages the asked stage counts (LINES_OF in src/domain/stages.ts); NULL: every line
--   year_from      INTEGER or NULL: only lines of this year or later, and at most year_to; NULL: every year
--   year_to        INTEGER or NULL
--   in_years       INTEGER[] or NULL: only these years, when they leave gaps between year_from and year_to
--   leaf_category  BIGINT or NULL: only this category, when it has no subcategories (compared in the scan, faster than a list)
--   in_categories  BIGINT[] or NULL: only these categories (a category's subtree, from JS), when it has subcategories
-- No ORDER BY: the table is kept in id order (src/data/line-anchors.ts) and DuckDB returns a
-- scan of one table in table order (preserve_insertion_order), so the first rows leave at once
-- instead of after sorting every line (10M lines: 3.5 s). Any join voids that guarantee: a join to
-- the names, and also the semi joins that `IN (SELECT ...)` plans (one year of a 1M-line drop came
-- with 1,715 lines moved to its end), so every filter is a plain expression of the arguments, and
-- the lines carry ids that the formats name (formats/chunk-columns.ts).
-- The years come as bounds, tested in the scan before the other columns are read, and as a list
-- only when they leave gaps (as in expenses.sql).
-- Amounts are stored as DECIMAL(18,6) when every one fits (src/data/drop.ts), else as
-- DECIMAL(38,6), whose ROUND costs 20 times that of DECIMAL(18,6) (0.7 s against 0.04 s a million
-- lines): every amount under 10^12 is rounded in the narrower type, exactly the same.
-- Parameters: none (the macro's arguments are the calling query's).
CREATE MACRO line_table_all(line_stages, year_from, year_to, in_years, leaf_category, in_categories) AS TABLE
SELECT * REPLACE (
         (CASE WHEN amount BETWEEN -999999999999 AND 999999999999
               THEN ROUND(amount::DECIMAL(18, 6), 3)
               ELSE ROUND(amount, 3) END)::DOUBLE AS amount,
         stage::line_stage AS stage)
FROM line_table
WHERE (year_from IS NULL OR year BETWEEN year_from AND year_to)
  AND (in_years IS NULL OR list_contains(in_years, year))
  AND (leaf_category IS NULL OR category_id = leaf_category)
  AND (in_categories IS NULL OR list_contains(in_categories, category_id))
  AND (line_stages IS NULL OR list_contains(line_stages, stage));
