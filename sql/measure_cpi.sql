-- Consumer price index per year, by which measure=real deflates (see src/measures.ts).
-- Parameters: none.
SELECT year, "index"::DOUBLE AS value FROM cpi ORDER BY year;
