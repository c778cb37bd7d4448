-- The years of the budget's own figures (lines, debt, outstanding debt, deficit), for
-- /budget/api/meta/: a year only GDP, population or the CPI has is no budget year (meta's
-- coverage lists those). The lines' years come from year_totals (built before), not from
-- another pass over every line.
-- Parameters: none.
SELECT DISTINCT year FROM (
  SELECT year FROM year_totals
  UNION ALL SELECT year FROM debt
  UNION ALL SELECT year FROM outstanding_debt
  UNION ALL SELECT year FROM deficit
) AS all_years
ORDER BY year;
