-- One page of resource lines, and how many lines match.
-- $year     INTEGER[] or NULL   only these years
-- $category BIGINT or NULL      only lines of this category and its subtree
-- $stage    VARCHAR             initial, amended or outturn: which lines count (docs/api.md, "Stages")
-- $limit    INTEGER             page size
-- $offset   INTEGER             lines to skip
-- A page is found as in expenses.sql (derive/line_page.sql). The source (the category's name)
-- comes from the drop's names by id (derive/category_names.sql).
SELECT count, id, year, ROUND(amount, 3)::DOUBLE AS amount, category_id, stage, source_id, derived
FROM resources_page($stage::VARCHAR, $year::INTEGER[], $category::BIGINT, $limit::INTEGER, $offset::BIGINT)
ORDER BY id;
