-- A second copy of a table of lines, kept in category order (derive/category_order.sql), then by
-- year and id: one category's lines, with its subtree's, lie side by side, so that a page of a
-- category whose lines are few and far apart among the ids reads only them
-- (expenses_by_category.sql, resources_by_category.sql) rather than most of the table between two
-- of its anchors. Made from one text for each table of lines (data/derived.ts names `line_table`),
-- only for drops not stored compressed (src/data/drop.ts).
-- In the database in_order, compressed (keepLinesInOrder in src/data/derived.ts).
-- Parameters: none.
CREATE TABLE in_order.line_table_by_category AS
SELECT line_table.*, category_order.place AS category_place
FROM line_table JOIN in_order.category_order AS category_order USING (category_id)
ORDER BY category_place, year, id;
