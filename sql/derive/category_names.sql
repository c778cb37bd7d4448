-- Every category's name by id, kept in JS for the drop's lifetime: tree queries return ids only,
-- because converting the same name from DuckDB for every (year, node) cost more than the query.
-- Parameters: none.
SELECT id, name FROM categories;
