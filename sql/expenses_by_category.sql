-- One page of one category's (and its subtree's) expense lines, read from the lines kept in
-- category order (derive/lines_by_category.sql): for a category whose lines are few and far apart
-- among the ids, which a page between two anchors (expenses.sql) would find only by reading most
-- of the table (`sparse` in src/api/endpoints/lines.ts). How many lines match is counted at load
-- (the anchors).
-- $place_from  INTEGER             the category's place in category order (derive/category_order.sql)
-- $place_to    INTEGER             the place of the last category of its subtree
-- $year_from   INTEGER or NULL     only lines of this year or later, and at most $year_to; NULL: every year
-- $year_to     INTEGER or NULL
-- $year        INTEGER[] or NULL   only these years, when they leave gaps between $year_from and $year_to
-- $line_stages VARCHAR[] or NULL   the line stages the asked stage counts (LINES_OF in src/domain/stages.ts); NULL: every line
-- $limit       INTEGER             page size
-- $skip        BIGINT              the lines before the page
-- The subtree's lines are read side by side, and sorted by id: they are few.
SELECT id, year, ROUND(amount, 3)::DOUBLE AS amount, category_id, organization_id, stage, source_id, derived
FROM in_order.expenses_by_category
WHERE category_place BETWEEN $place_from::INTEGER AND $place_to::INTEGER
  AND ($year_from::INTEGER IS NULL OR year BETWEEN $year_from::INTEGER AND $year_to::INTEGER)
  AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year))
  AND ($line_stages::VARCHAR[] IS NULL OR list_contains($line_stages::VARCHAR[], stage))
ORDER BY id
LIMIT $limit::INTEGER OFFSET $skip::BIGINT;
