-- Which lines each stage of the API counts, and how final each stage is (docs/api.md, "Stages"):
-- the rows of STAGE_LINES in src/domain/stages.ts, where the stages are defined, bound as JSON.
-- Every query and roll-up that counts lines at a stage, and the series' most final row, read
-- this table, so the mapping is written once.
-- $stages  VARCHAR  a JSON array of {stage, line_stage, finality}
CREATE TABLE stage_lines AS
SELECT unnest(from_json($stages::VARCHAR, '[{"stage": "VARCHAR", "line_stage": "VARCHAR", "finality": "INTEGER"}]'), recursive := true);
