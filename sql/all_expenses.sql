-- Every expense line matching the filter, for a full download (no LIMIT: it is streamed): the
-- download's columns (docs/api.md#columns), with ids where the download has names, in id order
-- without ORDER BY (derive/all_lines.sql).
-- $year_from    INTEGER or NULL   only lines of this year or later, and at most $year_to; NULL: every year
-- $year_to      INTEGER or NULL
-- $year         INTEGER[] or NULL only these years, when they leave gaps between $year_from and $year_to
-- $organization BIGINT or NULL    only lines of this organization
-- $leaf_category BIGINT or NULL   only lines of this category, when it has no subcategories
-- $categories   BIGINT[] or NULL  only lines of these categories (a category and its subtree), when it has subcategories
-- $line_stages  VARCHAR[] or NULL the line stages counted at the stage asked (LINES_OF in src/domain/stages.ts; docs/api.md, "Stages"); NULL: every line
SELECT id, year, amount, category_id, organization_id, stage, source_id, derived
FROM expenses_all($line_stages::VARCHAR[], $year_from::INTEGER, $year_to::INTEGER, $year::INTEGER[], $leaf_category::BIGINT, $categories::BIGINT[])
WHERE $organization::BIGINT IS NULL OR organization_id = $organization::BIGINT;
