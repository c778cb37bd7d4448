-- Outstanding public debt per year, with GDP and the debt as a percentage of GDP.
-- $year INTEGER or NULL   only this year
-- $last BOOLEAN           only the most recent year (year=last)
-- value is left unrounded here: percentages are rounded half away from zero when shaped.
SELECT od.year,
       ROUND(od.outstanding_debt, 3)::DOUBLE AS outstanding_debt,
       ROUND(gdp.gdp, 3)::DOUBLE AS gdp,
       (od.outstanding_debt * 100 / gdp.gdp)::DOUBLE AS value
FROM outstanding_debt AS od JOIN gdp ON gdp.year = od.year
WHERE ($year::INTEGER IS NULL OR od.year = $year::INTEGER)
  AND (NOT $last::BOOLEAN OR od.year = (SELECT max(year) FROM outstanding_debt))
ORDER BY od.year;
