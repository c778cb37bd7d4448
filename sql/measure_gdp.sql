-- GDP per year, which measure=pct_gdp divides by (see src/measures.ts).
-- Parameters: none.
SELECT year, gdp::DOUBLE AS value FROM gdp ORDER BY year;
