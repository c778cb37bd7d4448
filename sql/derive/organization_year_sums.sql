-- Each organization's expenses and resources per year (resource lines without an organization
-- are left out). Built once per drop for the organization list and its stats.
-- Parameters: none.
CREATE TABLE organization_year_sums AS
SELECT organization_id, year, sum(expenses) AS expenses, sum(resources) AS resources
FROM (
  SELECT organization_id, year, amount AS expenses, 0::DECIMAL(38,6) AS resources FROM expenses
  UNION ALL
  SELECT organization_id, year, 0::DECIMAL(38,6), amount FROM resources WHERE organization_id IS NOT NULL
) AS lines
GROUP BY organization_id, year
ORDER BY organization_id, year;
