-- How many expense and resource lines each (line stage, year, organization) has: what line_counts
-- adds up per stage, and which line stages each year has (line_stages_by_year.sql).
-- Parameters: none.
CREATE TABLE line_stage_counts AS
SELECT kind, stage AS line_stage, year, organization_id, count(*) AS lines
FROM (
  SELECT 'expense' AS kind, stage, year, organization_id FROM expenses
  UNION ALL
  SELECT 'resource', stage, year, organization_id FROM resources
) AS all_lines
GROUP BY kind, stage, year, organization_id;
