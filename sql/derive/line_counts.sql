-- How many expense and resource lines each (stage, year, organization) has, so that the paged
-- lists count the lines matching a filter from a few thousand rows instead of millions. `stage`
-- is the API's stage (initial, amended, outturn).
-- Parameters: none.
CREATE TABLE line_counts AS
SELECT lines.kind, stage_lines.stage, lines.year, lines.organization_id, sum(lines.lines) AS lines
FROM line_stage_counts AS lines
JOIN stage_lines ON stage_lines.line_stage = lines.line_stage
GROUP BY lines.kind, stage_lines.stage, lines.year, lines.organization_id
ORDER BY lines.kind, stage_lines.stage, lines.year, lines.organization_id;
