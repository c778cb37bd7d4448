-- Total expenses and resources per year, and their balance: the difference of the two totals as
-- they are shown (to the thousandth), so that a reader's own subtraction gives it; the same as the
-- exact difference for amounts recorded to the thousandth.
-- $year  INTEGER[] or NULL   only these years
-- $stage VARCHAR             initial, amended or outturn: which lines count (docs/api.md, "Stages")
SELECT year,
       ROUND(expenses, 3)::DOUBLE AS total_expenses,
       ROUND(resources, 3)::DOUBLE AS total_resources,
       ROUND(ROUND(resources, 3) - ROUND(expenses, 3), 3)::DOUBLE AS balance,
       source_ids,
       derived
FROM year_totals
WHERE stage = $stage::VARCHAR
  AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year))
ORDER BY year;
