-- Rebuilds debt with most_final: whether the row is at its year's most final stage (outturn,
-- then amended, then initial; a row of no stated stage is its year's only one), which the series
-- answer when no stage is asked for (docs/api.md, "Stages").
-- One stage per year for every origin, so that roll-ups never mix stages.
-- Parameters: none.
CREATE OR REPLACE TABLE debt AS
SELECT * EXCLUDE (finality), finality = max(finality) OVER (PARTITION BY year) AS most_final
FROM (
  SELECT *, coalesce((SELECT any_value(finality) FROM stage_lines WHERE stage_lines.stage = debt.stage), 0) AS finality
  FROM debt
) AS staged
ORDER BY ALL;
