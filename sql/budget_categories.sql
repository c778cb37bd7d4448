-- Every category whose subtree has lines for the filter, with the lines' amounts rolled up; per
-- year with $by_year.
-- $year    INTEGER[] or NULL   only lines of these years
-- $type    VARCHAR or NULL     'expense' or 'resource': only categories of this type
-- $stage   VARCHAR             initial, amended or outturn: which lines count (docs/api.md, "Stages")
-- $by_year BOOLEAN             one row per category and year, for measures taken year by year
-- The roll-ups are computed at load per stage: per year (category_rollup) and over all years
-- (category_totals); one year, or all years, reads their rounded figures. `source_ids` and
-- `derived` say what the row sums (docs/api.md#what-every-figure-means). Names come from the
-- drop's names by id (derive/category_names.sql).
WITH rolled AS (
  SELECT id, NULL::INTEGER AS year, rounded, source_ids, derived FROM category_rollup
  WHERE stage = $stage::VARCHAR AND NOT $by_year::BOOLEAN AND len($year::INTEGER[]) = 1 AND year = ($year::INTEGER[])[1]
  UNION ALL
  SELECT id, NULL, rounded, source_ids, derived FROM category_totals
  WHERE stage = $stage::VARCHAR AND NOT $by_year::BOOLEAN AND $year::INTEGER[] IS NULL
  UNION ALL
  SELECT id, NULL, ROUND(sum(amount), 3)::DOUBLE, list_sort(list_distinct(flatten(list(source_ids)))), bool_or(derived) FROM category_rollup
  WHERE stage = $stage::VARCHAR AND NOT $by_year::BOOLEAN AND len($year::INTEGER[]) > 1 AND list_contains($year::INTEGER[], year)
  GROUP BY id
  UNION ALL
  SELECT id, year, rounded, source_ids, derived FROM category_rollup
  WHERE stage = $stage::VARCHAR AND $by_year::BOOLEAN AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year))
)
SELECT c.id,
       rolled.year,
       c.type,
       c.parent_id,
       CASE WHEN c.type = 'expense' THEN rolled.rounded ELSE 0 END AS expenses,
       CASE WHEN c.type = 'resource' THEN rolled.rounded ELSE 0 END AS resources,
       rolled.source_ids,
       rolled.derived
FROM rolled JOIN categories AS c ON c.id = rolled.id
WHERE $type::VARCHAR IS NULL OR c.type = $type::VARCHAR
ORDER BY c.id, rolled.year;
