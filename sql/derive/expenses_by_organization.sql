-- A second copy of the expense lines, kept in organization order, then by year and id: one
-- organization's lines lie side by side, so that a page of an organization whose lines are few
-- and far apart among the ids reads only them (expenses_by_organization.sql) rather than most of
-- the table between two of its anchors. Only for drops that are not stored compressed
-- (src/data/drop.ts).
-- In the database in_order, compressed (keepLinesInOrder in src/data/derived.ts).
-- Parameters: none.
CREATE TABLE in_order.expenses_by_organization AS
SELECT * FROM expenses ORDER BY organization_id, year, id;
