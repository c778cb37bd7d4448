-- Each organization's expense amounts per (year, category, line stage), in organization order.
-- Built once per drop for one organization's category tree (organization_expense_tree.sql): kept
-- in organization order, DuckDB's zone maps then read only that organization's row groups instead
-- of scanning every line (1M lines: about 9 ms a tree before). Exact DECIMAL sums, so the tree's
-- amounts are the lines' to the cent.
-- Parameters: none.
CREATE TABLE organization_category_sums AS
SELECT organization_id, year, category_id, stage, sum(amount) AS amount
FROM expenses
GROUP BY organization_id, year, category_id, stage
ORDER BY organization_id, year, category_id, stage;
