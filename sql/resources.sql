-- One page of resource lines of every category or of one category's, as expenses.sql finds a page
-- of expense lines.
-- $year        INTEGER[] or NULL   only these years
-- $categories  BIGINT[] or NULL    only these categories (a category and its subtree, from JS)
-- $line_stages VARCHAR[] or NULL   the line stages the asked stage counts (LINES_OF in src/domain/stages.ts); NULL: every line
-- $limit       INTEGER             page size
-- $from_id     BIGINT              where the page lies: the matching lines between these ids,
-- $to_id       BIGINT              past the first $skip of them (src/data/line-anchors.ts)
-- $skip        BIGINT
-- The source (the category's name) comes from the drop's names by id (derive/category_names.sql).
SELECT id, year, ROUND(amount, 3)::DOUBLE AS amount, category_id, stage, source_id, derived
FROM resources
WHERE id BETWEEN $from_id::BIGINT AND $to_id::BIGINT
  AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year))
  AND ($categories::BIGINT[] IS NULL OR list_contains($categories::BIGINT[], category_id))
  AND ($line_stages::VARCHAR[] IS NULL OR list_contains($line_stages::VARCHAR[], stage))
LIMIT $limit::INTEGER OFFSET $skip::BIGINT;
