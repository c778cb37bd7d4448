-- Every category whose subtree has lines for the filter, with the lines' amounts rolled up.
-- $year INTEGER or NULL   only lines of this year
-- $type VARCHAR or NULL   'expense' or 'resource': only categories of this type
-- $stage VARCHAR          initial, amended or outturn: which lines count (docs/api.md, "Stages")
-- The roll-ups are computed at load per stage: per year (category_rollup) and over all years (category_totals).
-- Names come from the drop's names by id (derive/category_names.sql).
WITH rolled AS (
  SELECT id, rounded FROM category_rollup WHERE stage = $stage::VARCHAR AND year = $year::INTEGER
  UNION ALL
  SELECT id, rounded FROM category_totals WHERE stage = $stage::VARCHAR AND $year::INTEGER IS NULL
)
SELECT c.id,
       c.type,
       c.parent_id,
       CASE WHEN c.type = 'expense' THEN rolled.rounded ELSE 0 END AS expenses,
       CASE WHEN c.type = 'resource' THEN rolled.rounded ELSE 0 END AS resources
FROM rolled JOIN categories AS c ON c.id = rolled.id
WHERE $type::VARCHAR IS NULL OR c.type = $type::VARCHAR
ORDER BY c.id;
