-- Every matching organization's budget, one row per (organization, year), for a full CSV/Arrow
-- export (no LIMIT: it is streamed).
-- $year INTEGER or NULL   only organizations with lines this year, and only this year's budget
-- An organization without lines has one row with a null year, expenses and resources, as in
-- organizations.sql.
WITH lines AS (
  SELECT organization_id, year, amount AS expenses, 0::DECIMAL(38,6) AS resources FROM expense_sums
  UNION ALL
  SELECT organization_id, year, 0::DECIMAL(38,6), amount FROM resource_sums WHERE organization_id IS NOT NULL
),
budget AS (
  SELECT organization_id, year, sum(expenses) AS expenses, sum(resources) AS resources
  FROM lines
  WHERE $year::INTEGER IS NULL OR year = $year::INTEGER
  GROUP BY organization_id, year
)
SELECT o.id,
       o.name,
       o.code,
       budget.year,
       ROUND(budget.expenses, 3)::DOUBLE AS expenses,
       ROUND(budget.resources, 3)::DOUBLE AS resources
FROM organizations AS o
LEFT JOIN budget ON budget.organization_id = o.id
WHERE $year::INTEGER IS NULL OR budget.organization_id IS NOT NULL
ORDER BY o.id, budget.year;
