-- Every category's amount per stage and year, rolled up over its subtree (lines of the category
-- and of all its descendants), for the years its subtree has lines of the stage. Built once per
-- drop, after category_year_sums, category_closure and stage_lines: budget-categories and the
-- unfiltered trees read it. `stage` is the API's stage (initial, amended, outturn).
-- `amount` is exact, for sums over years; `rounded` is what a tree node shows, rounded once here
-- because rounding 128-bit decimals is the costliest step of a tree query.
-- Parameters: none.
CREATE TABLE category_rollup AS
SELECT stage, year, id, amount, ROUND(amount, 3)::DOUBLE AS rounded, source_ids, derived
FROM (
  SELECT stage_lines.stage, sums.year, closure.ancestor_id AS id, sum(sums.amount) AS amount,
         list_sort(list_distinct(flatten(list(sums.source_ids)))) AS source_ids, bool_or(sums.derived) AS derived
  FROM category_year_sums AS sums
  JOIN stage_lines ON stage_lines.line_stage = sums.stage
  JOIN category_closure AS closure ON closure.descendant_id = sums.category_id
  GROUP BY stage_lines.stage, sums.year, closure.ancestor_id
) AS rolled
ORDER BY stage, year, id;
