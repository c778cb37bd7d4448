-- Population per year, which measure=per_capita divides by (see src/measures.ts).
-- Parameters: none.
SELECT year, population::DOUBLE AS value FROM population ORDER BY year;
