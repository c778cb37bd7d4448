-- One page of resource lines, and how many lines match.
-- $year   INTEGER or NULL   only this year
-- $limit  INTEGER           page size
-- $offset INTEGER           lines to skip
-- A page is a range of positions, as in expenses.sql (derive/resource_positions.sql). The count
-- row is joined to the page so that an empty page still reports the count. The source (the
-- category's name) comes from the drop's names by id (derive/category_names.sql).
WITH total AS (
  SELECT coalesce(sum(lines), 0) AS count FROM line_counts
  WHERE kind = 'resource' AND ($year::INTEGER IS NULL OR year = $year::INTEGER)
),
page AS (
  SELECT id, year, amount, category_id FROM resources
  WHERE $year::INTEGER IS NULL AND rowid BETWEEN $offset::BIGINT AND $offset::BIGINT + $limit::INTEGER - 1
  UNION ALL
  SELECT id, year, amount, category_id FROM resources
  WHERE year = $year::INTEGER AND position_in_year BETWEEN $offset::BIGINT + 1 AND $offset::BIGINT + $limit::INTEGER
)
SELECT total.count,
       page.id,
       page.year,
       ROUND(page.amount, 3)::DOUBLE AS amount,
       page.category_id
FROM total
LEFT JOIN page ON true
ORDER BY page.id;
