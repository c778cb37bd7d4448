-- Each organization's expenses and resources per stage and year (resource lines without an
-- organization are left out). Built once per drop for the organization list and its stats.
-- `stage` is the API's stage (initial, amended, outturn). The exact sums are for sums over years;
-- the rounded ones are what the list shows, rounded once here. `source_ids` and `derived`: what
-- organization/stats says it sums.
-- Parameters: none.
CREATE TABLE organization_year_sums AS
WITH per_source AS (
  -- Summed per source first: the list of sources is then made of a few rows per group instead of
  -- every line.
  SELECT organization_id, year, stage, source_id, sum(expenses) AS expenses, sum(resources) AS resources, bool_or(derived) AS derived
  FROM (
    SELECT organization_id, year, stage, amount AS expenses, 0::DECIMAL(38,6) AS resources, source_id, derived FROM expenses
    UNION ALL
    SELECT organization_id, year, stage, 0::DECIMAL(38,6), amount, source_id, derived FROM resources WHERE organization_id IS NOT NULL
  ) AS lines
  GROUP BY organization_id, year, stage, source_id
),
by_line_stage AS (
  SELECT organization_id, year, stage, sum(expenses) AS expenses, sum(resources) AS resources,
         list_distinct(list(source_id)) AS source_ids, bool_or(derived) AS derived
  FROM per_source
  GROUP BY organization_id, year, stage
)
SELECT stage,
       organization_id,
       year,
       expenses,
       resources,
       ROUND(expenses, 3)::DOUBLE AS rounded_expenses,
       ROUND(resources, 3)::DOUBLE AS rounded_resources,
       source_ids,
       derived
FROM (
  SELECT stage_lines.stage, s.organization_id, s.year, sum(s.expenses) AS expenses, sum(s.resources) AS resources,
         list_sort(list_distinct(flatten(list(s.source_ids)))) AS source_ids, bool_or(s.derived) AS derived
  FROM by_line_stage AS s JOIN stage_lines ON stage_lines.line_stage = s.stage
  GROUP BY stage_lines.stage, s.organization_id, s.year
) AS sums
ORDER BY stage, organization_id, year;
