-- Which line stages each year's expense and resource lines have, kept in JS: a stage that counts
-- all of them needs no filter on the lines' stage (src/api/endpoints/lines.ts, lineStagesOf).
-- Parameters: none.
SELECT DISTINCT kind, year, line_stage
FROM line_stage_counts
ORDER BY kind, year, line_stage;
