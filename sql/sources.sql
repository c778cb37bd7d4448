-- The drop's sources (docs/data-drops.md, "Sources"), for /budget/api/sources/.
-- Parameters: none.
SELECT id, title, url, publisher, published, quote
FROM sources
ORDER BY id;
