-- Rebuilds the expense lines in id order, each with its position (1, 2, ...) among its year's
-- lines and among its organization's lines, so that a page at any depth is a range DuckDB's zone
-- maps find without sorting the lines before it (see expenses.sql, expenses_of_organization.sql).
-- In id order, a line's rowid is its position among all lines, minus one. INTEGER positions: a
-- drop of 2^31 lines would not fit in memory anyway.
-- Parameters: none.
CREATE OR REPLACE TABLE expenses AS
SELECT *,
       row_number() OVER (PARTITION BY year ORDER BY id)::INTEGER AS position_in_year,
       row_number() OVER (PARTITION BY organization_id ORDER BY id)::INTEGER AS position_in_organization
FROM expenses
ORDER BY id;
