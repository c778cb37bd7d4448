-- Which lines each stage of the API counts (docs/api.md, "Stages"): `initial` the initial lines,
-- `amended` the initial lines and the complementary laws' amendments, `outturn` the outturn lines.
-- Every roll-up derived below is keyed by the API's stage through this table.
-- Parameters: none.
CREATE TABLE stage_lines AS
SELECT * FROM (VALUES ('initial', 'initial'), ('amended', 'initial'), ('amended', 'amendment'), ('outturn', 'outturn'))
  AS t(stage, line_stage);
