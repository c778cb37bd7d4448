-- Rebuilds outstanding_debt with most_final: whether the row is at its year's most final stage (outturn,
-- then amended, then initial; a row of no stated stage is its year's only one), which the series
-- answer when no stage is asked for (docs/api.md, "Stages").
-- Parameters: none.
CREATE OR REPLACE TABLE outstanding_debt AS
SELECT * EXCLUDE (finality), finality = max(finality) OVER (PARTITION BY year) AS most_final
FROM (
  SELECT *, CASE stage WHEN 'outturn' THEN 3 WHEN 'amended' THEN 2 WHEN 'initial' THEN 1 ELSE 0 END AS finality
  FROM outstanding_debt
) AS staged
ORDER BY ALL;
