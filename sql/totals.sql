-- Total expenses and resources per year, and their balance.
-- $year                  INTEGER or NULL   only this year
-- $include_complementary BOOLEAN           also count lines of complementary finance laws
SELECT sums.year,
       ROUND(sum(CASE WHEN c.type = 'expense' THEN sums.amount ELSE 0 END), 3)::DOUBLE AS total_expenses,
       ROUND(sum(CASE WHEN c.type = 'resource' THEN sums.amount ELSE 0 END), 3)::DOUBLE AS total_resources,
       ROUND(sum(CASE WHEN c.type = 'resource' THEN sums.amount ELSE -sums.amount END), 3)::DOUBLE AS balance
FROM category_year_sums AS sums JOIN categories AS c ON c.id = sums.category_id
WHERE ($year::INTEGER IS NULL OR sums.year = $year::INTEGER)
  AND (NOT sums.complementary OR $include_complementary::BOOLEAN)
GROUP BY sums.year
ORDER BY sums.year;
