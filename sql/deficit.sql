-- The budget deficit per year, with GDP and the deficit as a percentage of GDP.
-- Parameters: none.
-- percent is left unrounded here: percentages are rounded half away from zero when shaped.
SELECT d.year,
       ROUND(d.value, 3)::DOUBLE AS value,
       (d.value * 100 / gdp.gdp)::DOUBLE AS percent,
       ROUND(gdp.gdp, 3)::DOUBLE AS gdp
FROM deficit AS d JOIN gdp ON gdp.year = d.year
ORDER BY d.year;
