-- One page of resource lines, and how many lines match.
-- $year     INTEGER[] or NULL   only these years
-- $category BIGINT or NULL      only lines of this category and its subtree
-- $stage    VARCHAR             initial, amended or outturn: which lines count (docs/api.md, "Stages")
-- $limit    INTEGER             page size
-- $offset   INTEGER             lines to skip
-- Pages are found as in expenses.sql (src/data/line-positions.ts). The count row is joined to
-- the page so that an empty page still reports the count. The source (the category's name) comes
-- from the drop's names by id (derive/category_names.sql).
WITH total AS (
  SELECT CASE WHEN $category::BIGINT IS NULL
           THEN (SELECT coalesce(sum(lines), 0) FROM line_counts
                 WHERE kind = 'resource' AND stage = $stage::VARCHAR AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year)))
           ELSE (SELECT count(*) FROM resources
                 WHERE category_id IN (SELECT descendant_id FROM category_closure WHERE ancestor_id = $category::BIGINT) AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year)) AND stage IN (SELECT line_stage FROM stage_lines WHERE stage_lines.stage = $stage::VARCHAR))
         END AS count
),
page AS (
  SELECT id, year, amount, category_id, stage, source_id, derived FROM resources
  WHERE $stage::VARCHAR = 'initial' AND $year::INTEGER[] IS NULL AND $category::BIGINT IS NULL
    AND initial_position BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, stage, source_id, derived FROM resources
  WHERE $stage::VARCHAR = 'initial' AND len($year::INTEGER[]) = 1 AND $category::BIGINT IS NULL AND year = ($year::INTEGER[])[1]
    AND initial_position_in_year BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, stage, source_id, derived FROM resources
  WHERE $stage::VARCHAR = 'amended' AND $year::INTEGER[] IS NULL AND $category::BIGINT IS NULL
    AND amended_position BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, stage, source_id, derived FROM resources
  WHERE $stage::VARCHAR = 'amended' AND len($year::INTEGER[]) = 1 AND $category::BIGINT IS NULL AND year = ($year::INTEGER[])[1]
    AND amended_position_in_year BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, stage, source_id, derived FROM resources
  WHERE $stage::VARCHAR = 'outturn' AND $year::INTEGER[] IS NULL AND $category::BIGINT IS NULL
    AND outturn_position BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, stage, source_id, derived FROM resources
  WHERE $stage::VARCHAR = 'outturn' AND len($year::INTEGER[]) = 1 AND $category::BIGINT IS NULL AND year = ($year::INTEGER[])[1]
    AND outturn_position_in_year BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  (SELECT id, year, amount, category_id, stage, source_id, derived FROM resources
   WHERE (len($year::INTEGER[]) > 1 OR $category::BIGINT IS NOT NULL)
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
       page.stage,
       page.source_id,
       page.derived
FROM total
LEFT JOIN page ON true
ORDER BY page.id;
