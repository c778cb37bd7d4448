-- How many expense and resource lines each (year, organization) has, so that the paged lists
-- count the lines matching a filter from a few thousand rows instead of millions.
-- Parameters: none.
CREATE TABLE line_counts AS
SELECT kind, year, organization_id, count(*) AS lines
FROM (
  SELECT 'expense' AS kind, year, organization_id FROM expenses
  UNION ALL
  SELECT 'resource', year, organization_id FROM resources
) AS lines
GROUP BY kind, year, organization_id
ORDER BY kind, year, organization_id;
