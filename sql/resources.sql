-- One page of resource lines, and how many lines match.
-- $year   INTEGER or NULL   only this year
-- $limit  INTEGER           page size
-- $offset INTEGER           lines to skip
-- The count row is joined to the page so that an empty page still reports the count.
-- NOT MATERIALIZED: the filter is cheap to run twice, while materializing every matching line
-- for the count costs more than the whole query.
WITH matching AS NOT MATERIALIZED (
  SELECT id, year, amount, category_id FROM resources
  WHERE $year::INTEGER IS NULL OR year = $year::INTEGER
),
total AS (SELECT count(*) AS count FROM matching),
page AS (SELECT * FROM matching ORDER BY id LIMIT $limit::INTEGER OFFSET $offset::BIGINT)
SELECT total.count,
       page.id,
       page.year,
       ROUND(page.amount, 3)::DOUBLE AS amount,
       c.name AS source
FROM total
LEFT JOIN page ON true
LEFT JOIN categories AS c ON c.id = page.category_id
ORDER BY page.id;
