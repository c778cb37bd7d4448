-- Line amounts summed per (year, category, line stage), expenses and resources together (a
-- category has one type, so its lines are of one kind). Built once per drop: year_totals and
-- category_rollup start from it instead of millions of lines. `stage` is the lines' own stage
-- (initial, amendment, outturn). `source_ids` (the lines' distinct sources, ascending) and
-- `derived` (any line derived) are what the roll-ups built from it say they sum.
-- Parameters: none.
CREATE TABLE category_year_sums AS
SELECT year, category_id, stage, sum(amount) AS amount,
       list_sort(list_distinct(list(source_id))) AS source_ids, bool_or(derived) AS derived
FROM (
  -- Summed per source first: the list of sources is then made of a few rows per group instead of
  -- every line (10M lines: about 1 s less).
  SELECT year, category_id, stage, source_id, sum(amount) AS amount, bool_or(derived) AS derived
  FROM (
    SELECT year, category_id, stage, amount, source_id, derived FROM expenses
    UNION ALL
    SELECT year, category_id, stage, amount, source_id, derived FROM resources
  ) AS lines
  GROUP BY year, category_id, stage, source_id
) AS per_source
GROUP BY year, category_id, stage
ORDER BY year, category_id;
