-- One page of expense lines of every category, or of one category's (and its subtree's) or one
-- organization's: the matching lines between two ids, past the first $skip of them, which the
-- anchors give (located in src/api/endpoints/lines.ts, src/data/line-anchors.ts); how many lines
-- match is counted at load (derive/line_counts_by_year.sql, the anchors). One organization's lines
-- of a category: expenses_of_organization.sql.
-- $organization BIGINT or NULL     only this organization's lines
-- $year_from   INTEGER or NULL     only lines of this year or later, and at most $year_to; NULL: every year
-- $year_to     INTEGER or NULL
-- $year        INTEGER[] or NULL   only these years, when they leave gaps between $year_from and $year_to
-- $leaf_category BIGINT or NULL   only this category, when it has no subcategories (compared in the scan, faster than a list)
-- $categories  BIGINT[] or NULL    only these categories (a category and its subtree, from JS), when it has subcategories
-- $line_stages VARCHAR[] or NULL   the line stages the asked stage counts (LINES_OF in src/domain/stages.ts); NULL: every line
-- $limit       INTEGER             page size
-- $from_id     BIGINT              where the page lies: the matching lines between these ids,
-- $to_id       BIGINT              past the first $skip of them
-- $skip        BIGINT
-- One plain statement: DuckDB plans a statement with parameters again at every run, and this
-- one plans in a third of the time of one that also counts (docs/performance.md#what-is-still-slow).
-- Each `AND ($x IS NULL OR ...)` line is left out of the statement when $x is NULL
-- (src/data/sql.ts variantsOf): each condition costs planning too.
-- No ORDER BY: the table is kept in id order, and a scan of one table comes in table order
-- (preserve_insertion_order), as the full exports read it; sorting the page cost 0.3-1.3 ms of
-- DuckDB's 2-3 ms (scripts/bench/query-time.ts).
-- The years come as bounds, and as a list only when they leave gaps: DuckDB tests `year BETWEEN` in
-- its scan before it reads the other columns, where it tests a list line by line (1M lines: one
-- sparse category's page of one year 7.5 -> 6.7 ms, of five years 8.2 -> 5.6 ms, p50).
-- Categories and organizations are named from the drop's names by id (derive/category_names.sql,
-- organization_names.sql).
SELECT id, year, ROUND(amount, 3)::DOUBLE AS amount, category_id, organization_id, stage, source_id, derived
FROM expenses
WHERE id BETWEEN $from_id::BIGINT AND $to_id::BIGINT
  AND ($organization::BIGINT IS NULL OR organization_id = $organization::BIGINT)
  AND ($year_from::INTEGER IS NULL OR year BETWEEN $year_from::INTEGER AND $year_to::INTEGER)
  AND ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], year))
  AND ($leaf_category::BIGINT IS NULL OR category_id = $leaf_category::BIGINT)
  AND ($categories::BIGINT[] IS NULL OR list_contains($categories::BIGINT[], category_id))
  AND ($line_stages::VARCHAR[] IS NULL OR list_contains($line_stages::VARCHAR[], stage))
LIMIT $limit::INTEGER OFFSET $skip::BIGINT;
