-- The budget deficit per year, with GDP and the deficit as a percentage of GDP, at one stage per year.
-- $year      INTEGER[] or NULL only these years
-- $stage     VARCHAR or NULL   initial, amended or outturn; null: each year's most final stage
--                              (outturn, then amended, then initial; derive/deficit_stages.sql)
-- A series without a stage column has one row per year, of no stated stage (null): it is the
-- year's row by default, and no stage asked for matches it.
-- percent is left unrounded here: percentages are rounded half away from zero when shaped. GDP is
-- the year's whatever the stage. published_percent is the source's own ratio, null when the drop
-- has none (docs/api.md#what-every-figure-means).
SELECT d.year,
       ROUND(d.value, 3)::DOUBLE AS value,
       (d.value * 100 / gdp.gdp)::DOUBLE AS percent,
       ROUND(d.published_percent, 2)::DOUBLE AS published_percent,
       ROUND(gdp.gdp, 3)::DOUBLE AS gdp,
       d.stage,
       d.source_id,
       d.derived
FROM deficit AS d JOIN gdp ON gdp.year = d.year
WHERE (CASE WHEN $stage::VARCHAR IS NULL THEN d.most_final ELSE d.stage = $stage::VARCHAR END)
  AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], d.year))
ORDER BY d.year;
