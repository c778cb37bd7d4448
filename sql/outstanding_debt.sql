-- Outstanding public debt per year, with GDP and the debt as a percentage of GDP, at one stage per year.
-- $year      INTEGER or NULL   only this year
-- $last      BOOLEAN           only the most recent year (year=last) with a row at the stage
-- $stage     VARCHAR or NULL   initial, amended or outturn; null: each year's most final stage
--                               (outturn, then amended, then initial; docs/api.md, "Stages")
-- A series without a stage column has one row per year, of no stated stage (null): it is the
-- year's row by default, and no stage asked for matches it.
-- value is left unrounded here: percentages are rounded half away from zero when shaped. GDP is
-- the year's whatever the stage.
WITH -- Each year's stages, the most final first; the chosen one per year.
stages AS (
  SELECT year, stage,
         row_number() OVER (PARTITION BY year ORDER BY CASE stage WHEN 'outturn' THEN 3 WHEN 'amended' THEN 2 WHEN 'initial' THEN 1 ELSE 0 END DESC)
           AS finality
  FROM (SELECT DISTINCT year, stage FROM outstanding_debt) AS years
),
chosen AS (
  SELECT year, stage FROM stages
  WHERE CASE WHEN $stage::VARCHAR IS NULL THEN finality = 1 ELSE stage = $stage::VARCHAR END
),
picked AS (
  SELECT od.* FROM outstanding_debt AS od
  JOIN chosen ON chosen.year = od.year AND chosen.stage IS NOT DISTINCT FROM od.stage
)
SELECT od.year,
       ROUND(od.outstanding_debt, 3)::DOUBLE AS outstanding_debt,
       ROUND(gdp.gdp, 3)::DOUBLE AS gdp,
       (od.outstanding_debt * 100 / gdp.gdp)::DOUBLE AS value,
       od.stage,
       od.source_id,
       od.derived
FROM picked AS od JOIN gdp ON gdp.year = od.year
WHERE ($year::INTEGER IS NULL OR od.year = $year::INTEGER)
  AND (NOT $last::BOOLEAN OR od.year = (SELECT max(year) FROM picked))
ORDER BY od.year;
