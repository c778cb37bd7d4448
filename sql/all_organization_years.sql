-- Every matching organization's budget, one row per (organization, year), for a full CSV/Arrow
-- export (no LIMIT: it is streamed).
-- $year  INTEGER or NULL   only organizations with lines this year, and only this year's budget
-- $stage VARCHAR           initial, amended or outturn: which lines count (docs/api.md, "Stages")
-- An organization without lines has one row with a null year, expenses and resources (its
-- budget in organizations.sql is []).
WITH budget AS (
  SELECT organization_id, year, rounded_expenses, rounded_resources FROM organization_year_sums
  WHERE stage = $stage::VARCHAR AND ($year::INTEGER IS NULL OR year = $year::INTEGER)
)
SELECT o.id,
       o.name,
       o.code,
       budget.year,
       budget.rounded_expenses AS expenses,
       budget.rounded_resources AS resources
FROM organizations AS o
LEFT JOIN budget ON budget.organization_id = o.id
WHERE $year::INTEGER IS NULL OR budget.organization_id IS NOT NULL
ORDER BY o.id, budget.year;
