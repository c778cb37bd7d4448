-- Every organization's name and code by id, kept in JS for the drop's lifetime: pages of lines
-- return ids only, because joining them to their names cost more than finding the page.
-- Parameters: none.
SELECT id, name, code FROM organizations;
