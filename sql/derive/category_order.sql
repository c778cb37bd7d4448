-- Every category's place in the category tree read depth first (a parent before its children,
-- siblings by id), and the place of the last category of its subtree: a category's subtree is then
-- the categories placed between the two, which the lines kept in category order
-- (derive/lines_by_category.sql) hold side by side.
-- Built once per drop that keeps such copies (keepLinesInOrder in src/data/derived.ts), in the
-- database in_order, after the no-cycle and depth rules have passed. A path of ids sorts before
-- every path it begins, so ordering by path reads the tree depth first.
-- Parameters: none.
CREATE TABLE in_order.category_order AS
WITH RECURSIVE walk(id, path) AS (
  SELECT id, [id] FROM categories WHERE parent_id IS NULL
  UNION ALL
  SELECT child.id, list_append(walk.path, child.id)
  FROM walk JOIN categories AS child ON child.parent_id = walk.id
),
placed AS (SELECT id, (row_number() OVER (ORDER BY path))::INTEGER AS place FROM walk)
SELECT placed.id AS category_id, placed.place, (placed.place + count(*) - 1)::INTEGER AS last_place
FROM placed JOIN category_closure ON category_closure.ancestor_id = placed.id
GROUP BY placed.id, placed.place
ORDER BY placed.place;
