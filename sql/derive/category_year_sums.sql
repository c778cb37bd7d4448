-- Line amounts summed per (year, category, line stage), expenses and resources together (a
-- category has one type, so its lines are of one kind). Built once per drop: year_totals and
-- category_rollup start from it instead of millions of lines. `stage` is the lines' own stage
-- (initial, amendment, outturn).
-- Parameters: none.
CREATE TABLE category_year_sums AS
SELECT year, category_id, stage, sum(amount) AS amount
FROM (
  SELECT year, category_id, stage, amount FROM expenses
  UNION ALL
  SELECT year, category_id, stage, amount FROM resources
) AS lines
GROUP BY year, category_id, stage
ORDER BY year, category_id;
