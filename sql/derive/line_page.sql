-- One page of a table of lines under one category (and its subtree), and how many lines match:
-- the shape that expenses_in_category.sql and resources_in_category.sql share, made at load as a
-- table macro for each table of lines (data/derived.ts names the table for `line_table`:
-- expenses_category_page, resources_category_page).
--   line_stages    VARCHAR[] or NULL: the line stages the asked stage counts (LINES_OF in src/domain/stages.ts); NULL: every line
--   in_years       INTEGER[] or NULL: only these years
--   in_category    BIGINT: that category and its subtree
--   page_size      the page's size
--   skip           the lines before the page
-- A category's lines lie anywhere among the ids: they are counted and sorted. Its subtree is a
-- semi join on category_closure (a list of a subtree's ids made a root category's page 2-4 times
-- slower). The count row is joined to the page so that an empty page still reports it. Used for
-- a category's lines of several years: a page without a category, or of a category in every
-- year or in one, is a range of ids between two anchors (expenses.sql, resources.sql).
-- Parameters: none (the macro's arguments are the calling query's).
CREATE MACRO line_table_category_page(line_stages, in_years, in_category, page_size, skip) AS TABLE
WITH matching AS (
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM line_table
  WHERE category_id IN (SELECT descendant_id FROM category_closure WHERE ancestor_id = in_category)
    AND (in_years IS NULL OR list_contains(in_years, year))
    AND (line_stages IS NULL OR list_contains(line_stages, stage))
),
total AS (SELECT count(*) AS count FROM matching),
page AS (SELECT * FROM matching ORDER BY id LIMIT page_size OFFSET skip)
SELECT total.count, page.* FROM total LEFT JOIN page ON true;
