-- How many expense and resource lines each stage counts in each year, kept in JS: at most that
-- many lines match a full export's filters, and a small export is read whole rather than
-- streamed (src/data/store.ts, ServedDrop.chunks).
-- Parameters: none.
SELECT kind, stage, year, sum(lines)::BIGINT AS lines
FROM line_counts
GROUP BY kind, stage, year
ORDER BY kind, stage, year;
