-- One page of expense lines, and how many lines match.
-- $year   INTEGER or NULL   only this year
-- $limit  INTEGER           page size
-- $offset INTEGER           lines to skip
-- A page is a range of positions (derive/expense_positions.sql), as cheap a million lines deep as
-- on the first page. Of the two branches, the one whose filter matches the parameters returns the
-- page, the other nothing. The count row is joined to the page so that an empty page still
-- reports it. Categories and organizations are named from the drop's names by id
-- (derive/category_names.sql, organization_names.sql). One organization's lines:
-- expenses_of_organization.sql.
WITH total AS (
  SELECT coalesce(sum(lines), 0) AS count FROM line_counts
  WHERE kind = 'expense' AND ($year::INTEGER IS NULL OR year = $year::INTEGER)
),
page AS (
  SELECT id, year, amount, category_id, organization_id FROM expenses
  WHERE $year::INTEGER IS NULL AND rowid BETWEEN $offset::BIGINT AND $offset::BIGINT + $limit::INTEGER - 1
  UNION ALL
  SELECT id, year, amount, category_id, organization_id FROM expenses
  WHERE year = $year::INTEGER AND position_in_year BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
)
SELECT total.count,
       page.id,
       page.year,
       ROUND(page.amount, 3)::DOUBLE AS amount,
       page.category_id,
       page.organization_id
FROM total
LEFT JOIN page ON true
ORDER BY page.id;
