-- Every category's amount over all years, rolled up over its subtree and rounded once, for
-- budget-categories without a year. Built after category_rollup.
-- Parameters: none.
CREATE TABLE category_totals AS
SELECT id, ROUND(sum(amount), 3)::DOUBLE AS rounded
FROM category_rollup
GROUP BY id
ORDER BY id;
