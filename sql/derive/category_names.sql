-- Every category's name by id, kept in JS for the drop's lifetime: trees and pages of lines return
-- ids only, because converting the same name from DuckDB for every (year, node) cost more than
-- the tree's query, and joining a page's lines to their names cost more than finding the page.
-- Parameters: none.
SELECT id, name FROM categories;
