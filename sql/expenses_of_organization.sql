-- One page of one organization's expense lines, and how many lines match; as expenses.sql.
-- $organization BIGINT              the organization
-- $year         INTEGER[] or NULL   only these years
-- $category     BIGINT or NULL      only lines of this category and its subtree
-- $stage        VARCHAR             initial, amended or outturn: which lines count (as sql/derive/stage_lines.sql; docs/api.md, "Stages")
-- $limit        INTEGER             page size
-- $offset       INTEGER             lines to skip
-- All its lines of a stage: a range of positions (src/data/line-positions.ts). Its lines of
-- some years or of a category are few enough to sort.
WITH total AS (
  SELECT CASE WHEN $category::BIGINT IS NULL
           THEN (SELECT coalesce(sum(lines), 0) FROM line_counts
                 WHERE kind = 'expense' AND stage = $stage::VARCHAR AND organization_id = $organization::BIGINT AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year)))
           ELSE (SELECT count(*) FROM expenses
                 WHERE organization_id = $organization::BIGINT AND category_id IN (SELECT descendant_id FROM category_closure WHERE ancestor_id = $category::BIGINT) AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year)) AND stage IN (SELECT line_stage FROM stage_lines WHERE stage_lines.stage = $stage::VARCHAR))
         END AS count
),
page AS (
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE $stage::VARCHAR = 'initial' AND $year::INTEGER[] IS NULL AND $category::BIGINT IS NULL AND organization_id = $organization::BIGINT
    AND initial_position_in_organization BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE $stage::VARCHAR = 'amended' AND $year::INTEGER[] IS NULL AND $category::BIGINT IS NULL AND organization_id = $organization::BIGINT
    AND amended_position_in_organization BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE $stage::VARCHAR = 'outturn' AND $year::INTEGER[] IS NULL AND $category::BIGINT IS NULL AND organization_id = $organization::BIGINT
    AND outturn_position_in_organization BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  (SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
   WHERE ($year::INTEGER[] IS NOT NULL OR $category::BIGINT IS NOT NULL)
     AND organization_id = $organization::BIGINT
     AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year))
     AND ($category::BIGINT IS NULL OR category_id IN (SELECT descendant_id FROM category_closure WHERE ancestor_id = $category::BIGINT))
     AND stage IN (SELECT line_stage FROM stage_lines WHERE stage_lines.stage = $stage::VARCHAR)
   ORDER BY id LIMIT $limit::INTEGER OFFSET $offset::BIGINT)
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
