-- Total expenses and resources per organization, per year with $by_year.
-- $year            INTEGER[] or NULL   only lines of these years, and only organizations with lines then
-- $organization_id BIGINT or NULL      only this organization
-- $stage           VARCHAR             initial, amended or outturn: which lines count (docs/api.md, "Stages")
-- $by_year         BOOLEAN             one row per organization and year with lines (year null for an
--                                      organization without any), for measures taken year by year
WITH sums AS (
  SELECT organization_id, CASE WHEN $by_year::BOOLEAN THEN year END AS year,
         sum(expenses) AS expenses, sum(resources) AS resources,
         list_sort(list_distinct(flatten(list(source_ids)))) AS source_ids, bool_or(derived) AS derived
  FROM organization_year_sums
  WHERE stage = $stage::VARCHAR AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year))
  GROUP BY ALL
)
SELECT o.id AS organization_id,
       sums.year,
       ROUND(coalesce(sums.expenses, 0), 3)::DOUBLE AS total_expenses,
       ROUND(coalesce(sums.resources, 0), 3)::DOUBLE AS total_resources,
       coalesce(sums.source_ids, []::BIGINT[]) AS source_ids,
       coalesce(sums.derived, false) AS derived
FROM organizations AS o
LEFT JOIN sums ON sums.organization_id = o.id
WHERE ($year::INTEGER[] IS NULL OR sums.organization_id IS NOT NULL)
  AND ($organization_id::BIGINT IS NULL OR o.id = $organization_id::BIGINT)
ORDER BY o.id, sums.year;
