-- The expense category tree per year over one organization's lines: every category with lines
-- of the organization under it, amounts rolled up from the organization's sums per category made
-- at load (derive/organization_category_sums.sql). (Without an organization, category_tree.sql
-- reads the roll-up computed at load.)
-- $organization BIGINT              the organization
-- $year         INTEGER[] or NULL   only these years
-- $stage        VARCHAR             initial, amended or outturn: which lines count (as sql/derive/stage_lines.sql; docs/api.md, "Stages")
-- Names are not read here: the drop keeps them by id (derive/category_names.sql).
SELECT e.year,
       c.id,
       c.parent_id,
       ROUND(sum(e.amount), 3)::DOUBLE AS amount
FROM organization_category_sums AS e
JOIN category_closure AS closure ON closure.descendant_id = e.category_id
JOIN categories AS c ON c.id = closure.ancestor_id
WHERE e.organization_id = $organization::BIGINT
  AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], e.year))
  AND e.stage IN (SELECT line_stage FROM stage_lines WHERE stage_lines.stage = $stage::VARCHAR)
GROUP BY e.year, c.id, c.parent_id
ORDER BY e.year, c.id;
