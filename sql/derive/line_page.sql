-- One page of a table of lines, and how many lines match: the shape that expenses.sql and
-- resources.sql share, made at load as a table macro for each table of lines (data/derived.ts
-- names the table for `line_table` and its line_counts kind for `line_kind`: expenses_page,
-- resources_page).
--   at_stage     initial, amended or outturn: which lines count (derive/stage_lines.sql)
--   in_years     INTEGER[] or NULL: only these years; in_category BIGINT or NULL: only that subtree
--   page_size, skip  the page
-- Without a filter, or with one year, a page is a range of positions among the stage's lines
-- (src/data/line-positions.ts), as cheap a million lines deep as on the
-- first page. Several years or a category sort the ids of the matching lines. Of the branches,
-- the one whose filter matches the arguments returns the page, the others nothing. The count row
-- is joined to the page so that an empty page still reports it. One organization's lines, paged
-- by their own positions, are expenses_of_organization.sql's: folding them in here too made every
-- page 0.5 ms slower (its conditions are no longer constants DuckDB drops when it prepares).
-- Parameters: none (the macro's arguments are the calling query's).
CREATE MACRO line_table_page(at_stage, in_years, in_category, page_size, skip) AS TABLE
WITH total AS (
  SELECT CASE WHEN in_category IS NULL
           THEN (SELECT coalesce(sum(lines), 0) FROM line_counts
                 WHERE kind = 'line_kind' AND stage = at_stage AND (in_years IS NULL OR list_contains(in_years, year)))
           ELSE (SELECT count(*) FROM line_table
                 WHERE category_id IN (SELECT descendant_id FROM category_closure WHERE ancestor_id = in_category) AND (in_years IS NULL OR list_contains(in_years, year)) AND stage IN (SELECT line_stage FROM stage_lines WHERE stage_lines.stage = at_stage))
         END AS count
),
page AS (
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM line_table
  WHERE at_stage = 'initial' AND in_years IS NULL AND in_category IS NULL
    AND initial_position BETWEEN skip + 1 AND skip + page_size
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM line_table
  WHERE at_stage = 'initial' AND len(in_years) = 1 AND in_category IS NULL AND year = in_years[1]
    AND initial_position_in_year BETWEEN skip + 1 AND skip + page_size
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM line_table
  WHERE at_stage = 'amended' AND in_years IS NULL AND in_category IS NULL
    AND amended_position BETWEEN skip + 1 AND skip + page_size
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM line_table
  WHERE at_stage = 'amended' AND len(in_years) = 1 AND in_category IS NULL AND year = in_years[1]
    AND amended_position_in_year BETWEEN skip + 1 AND skip + page_size
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM line_table
  WHERE at_stage = 'outturn' AND in_years IS NULL AND in_category IS NULL
    AND outturn_position BETWEEN skip + 1 AND skip + page_size
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM line_table
  WHERE at_stage = 'outturn' AND len(in_years) = 1 AND in_category IS NULL AND year = in_years[1]
    AND outturn_position_in_year BETWEEN skip + 1 AND skip + page_size
  UNION ALL
  (SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM line_table
   WHERE (len(in_years) > 1 OR in_category IS NOT NULL)
     AND (in_years IS NULL OR list_contains(in_years, year))
     AND (in_category IS NULL OR category_id IN (SELECT descendant_id FROM category_closure WHERE ancestor_id = in_category))
     AND stage IN (SELECT line_stage FROM stage_lines WHERE stage_lines.stage = at_stage)
   ORDER BY id LIMIT page_size OFFSET skip)
)
SELECT total.count, page.* FROM total LEFT JOIN page ON true;
