-- The category tree of one type per year: every category with lines under it, amounts rolled up.
-- $type  VARCHAR             'expense' or 'resource'
-- $year  INTEGER[] or NULL   only these years
-- $stage VARCHAR             initial, amended or outturn: which lines count (docs/api.md, "Stages")
-- Names are not read here: the drop keeps them by id (derive/category_names.sql).
SELECT r.year,
       c.id,
       c.parent_id,
       r.rounded AS amount
FROM category_rollup AS r JOIN categories AS c ON c.id = r.id
WHERE r.stage = $stage::VARCHAR
  AND c.type = $type::VARCHAR
  AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], r.year))
ORDER BY r.year, c.id;
