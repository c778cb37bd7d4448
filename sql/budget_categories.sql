-- Every category whose subtree has lines for the filter, with the lines' amounts rolled up.
-- $year INTEGER or NULL   only lines of this year
-- $type VARCHAR or NULL   'expense' or 'resource': only categories of this type
WITH lines AS (
  SELECT category_id, amount FROM expense_sums WHERE $year::INTEGER IS NULL OR year = $year::INTEGER
  UNION ALL
  SELECT category_id, amount FROM resource_sums WHERE $year::INTEGER IS NULL OR year = $year::INTEGER
),
rolled AS (
  SELECT closure.ancestor_id AS id, sum(lines.amount) AS amount
  FROM lines JOIN category_closure AS closure ON closure.descendant_id = lines.category_id
  GROUP BY closure.ancestor_id
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
