-- Every resource line matching the filter, for a full CSV/Arrow export (no LIMIT: it is streamed).
-- $year INTEGER or NULL   only this year
-- In id order without ORDER BY, and named from the drop's names by id, as in all_expenses.sql.
SELECT id,
       year,
       ROUND(amount, 3)::DOUBLE AS amount,
       category_id
FROM resources
WHERE $year::INTEGER IS NULL OR year = $year::INTEGER;
