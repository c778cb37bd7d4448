-- The resource category tree per year: every category with lines under it, amounts rolled up.
-- $year INTEGER or NULL   only this year
SELECT r.year,
       c.id,
       c.name,
       c.parent_id,
       ROUND(sum(r.amount), 3)::DOUBLE AS amount
FROM resource_sums AS r
JOIN category_closure AS closure ON closure.descendant_id = r.category_id
JOIN categories AS c ON c.id = closure.ancestor_id
WHERE $year::INTEGER IS NULL OR r.year = $year::INTEGER
GROUP BY r.year, c.id, c.name, c.parent_id
ORDER BY r.year, c.id;
