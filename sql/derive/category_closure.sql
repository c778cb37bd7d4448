-- Every (ancestor, descendant) pair of the category tree, a node being its own ancestor.
-- Built once per drop, after the no-cycle rule has passed, so that roll-ups are plain joins.
-- Parameters: none.
CREATE TABLE category_closure AS
WITH RECURSIVE walk(ancestor_id, descendant_id) AS (
  SELECT id, id FROM categories
  UNION ALL
  SELECT walk.ancestor_id, child.id
  FROM walk JOIN categories AS child ON child.parent_id = walk.descendant_id
)
SELECT ancestor_id, descendant_id FROM walk
ORDER BY descendant_id;
