-- The years that any table of the drop has data for, for /budget/api/meta/.
-- Parameters: none.
SELECT DISTINCT year FROM (
  SELECT year FROM expenses
  UNION ALL SELECT year FROM resources
  UNION ALL SELECT year FROM debt
  UNION ALL SELECT year FROM outstanding_debt
  UNION ALL SELECT year FROM deficit
) AS all_years
ORDER BY year;
