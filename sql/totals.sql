-- Total expenses and resources per year, and their balance.
-- $year                  INTEGER or NULL   only this year
-- $include_complementary BOOLEAN           also count lines of complementary finance laws
SELECT year,
       ROUND(sum(expenses), 3)::DOUBLE AS total_expenses,
       ROUND(sum(resources), 3)::DOUBLE AS total_resources,
       ROUND(sum(resources) - sum(expenses), 3)::DOUBLE AS balance
FROM year_totals
WHERE ($year::INTEGER IS NULL OR year = $year::INTEGER)
  AND (NOT complementary OR $include_complementary::BOOLEAN)
GROUP BY year
ORDER BY year;
