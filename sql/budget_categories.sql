-- Every category whose subtree has lines for the filter, with the lines' amounts rolled up.
-- $year INTEGER or NULL   only lines of this year
-- $type VARCHAR or NULL   'expense' or 'resource': only categories of this type
WITH rolled AS (
  SELECT id, sum(amount) AS amount FROM category_rollup
  WHERE $year::INTEGER IS NULL OR year = $year::INTEGER
  GROUP BY id
)
SELECT c.id,
       c.name AS category,
       c.type,
       c.parent_id,
       ROUND(CASE WHEN c.type = 'expense' THEN rolled.amount ELSE 0 END, 3)::DOUBLE AS expenses,
       ROUND(CASE WHEN c.type = 'resource' THEN rolled.amount ELSE 0 END, 3)::DOUBLE AS resources
FROM rolled JOIN categories AS c ON c.id = rolled.id
WHERE $type::VARCHAR IS NULL OR c.type = $type::VARCHAR
ORDER BY c.id;
