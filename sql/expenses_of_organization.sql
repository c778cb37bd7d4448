-- One page of one organization's expense lines of some years or of a category, and how many
-- lines match. Its lines of every year and category: expenses.sql.
-- $organization BIGINT              the organization
-- $year         INTEGER[] or NULL   only these years
-- $category     BIGINT or NULL      only lines of this category and its subtree
-- $stage        VARCHAR             initial, amended or outturn: the stage asked (docs/api.md, "Stages")
-- $line_stages  VARCHAR[] or NULL   the line stages it counts (LINES_OF in src/domain/stages.ts); NULL: every line
-- $limit        INTEGER             page size
-- $from_id      BIGINT              where the page lies: the matching lines between these ids,
-- $to_id        BIGINT              past the first $skip of them (src/data/line-anchors.ts)
-- $skip         BIGINT
-- All its lines of a stage lie between two of its anchors (src/data/line-anchors.ts); its lines
-- of some years or of a category, between every id, are few enough to sort. The stages are a
-- list, as in expenses.sql.
WITH total AS (
  SELECT CASE WHEN $category::BIGINT IS NULL
           THEN (SELECT coalesce(sum(lines), 0) FROM line_counts
                 WHERE kind = 'expense' AND stage = $stage::VARCHAR AND organization_id = $organization::BIGINT AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year)))
           ELSE (SELECT count(*) FROM expenses
                 WHERE organization_id = $organization::BIGINT AND category_id IN (SELECT descendant_id FROM category_closure WHERE ancestor_id = $category::BIGINT) AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year)) AND ($line_stages::VARCHAR[] IS NULL OR list_contains($line_stages::VARCHAR[], stage)))
         END AS count
),
page AS (
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE id BETWEEN $from_id::BIGINT AND $to_id::BIGINT
    AND organization_id = $organization::BIGINT
    AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year))
    AND ($category::BIGINT IS NULL OR category_id IN (SELECT descendant_id FROM category_closure WHERE ancestor_id = $category::BIGINT))
    AND ($line_stages::VARCHAR[] IS NULL OR list_contains($line_stages::VARCHAR[], stage))
  ORDER BY id LIMIT $limit::INTEGER OFFSET $skip::BIGINT
)
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
