-- Rebuilds the resource lines in id order with their positions among the lines of each stage
-- they count in, overall and in their year, as expense_positions.sql does for expenses (see
-- resources.sql).
-- Parameters: none.
CREATE OR REPLACE TABLE resources AS
SELECT *,
       CASE WHEN stage = 'initial' THEN row_number() OVER (PARTITION BY stage = 'initial' ORDER BY id) END::INTEGER AS initial_position,
       CASE WHEN stage = 'initial' THEN row_number() OVER (PARTITION BY stage = 'initial', year ORDER BY id) END::INTEGER AS initial_position_in_year,
       CASE WHEN stage <> 'outturn' THEN row_number() OVER (PARTITION BY stage = 'outturn' ORDER BY id) END::INTEGER AS amended_position,
       CASE WHEN stage <> 'outturn' THEN row_number() OVER (PARTITION BY stage = 'outturn', year ORDER BY id) END::INTEGER AS amended_position_in_year,
       CASE WHEN stage = 'outturn' THEN row_number() OVER (PARTITION BY stage = 'outturn' ORDER BY id) END::INTEGER AS outturn_position,
       CASE WHEN stage = 'outturn' THEN row_number() OVER (PARTITION BY stage = 'outturn', year ORDER BY id) END::INTEGER AS outturn_position_in_year
FROM resources
ORDER BY id;
