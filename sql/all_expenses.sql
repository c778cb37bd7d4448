-- Every expense line matching the filter, for a full download (no LIMIT: it is streamed): the
-- download's columns (docs/api.md#columns), with ids where the download has names, in id order
-- without ORDER BY (derive/all_lines.sql).
-- $year         INTEGER[] or NULL only these years
-- $organization BIGINT or NULL    only lines of this organization
-- $category     BIGINT or NULL    only lines of this category and its subtree
-- $stage        VARCHAR           initial, amended or outturn: which lines count (as sql/derive/stage_lines.sql; docs/api.md, "Stages")
SELECT id, year, amount, category_id, organization_id, stage, source_id, derived
FROM expenses_all($stage::VARCHAR, $year::INTEGER[], $category::BIGINT)
WHERE $organization::BIGINT IS NULL OR organization_id = $organization::BIGINT;
