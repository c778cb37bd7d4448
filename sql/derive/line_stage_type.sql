-- The type a download hands the stage of a line over as (all_expenses.sql, all_resources.sql): an
-- ENUM of LINE_STAGES in src/domain/stages.ts, where the stages are defined, bound as JSON, in
-- their order. JS reads an ENUM's values from the type once, not per line.
-- $line_stages  VARCHAR  a JSON array of the line stages
CREATE TYPE line_stage AS ENUM (SELECT unnest(from_json($line_stages::VARCHAR, '["VARCHAR"]')));
