-- Each organization with its whole budget, already the JSON array the organization list shows
-- (one entry per year with lines, ordered by year; [] without lines). Built once per drop: a page
-- of organizations is then one row per organization, not one per (organization, year), which
-- halves the list's cost. to_json writes doubles so that they read back as the same numbers.
-- Parameters: none.
CREATE TABLE organization_budgets AS
SELECT o.id,
       o.name,
       o.code,
       coalesce(
         to_json(list({'year': s.year, 'expenses': s.rounded_expenses, 'resources': s.rounded_resources} ORDER BY s.year)
                 FILTER (WHERE s.year IS NOT NULL)),
         '[]'
       )::VARCHAR AS budget
FROM organizations AS o
LEFT JOIN organization_year_sums AS s ON s.organization_id = o.id
GROUP BY o.id, o.name, o.code
ORDER BY o.id;
