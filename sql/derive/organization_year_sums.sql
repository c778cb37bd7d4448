-- Each organization's expenses and resources per stage and year (resource lines without an
-- organization are left out). Built once per drop for the organization list and its stats.
-- `stage` is the API's stage (initial, amended, outturn). The exact sums are for sums over years;
-- the rounded ones are what the list shows, rounded once here.
-- Parameters: none.
CREATE TABLE organization_year_sums AS
WITH by_line_stage AS (
  SELECT organization_id, year, stage, sum(expenses) AS expenses, sum(resources) AS resources
  FROM (
    SELECT organization_id, year, stage, amount AS expenses, 0::DECIMAL(38,6) AS resources FROM expenses
    UNION ALL
    SELECT organization_id, year, stage, 0::DECIMAL(38,6), amount FROM resources WHERE organization_id IS NOT NULL
  ) AS lines
  GROUP BY organization_id, year, stage
)
SELECT stage,
       organization_id,
       year,
       expenses,
       resources,
       ROUND(expenses, 3)::DOUBLE AS rounded_expenses,
       ROUND(resources, 3)::DOUBLE AS rounded_resources
FROM (
  SELECT stage_lines.stage, s.organization_id, s.year, sum(s.expenses) AS expenses, sum(s.resources) AS resources
  FROM by_line_stage AS s JOIN stage_lines ON stage_lines.line_stage = s.stage
  GROUP BY stage_lines.stage, s.organization_id, s.year
) AS sums
ORDER BY stage, organization_id, year;
