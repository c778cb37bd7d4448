-- Total expenses and resources per year, and their balance.
-- $year                  INTEGER or NULL   only this year
-- $include_complementary BOOLEAN           also count lines of complementary finance laws
WITH lines AS (
  SELECT year, amount AS expenses, 0::DECIMAL(38,6) AS resources, complementary FROM expense_sums
  UNION ALL
  SELECT year, 0::DECIMAL(38,6), amount, complementary FROM resource_sums
)
SELECT year,
       ROUND(sum(expenses), 3)::DOUBLE AS total_expenses,
       ROUND(sum(resources), 3)::DOUBLE AS total_resources,
       ROUND(sum(resources) - sum(expenses), 3)::DOUBLE AS balance
FROM lines
WHERE ($year::INTEGER IS NULL OR year = $year::INTEGER)
  AND (NOT complementary OR $include_complementary::BOOLEAN)
GROUP BY year
ORDER BY year;
