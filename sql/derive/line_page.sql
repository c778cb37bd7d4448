-- One page of a table of lines, and how many lines match: the shape that expenses.sql and
-- resources.sql share, made at load as a table macro for each table of lines (data/derived.ts
-- names the table for `line_table` and its line_counts kind for `line_kind`: expenses_page,
-- resources_page).
--   at_stage       initial, amended or outturn: the stage asked, whose line counts give the count
--   line_stages    VARCHAR[]: the line stages it counts (LINES_OF in src/domain/stages.ts)
--   in_years       INTEGER[] or NULL: only these years
--   in_category    BIGINT or NULL: only that category and its subtree
--   page_size      the page's size
--   from_id, to_id, skip  where the page lies: the matching lines between these ids, past the
--                  first `skip` of them (src/data/line-anchors.ts)
-- Without a filter, or with one year, the range lies between two anchors and holds a few hundred
-- matching lines at most, as cheap a million lines deep as on the first page; with several years
-- or a category it is every id, and the matching lines are sorted. The stages are a list, not
-- a semi join on stage_lines, which built a hash table at every page; a category's subtree is a
-- semi join on category_closure, in a branch of its own that DuckDB drops for the pages without
-- a category (a list of a subtree's ids made a root category's page 2-4 times slower). The
-- count row is joined to the page so that an empty page still reports it. One organization's
-- lines are expenses_of_organization.sql's.
-- Parameters: none (the macro's arguments are the calling query's).
CREATE MACRO line_table_page(at_stage, line_stages, in_years, in_category, page_size, from_id, to_id, skip) AS TABLE
WITH total AS (
  SELECT CASE WHEN in_category IS NULL
           THEN (SELECT coalesce(sum(lines), 0) FROM line_counts
                 WHERE kind = 'line_kind' AND stage = at_stage AND (in_years IS NULL OR list_contains(in_years, year)))
           ELSE (SELECT count(*) FROM line_table
                 WHERE category_id IN (SELECT descendant_id FROM category_closure WHERE ancestor_id = in_category) AND (in_years IS NULL OR list_contains(in_years, year)) AND list_contains(line_stages, stage))
         END AS count
),
page AS (
  (SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM line_table
   WHERE in_category IS NULL
     AND id BETWEEN from_id AND to_id
     AND (in_years IS NULL OR list_contains(in_years, year))
     AND list_contains(line_stages, stage)
   ORDER BY id LIMIT page_size OFFSET skip)
  UNION ALL
  (SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM line_table
   WHERE in_category IS NOT NULL
     AND (in_years IS NULL OR list_contains(in_years, year))
     AND category_id IN (SELECT descendant_id FROM category_closure WHERE ancestor_id = in_category)
     AND list_contains(line_stages, stage)
   ORDER BY id LIMIT page_size OFFSET skip)
)
SELECT total.count, page.* FROM total LEFT JOIN page ON true;
