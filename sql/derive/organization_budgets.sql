-- Each organization with its whole budget per stage, already the JSON array the organization list
-- shows (one entry per year with lines of the stage, ordered by year: list_sort orders the entries by their first field, cheaper than an ordered
-- aggregate; [] without). Built once per
-- drop: a page of organizations is then one row per organization, not one per (organization,
-- year), which halves the list's cost. to_json writes doubles so that they read back as the same
-- numbers. Every organization has a row for every stage.
-- Parameters: none.
CREATE TABLE organization_budgets AS
SELECT stages.stage,
       o.id,
       o.name,
       o.code,
       coalesce(
         to_json(list_sort(list({'year': s.year, 'expenses': s.rounded_expenses, 'resources': s.rounded_resources})
                           FILTER (WHERE s.year IS NOT NULL))),
         '[]'
       )::VARCHAR AS budget
FROM organizations AS o
CROSS JOIN (SELECT DISTINCT stage FROM stage_lines) AS stages
LEFT JOIN organization_year_sums AS s ON s.organization_id = o.id AND s.stage = stages.stage
GROUP BY stages.stage, o.id, o.name, o.code
ORDER BY stages.stage, o.id;
