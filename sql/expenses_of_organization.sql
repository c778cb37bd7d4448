-- One page of one organization's expense lines of a category (and its subtree), in every year or
-- some, and how many lines match: the only page of lines that the anchors do not count (located
-- in src/api/endpoints/lines.ts). Every other page of expense lines: expenses.sql.
-- $organization BIGINT              the organization
-- $category     BIGINT              only lines of this category and its subtree
-- $year_from    INTEGER or NULL     only lines of this year or later, and at most $year_to; NULL: every year
-- $year_to      INTEGER or NULL
-- $year         INTEGER[] or NULL   only these years, when they leave gaps between $year_from and $year_to
-- $line_stages  VARCHAR[] or NULL   the line stages the asked stage counts (LINES_OF in src/domain/stages.ts); NULL: every line
-- $limit        INTEGER             page size
-- $skip         BIGINT              the lines before the page
-- The years as bounds, and as a list only when they leave gaps: as in expenses.sql.
-- Such lines lie anywhere among the ids, and are few enough to count and sort. The count row is
-- joined to the page so that an empty page still reports it.
WITH matching AS (
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE organization_id = $organization::BIGINT
    AND category_id IN (SELECT descendant_id FROM category_closure WHERE ancestor_id = $category::BIGINT)
    AND ($year_from::INTEGER IS NULL OR year BETWEEN $year_from::INTEGER AND $year_to::INTEGER)
    AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year))
    AND ($line_stages::VARCHAR[] IS NULL OR list_contains($line_stages::VARCHAR[], stage))
),
total AS (SELECT count(*) AS count FROM matching),
page AS (SELECT * FROM matching ORDER BY id LIMIT $limit::INTEGER OFFSET $skip::BIGINT)
SELECT total.count,
       page.id,
       page.year,
       ROUND(page.amount, 3)::DOUBLE AS amount,
       page.category_id,
       page.organization_id,
       page.stage,
       page.source_id,
       page.derived
FROM total
LEFT JOIN page ON true
ORDER BY page.id;
