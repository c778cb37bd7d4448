-- Every category's amount per year, rolled up over its subtree (lines of the category and of all
-- its descendants), for the years its subtree has lines. Built once per drop, after
-- category_year_sums and category_closure: budget-categories and the unfiltered trees read it.
-- `amount` is exact, for sums over years; `rounded` is what a tree node shows, rounded once here
-- because rounding 128-bit decimals is the costliest step of a tree query.
-- Parameters: none.
CREATE TABLE category_rollup AS
SELECT year, id, amount, ROUND(amount, 3)::DOUBLE AS rounded
FROM (
  SELECT sums.year, closure.ancestor_id AS id, sum(sums.amount) AS amount
  FROM category_year_sums AS sums
  JOIN category_closure AS closure ON closure.descendant_id = sums.category_id
  GROUP BY sums.year, closure.ancestor_id
) AS rolled
ORDER BY year, id;
