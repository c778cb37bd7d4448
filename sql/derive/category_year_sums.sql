-- Line amounts summed per (year, category, complementary), expenses and resources together
-- (a category has one type, so its lines are of one kind). Built once per drop: totals read it
-- instead of millions of lines, and category_rollup starts from it.
-- Parameters: none.
CREATE TABLE category_year_sums AS
SELECT year, category_id, complementary, sum(amount) AS amount
FROM (
  SELECT year, category_id, complementary, amount FROM expenses
  UNION ALL
  SELECT year, category_id, complementary, amount FROM resources
) AS lines
GROUP BY year, category_id, complementary
ORDER BY year, category_id;
