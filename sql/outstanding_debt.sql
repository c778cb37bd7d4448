-- Outstanding public debt per year, with GDP and the debt as a percentage of GDP, at one stage per year.
-- $year      INTEGER[] or NULL only these years
-- $last      BOOLEAN           only the most recent year (year=last) with a row at the stage
-- $stage     VARCHAR or NULL   initial, amended or outturn; null: each year's most final stage
--                              (outturn, then amended, then initial; derive/outstanding_debt_stages.sql)
-- A series without a stage column has one row per year, of no stated stage (null): it is the
-- year's row by default, and no stage asked for matches it.
-- value is left unrounded here: percentages are rounded half away from zero when shaped. GDP is
-- the year's whatever the stage. published_value is the source's own ratio, null when the drop
-- has none (docs/api.md#what-every-figure-means).
SELECT od.year,
       ROUND(od.outstanding_debt, 3)::DOUBLE AS outstanding_debt,
       ROUND(gdp.gdp, 3)::DOUBLE AS gdp,
       (od.outstanding_debt * 100 / gdp.gdp)::DOUBLE AS value,
       ROUND(od.published_percent, 2)::DOUBLE AS published_value,
       od.stage,
       od.source_id,
       od.derived
FROM outstanding_debt AS od JOIN gdp ON gdp.year = od.year
WHERE (CASE WHEN $stage::VARCHAR IS NULL THEN od.most_final ELSE od.stage = $stage::VARCHAR END)
  AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], od.year))
  AND (NOT $last::BOOLEAN OR od.year = (SELECT max(year) FROM outstanding_debt AS latest WHERE (CASE WHEN $stage::VARCHAR IS NULL THEN latest.most_final ELSE latest.stage = $stage::VARCHAR END)))
ORDER BY od.year;
