-- Total expenses and resources per organization.
-- $year            INTEGER or NULL   only lines of this year, and only organizations with lines then
-- $organization_id BIGINT or NULL    only this organization
-- $stage           VARCHAR           initial, amended or outturn: which lines count (docs/api.md, "Stages")
WITH totals AS (
  SELECT organization_id, sum(expenses) AS expenses, sum(resources) AS resources
  FROM organization_year_sums
  WHERE stage = $stage::VARCHAR AND ($year::INTEGER IS NULL OR year = $year::INTEGER)
  GROUP BY organization_id
)
SELECT o.id AS organization_id,
       ROUND(coalesce(totals.expenses, 0), 3)::DOUBLE AS total_expenses,
       ROUND(coalesce(totals.resources, 0), 3)::DOUBLE AS total_resources
FROM organizations AS o
LEFT JOIN totals ON totals.organization_id = o.id
WHERE ($year::INTEGER IS NULL OR totals.organization_id IS NOT NULL)
  AND ($organization_id::BIGINT IS NULL OR o.id = $organization_id::BIGINT)
ORDER BY o.id;
