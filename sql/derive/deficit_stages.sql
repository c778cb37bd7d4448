-- Rebuilds deficit with most_final: whether the row is at its year's most final stage (outturn,
-- then amended, then initial; a row of no stated stage is its year's only one), which the series
-- answer when no stage is asked for (docs/api.md, "Stages").
-- Parameters: none.
CREATE OR REPLACE TABLE deficit AS
SELECT * EXCLUDE (finality), finality = max(finality) OVER (PARTITION BY year) AS most_final
FROM (
  SELECT *, coalesce((SELECT any_value(finality) FROM stage_lines WHERE stage_lines.stage = deficit.stage), 0) AS finality
  FROM deficit
) AS staged
ORDER BY ALL;
