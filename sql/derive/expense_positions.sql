-- Rebuilds the expense lines in id order, each with its position (1, 2, ...) among the lines of
-- each stage it counts in (docs/api.md, "Stages": an initial line counts in `initial` and
-- `amended`, an amendment in `amended`, an outturn line in `outturn`): among all of them, among
-- its year's and among its organization's; null for a stage it does not count in. A page at any
-- depth is then a range that DuckDB's zone maps find without sorting the lines before it (see
-- derive/line_page.sql, expenses_of_organization.sql). The positions of one stage are increasing in id
-- and null elsewhere, so each column's zone maps stay tight. INTEGER positions: a drop of 2^31
-- lines would not fit in memory anyway.
-- The positions are numbered on the few columns they need, then set beside the lines sorted
-- by id (a positional join: both sides in id order, ids unique by the rules): numbering the
-- whole lines carried every column through each of the nine windows' sorts (10M expense lines,
-- alone: 109 s and 4.2 GB peak instead of 32 s and 3.1 GB, on a busy 2-core machine).
-- Parameters: none.
CREATE OR REPLACE TABLE expenses AS
SELECT lines.*, positions.* EXCLUDE (id)
FROM (SELECT * FROM expenses ORDER BY id) AS lines
POSITIONAL JOIN (
  SELECT id,
         CASE WHEN stage = 'initial' THEN row_number() OVER (PARTITION BY stage = 'initial' ORDER BY id) END::INTEGER AS initial_position,
         CASE WHEN stage = 'initial' THEN row_number() OVER (PARTITION BY stage = 'initial', year ORDER BY id) END::INTEGER AS initial_position_in_year,
         CASE WHEN stage = 'initial' THEN row_number() OVER (PARTITION BY stage = 'initial', organization_id ORDER BY id) END::INTEGER
           AS initial_position_in_organization,
         CASE WHEN stage <> 'outturn' THEN row_number() OVER (PARTITION BY stage = 'outturn' ORDER BY id) END::INTEGER AS amended_position,
         CASE WHEN stage <> 'outturn' THEN row_number() OVER (PARTITION BY stage = 'outturn', year ORDER BY id) END::INTEGER AS amended_position_in_year,
         CASE WHEN stage <> 'outturn' THEN row_number() OVER (PARTITION BY stage = 'outturn', organization_id ORDER BY id) END::INTEGER
           AS amended_position_in_organization,
         CASE WHEN stage = 'outturn' THEN row_number() OVER (PARTITION BY stage = 'outturn' ORDER BY id) END::INTEGER AS outturn_position,
         CASE WHEN stage = 'outturn' THEN row_number() OVER (PARTITION BY stage = 'outturn', year ORDER BY id) END::INTEGER AS outturn_position_in_year,
         CASE WHEN stage = 'outturn' THEN row_number() OVER (PARTITION BY stage = 'outturn', organization_id ORDER BY id) END::INTEGER
           AS outturn_position_in_organization
  FROM (SELECT id, year, organization_id, stage FROM expenses) AS narrow
  ORDER BY id
) AS positions;
