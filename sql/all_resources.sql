-- Every resource line matching the filter, for a full CSV/Arrow export (no LIMIT: it is streamed).
-- $year INTEGER or NULL   only this year
SELECT r.id,
       r.year,
       ROUND(r.amount, 3)::DOUBLE AS amount,
       c.name AS source
FROM resources AS r
JOIN categories AS c ON c.id = r.category_id
WHERE $year::INTEGER IS NULL OR r.year = $year::INTEGER
ORDER BY r.id;
