-- Every matching organization's budget, one row per (organization, year), in the download's columns,
-- for a full download (no LIMIT: it is streamed).
-- $year   INTEGER[] or NULL   only organizations with lines these years, and only these years' budget
-- $search VARCHAR or NULL     only organizations whose name or code contains this (see organizations.sql)
-- $stage  VARCHAR             initial, amended or outturn: which lines count (docs/api.md, "Stages")
-- An organization without lines has one row with a null year, expenses and resources (its
-- budget in organizations.sql is []).
WITH budget AS (
  SELECT organization_id, year, rounded_expenses, rounded_resources FROM organization_year_sums
  WHERE stage = $stage::VARCHAR AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year))
)
SELECT o.id,
       o.name,
       o.code,
       budget.year,
       budget.rounded_expenses AS expenses,
       budget.rounded_resources AS resources
FROM organizations AS o
LEFT JOIN budget ON budget.organization_id = o.id
WHERE ($year::INTEGER[] IS NULL OR budget.organization_id IS NOT NULL)
  AND ($search::VARCHAR IS NULL
       OR contains(lower(strip_accents(o.name)), lower(strip_accents($search::VARCHAR)))
       OR contains(lower(strip_accents(o.code)), lower(strip_accents($search::VARCHAR))))
ORDER BY o.id, budget.year;
