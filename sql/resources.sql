-- One page of resource lines, and how many lines match.
-- $year     INTEGER[] or NULL   only these years
-- $category    BIGINT or NULL    only lines of this category and its subtree
-- $stage       VARCHAR           initial, amended or outturn: the stage asked (docs/api.md, "Stages")
-- $line_stages VARCHAR[]         the line stages it counts (LINES_OF in src/domain/stages.ts)
-- $limit    INTEGER             page size
-- $from_id  BIGINT              where the page lies: the matching lines between these ids,
-- $to_id    BIGINT              past the first $skip of them (src/data/line-anchors.ts)
-- $skip     BIGINT
-- A page is found as in expenses.sql (derive/line_page.sql). The source (the category's name)
-- comes from the drop's names by id (derive/category_names.sql).
SELECT count, id, year, ROUND(amount, 3)::DOUBLE AS amount, category_id, stage, source_id, derived
FROM resources_page($stage::VARCHAR, $line_stages::VARCHAR[], $year::INTEGER[], $category::BIGINT, $limit::INTEGER, $from_id::BIGINT, $to_id::BIGINT, $skip::BIGINT)
ORDER BY id;
