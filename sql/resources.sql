-- One page of resource lines of every category or of one category's, as expenses.sql finds a page
-- of expense lines.
-- $year_from   INTEGER or NULL     only lines of this year or later, and at most $year_to; NULL: every year
-- $year_to     INTEGER or NULL
-- $year        INTEGER[] or NULL   only these years, when they leave gaps between $year_from and $year_to
-- $leaf_category BIGINT or NULL   only this category, when it has no subcategories (compared in the scan, faster than a list)
-- $categories  BIGINT[] or NULL    only these categories (a category and its subtree, from JS), when it has subcategories
-- $line_stages VARCHAR[] or NULL   the line stages the asked stage counts (LINES_OF in src/domain/stages.ts); NULL: every line
-- $limit       INTEGER             page size
-- $from_id     BIGINT              where the page lies: the matching lines between these ids,
-- $to_id       BIGINT              past the first $skip of them (src/data/line-anchors.ts)
-- $skip        BIGINT
-- The years as bounds, and as a list only when they leave gaps: as in expenses.sql.
-- The source (the category's name) comes from the drop's names by id (derive/category_names.sql).
SELECT id, year, ROUND(amount, 3)::DOUBLE AS amount, category_id, stage, source_id, derived
FROM resources
WHERE id BETWEEN $from_id::BIGINT AND $to_id::BIGINT
  AND ($year_from::INTEGER IS NULL OR year BETWEEN $year_from::INTEGER AND $year_to::INTEGER)
  AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year))
  AND ($leaf_category::BIGINT IS NULL OR category_id = $leaf_category::BIGINT)
  AND ($categories::BIGINT[] IS NULL OR list_contains($categories::BIGINT[], category_id))
  AND ($line_stages::VARCHAR[] IS NULL OR list_contains($line_stages::VARCHAR[], stage))
LIMIT $limit::INTEGER OFFSET $skip::BIGINT;
