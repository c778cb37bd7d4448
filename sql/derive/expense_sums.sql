-- Expense amounts summed per (year, organization, category, complementary), once per drop.
-- Every roll-up (totals, categories, trees, organizations) reads these sums instead of the
-- lines: a drop of millions of lines has only thousands of such groups.
-- Parameters: none.
CREATE TABLE expense_sums AS
SELECT year, organization_id, category_id, complementary, sum(amount) AS amount
FROM expenses
GROUP BY year, organization_id, category_id, complementary
ORDER BY year, category_id, organization_id;
