-- One page of the expense lines of one category and its subtree in several years, and how many
-- lines match (in every year or in one: expenses.sql, between two anchors).
-- $category    BIGINT              the category
-- $year        INTEGER[] or NULL   only these years
-- $line_stages VARCHAR[] or NULL   the line stages the asked stage counts (LINES_OF in src/domain/stages.ts); NULL: every line
-- $limit       INTEGER             page size
-- $skip        BIGINT              the lines before the page
-- Found as every page of a category's lines is (derive/line_page.sql).
SELECT count, id, year, ROUND(amount, 3)::DOUBLE AS amount, category_id, organization_id, stage, source_id, derived
FROM expenses_category_page($line_stages::VARCHAR[], $year::INTEGER[], $category::BIGINT, $limit::INTEGER, $skip::BIGINT)
ORDER BY id;
