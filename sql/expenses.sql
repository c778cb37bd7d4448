-- One page of expense lines, and how many lines match.
-- $year     INTEGER[] or NULL   only these years
-- $category BIGINT or NULL      only lines of this category and its subtree
-- $stage    VARCHAR             initial, amended or outturn: which lines count (docs/api.md, "Stages")
-- $limit    INTEGER             page size
-- $offset   INTEGER             lines to skip
-- Without a filter, or with one year, a page is a range of positions among the stage's lines
-- (src/data/line-positions.ts), as cheap a million lines deep as on the first page. Several
-- years or a category sort the ids of the matching lines. Of the branches, the one whose filter
-- matches the parameters returns the page, the others nothing. The count row is joined to the
-- page so that an empty page still reports it. Categories and organizations are named from the
-- drop's names by id (derive/category_names.sql, organization_names.sql). One organization's
-- lines: expenses_of_organization.sql.
WITH total AS (
  SELECT CASE WHEN $category::BIGINT IS NULL
           THEN (SELECT coalesce(sum(lines), 0) FROM line_counts
                 WHERE kind = 'expense' AND stage = $stage::VARCHAR AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year)))
           ELSE (SELECT count(*) FROM expenses
                 WHERE category_id IN (SELECT descendant_id FROM category_closure WHERE ancestor_id = $category::BIGINT) AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year)) AND stage IN (SELECT line_stage FROM stage_lines WHERE stage_lines.stage = $stage::VARCHAR))
         END AS count
),
page AS (
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE $stage::VARCHAR = 'initial' AND $year::INTEGER[] IS NULL AND $category::BIGINT IS NULL
    AND initial_position BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE $stage::VARCHAR = 'initial' AND len($year::INTEGER[]) = 1 AND $category::BIGINT IS NULL AND year = ($year::INTEGER[])[1]
    AND initial_position_in_year BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE $stage::VARCHAR = 'amended' AND $year::INTEGER[] IS NULL AND $category::BIGINT IS NULL
    AND amended_position BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE $stage::VARCHAR = 'amended' AND len($year::INTEGER[]) = 1 AND $category::BIGINT IS NULL AND year = ($year::INTEGER[])[1]
    AND amended_position_in_year BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE $stage::VARCHAR = 'outturn' AND $year::INTEGER[] IS NULL AND $category::BIGINT IS NULL
    AND outturn_position BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE $stage::VARCHAR = 'outturn' AND len($year::INTEGER[]) = 1 AND $category::BIGINT IS NULL AND year = ($year::INTEGER[])[1]
    AND outturn_position_in_year BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  (SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
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
       page.organization_id,
       page.stage,
       page.source_id,
       page.derived
FROM total
LEFT JOIN page ON true
ORDER BY page.id;
