-- Every resource line matching the filter, for a full download (no LIMIT: it is streamed): the
-- download's columns (docs/api.md#columns), with ids where the download has names, in id order
-- without ORDER BY (derive/all_lines.sql).
-- $year     INTEGER[] or NULL only these years
-- $category BIGINT or NULL    only lines of this category and its subtree
-- $stage    VARCHAR           initial, amended or outturn: which lines count (as sql/derive/stage_lines.sql; docs/api.md, "Stages")
SELECT id, year, amount, category_id, stage, source_id, derived
FROM resources_all($stage::VARCHAR, $year::INTEGER[], $category::BIGINT);
