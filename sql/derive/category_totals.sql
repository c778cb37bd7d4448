-- Every category's amount per stage over all years, rolled up over its subtree and rounded once,
-- for budget-categories without a year. Built after category_rollup.
-- Parameters: none.
CREATE TABLE category_totals AS
SELECT stage, id, ROUND(sum(amount), 3)::DOUBLE AS rounded,
       list_sort(list_distinct(flatten(list(source_ids)))) AS source_ids, bool_or(derived) AS derived
FROM category_rollup
GROUP BY stage, id
ORDER BY stage, id;
