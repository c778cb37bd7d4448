-- The expense category tree per year: every category with lines under it, amounts rolled up.
-- $year         INTEGER or NULL   only this year
-- $organization BIGINT or NULL    only lines of this organization
SELECT e.year,
       c.id,
       c.name,
       c.parent_id,
       ROUND(sum(e.amount), 3)::DOUBLE AS amount
FROM expense_sums AS e
JOIN category_closure AS closure ON closure.descendant_id = e.category_id
JOIN categories AS c ON c.id = closure.ancestor_id
WHERE ($year::INTEGER IS NULL OR e.year = $year::INTEGER)
  AND ($organization::BIGINT IS NULL OR e.organization_id = $organization::BIGINT)
GROUP BY e.year, c.id, c.name, c.parent_id
ORDER BY e.year, c.id;
