-- Expenses and resources per year, apart for lines of complementary finance laws, summed once
-- per drop so that totals reads a few dozen rows.
-- Parameters: none.
CREATE TABLE year_totals AS
SELECT sums.year,
       sums.complementary,
       sum(CASE WHEN c.type = 'expense' THEN sums.amount ELSE 0 END) AS expenses,
       sum(CASE WHEN c.type = 'resource' THEN sums.amount ELSE 0 END) AS resources
FROM category_year_sums AS sums JOIN categories AS c ON c.id = sums.category_id
GROUP BY sums.year, sums.complementary
ORDER BY sums.year, sums.complementary;
