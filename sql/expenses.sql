-- One page of expense lines, and how many lines match.
-- $year   INTEGER or NULL   only this year
-- $stage  VARCHAR           initial, amended or outturn: which lines count (docs/api.md, "Stages")
-- $limit  INTEGER           page size
-- $offset INTEGER           lines to skip
-- A page is a range of positions among the stage's lines (derive/expense_positions.sql), as cheap
-- a million lines deep as on the first page. Of the branches, the one whose filter matches the
-- parameters returns the page, the others nothing. The count row is joined to the page so that an
-- empty page still reports it. Categories and organizations are named from the drop's names by id
-- (derive/category_names.sql, organization_names.sql). One organization's lines:
-- expenses_of_organization.sql.
WITH total AS (
  SELECT coalesce(sum(lines), 0) AS count FROM line_counts
  WHERE kind = 'expense' AND stage = $stage::VARCHAR AND ($year::INTEGER IS NULL OR year = $year::INTEGER)
),
page AS (
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE $stage::VARCHAR = 'initial' AND $year::INTEGER IS NULL AND initial_position BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE $stage::VARCHAR = 'initial' AND year = $year::INTEGER AND initial_position_in_year BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE $stage::VARCHAR = 'amended' AND $year::INTEGER IS NULL AND amended_position BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE $stage::VARCHAR = 'amended' AND year = $year::INTEGER AND amended_position_in_year BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE $stage::VARCHAR = 'outturn' AND $year::INTEGER IS NULL AND outturn_position BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
  UNION ALL
  SELECT id, year, amount, category_id, organization_id, stage, source_id, derived FROM expenses
  WHERE $stage::VARCHAR = 'outturn' AND year = $year::INTEGER AND outturn_position_in_year BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
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
