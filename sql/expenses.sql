-- One page of expense lines, and how many lines match.
-- $year     INTEGER[] or NULL   only these years
-- $category BIGINT or NULL      only lines of this category and its subtree
-- $stage    VARCHAR             initial, amended or outturn: which lines count (docs/api.md, "Stages")
-- $limit    INTEGER             page size
-- $offset   INTEGER             lines to skip
-- A page is found as every paged list of lines finds it (derive/line_page.sql). Categories and
-- organizations are named from the drop's names by id (derive/category_names.sql,
-- organization_names.sql). One organization's lines: expenses_of_organization.sql.
SELECT count, id, year, ROUND(amount, 3)::DOUBLE AS amount, category_id, organization_id, stage, source_id, derived
FROM expenses_page($stage::VARCHAR, $year::INTEGER[], $category::BIGINT, $limit::INTEGER, $offset::BIGINT)
ORDER BY id;
