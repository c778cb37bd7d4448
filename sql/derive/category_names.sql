-- Every category's name and parent by id, kept in JS for the drop's lifetime: trees and pages of
-- lines return ids only, because converting the same name from DuckDB for every (year, node) cost
-- more than the tree's query, and joining a page's lines to their names cost more than finding the
-- page. The parents give a category's subtree, which a full export filters on as a list (a join
-- would not keep the lines' order, derive/all_lines.sql).
-- Parameters: none.
SELECT id, name, parent_id FROM categories ORDER BY id;
