-- Expenses and resources per stage and year, summed once per drop so that totals reads a few
-- dozen rows. `stage` is the API's stage (initial, amended, outturn); a year appears under a stage
-- when it has lines of that stage.
-- Parameters: none.
CREATE TABLE year_totals AS
SELECT stage_lines.stage,
       sums.year,
       sum(CASE WHEN c.type = 'expense' THEN sums.amount ELSE 0 END) AS expenses,
       sum(CASE WHEN c.type = 'resource' THEN sums.amount ELSE 0 END) AS resources,
       list_sort(list_distinct(flatten(list(sums.source_ids)))) AS source_ids,
       bool_or(sums.derived) AS derived
FROM category_year_sums AS sums
JOIN stage_lines ON stage_lines.line_stage = sums.stage
JOIN categories AS c ON c.id = sums.category_id
GROUP BY stage_lines.stage, sums.year
ORDER BY stage_lines.stage, sums.year;
