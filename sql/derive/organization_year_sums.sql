-- Each organization's expenses and resources per year (resource lines without an organization
-- are left out). Built once per drop for the organization list and its stats. The exact sums
-- are for sums over years; the rounded ones are what the list shows, rounded once here.
-- Parameters: none.
CREATE TABLE organization_year_sums AS
SELECT organization_id,
       year,
       expenses,
       resources,
       ROUND(expenses, 3)::DOUBLE AS rounded_expenses,
       ROUND(resources, 3)::DOUBLE AS rounded_resources
FROM (
  SELECT organization_id, year, sum(expenses) AS expenses, sum(resources) AS resources
  FROM (
    SELECT organization_id, year, amount AS expenses, 0::DECIMAL(38,6) AS resources FROM expenses
    UNION ALL
    SELECT organization_id, year, 0::DECIMAL(38,6), amount FROM resources WHERE organization_id IS NOT NULL
  ) AS lines
  GROUP BY organization_id, year
) AS sums
ORDER BY organization_id, year;
