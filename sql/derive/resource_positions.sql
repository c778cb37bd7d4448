-- Rebuilds the resource lines in id order with their position among their year's lines, as
-- expense_positions.sql does for expenses (see resources.sql).
-- Parameters: none.
CREATE OR REPLACE TABLE resources AS
SELECT *, row_number() OVER (PARTITION BY year ORDER BY id)::INTEGER AS position_in_year
FROM resources
ORDER BY id;
