-- The years each table of figures has, per stage where the table has stages (lines: their own
-- stage; a series without a stage column: null), for /budget/api/meta/'s coverage and gaps. The
-- lines' years come from category_year_sums (built before), not from another pass over every line.
-- Parameters: none.
SELECT DISTINCT CASE c.type WHEN 'expense' THEN 'expenses' ELSE 'resources' END AS table_name, s.stage, s.year
FROM category_year_sums AS s JOIN categories AS c ON c.id = s.category_id
UNION ALL SELECT DISTINCT 'debt', stage, year FROM debt
UNION ALL SELECT DISTINCT 'outstanding_debt', stage, year FROM outstanding_debt
UNION ALL SELECT DISTINCT 'deficit', stage, year FROM deficit
UNION ALL SELECT DISTINCT 'gdp', NULL, year FROM gdp
UNION ALL SELECT DISTINCT 'population', NULL, year FROM population
UNION ALL SELECT DISTINCT 'cpi', NULL, year FROM cpi
ORDER BY ALL;
