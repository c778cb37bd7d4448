-- The years that any table of the drop has data for, for /budget/api/meta/. The lines' years come
-- from year_totals (built before), not from another pass over every line.
-- Parameters: none.
SELECT DISTINCT year FROM (
  SELECT year FROM year_totals
  UNION ALL SELECT year FROM debt
  UNION ALL SELECT year FROM outstanding_debt
  UNION ALL SELECT year FROM deficit
) AS all_years
ORDER BY year;
