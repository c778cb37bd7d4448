-- The budget deficit per year, with GDP and the deficit as a percentage of GDP, at one stage per year.
-- $stage     VARCHAR or NULL   initial, amended or outturn; null: each year's most final stage
--                               (outturn, then amended, then initial; docs/api.md, "Stages")
-- A series without a stage column has one row per year, of no stated stage (null): it is the
-- year's row by default, and no stage asked for matches it.
-- percent is left unrounded here: percentages are rounded half away from zero when shaped. GDP is
-- the year's whatever the stage.
WITH -- Each year's stages, the most final first; the chosen one per year.
stages AS (
  SELECT year, stage,
         row_number() OVER (PARTITION BY year ORDER BY CASE stage WHEN 'outturn' THEN 3 WHEN 'amended' THEN 2 WHEN 'initial' THEN 1 ELSE 0 END DESC)
           AS finality
  FROM (SELECT DISTINCT year, stage FROM deficit) AS years
),
chosen AS (
  SELECT year, stage FROM stages
  WHERE CASE WHEN $stage::VARCHAR IS NULL THEN finality = 1 ELSE stage = $stage::VARCHAR END
)
SELECT d.year,
       ROUND(d.value, 3)::DOUBLE AS value,
       (d.value * 100 / gdp.gdp)::DOUBLE AS percent,
       ROUND(gdp.gdp, 3)::DOUBLE AS gdp,
       d.stage,
       d.source_id,
       d.derived
FROM deficit AS d
JOIN chosen ON chosen.year = d.year AND chosen.stage IS NOT DISTINCT FROM d.stage
JOIN gdp ON gdp.year = d.year
ORDER BY d.year;
