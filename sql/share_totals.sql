-- The wholes that measure=share divides by on rows of lines: each year's total expenses and total
-- resources at the stage, every line counted, as totals/ gives them: to the thousandth, as the
-- parts they divide are, so that a whole's one part is 100%. (Debt's whole is the year's
-- top-level origins, read with debt.sql.)
-- $year  INTEGER[] or NULL   only these years
-- $stage VARCHAR             initial, amended or outturn: which lines count (docs/api.md, "Stages")
SELECT year, kind, ROUND(total, 3)::DOUBLE AS total
FROM (
  SELECT year, 'expense' AS kind, expenses AS total FROM year_totals WHERE stage = $stage::VARCHAR
  UNION ALL
  SELECT year, 'resource', resources FROM year_totals WHERE stage = $stage::VARCHAR
) AS totals
WHERE $year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year)
ORDER BY year, kind;
