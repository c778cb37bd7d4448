-- Every expense line matching the filter, for a full CSV/Arrow export (no LIMIT: it is streamed).
-- $year         INTEGER or NULL   only this year
-- $organization BIGINT or NULL    only lines of this organization
-- Columns are the download's columns: the organization flattened with `_`, as in expenses.sql.
SELECT e.id,
       e.year,
       ROUND(e.amount, 3)::DOUBLE AS amount,
       c.name AS category,
       o.id AS organization_id,
       o.name AS organization_name,
       o.code AS organization_code
FROM expenses AS e
JOIN categories AS c ON c.id = e.category_id
JOIN organizations AS o ON o.id = e.organization_id
WHERE ($year::INTEGER IS NULL OR e.year = $year::INTEGER)
  AND ($organization::BIGINT IS NULL OR e.organization_id = $organization::BIGINT)
ORDER BY e.id;
