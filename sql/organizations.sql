-- One page of organizations with their budget per year, and how many organizations match.
-- $year   INTEGER or NULL   only organizations with lines this year, and only this year's budget
-- $limit  INTEGER           page size (organizations)
-- $offset INTEGER           organizations to skip
-- One row per (organization, year); an organization without lines has one row with a null year.
-- NOT MATERIALIZED: filtering organizations twice (count, page) is cheaper than materializing them.
WITH budget AS (
  SELECT organization_id, year, rounded_expenses, rounded_resources FROM organization_year_sums
  WHERE $year::INTEGER IS NULL OR year = $year::INTEGER
),
matching AS NOT MATERIALIZED (
  SELECT id, name, code FROM organizations
  WHERE $year::INTEGER IS NULL OR id IN (SELECT organization_id FROM budget)
),
total AS (SELECT count(*) AS count FROM matching),
page AS (SELECT * FROM matching ORDER BY id LIMIT $limit::INTEGER OFFSET $offset::BIGINT)
SELECT total.count,
       page.id,
       page.name,
       page.code,
       budget.year,
       budget.rounded_expenses AS expenses,
       budget.rounded_resources AS resources
FROM total
LEFT JOIN page ON true
LEFT JOIN budget ON budget.organization_id = page.id
ORDER BY page.id, budget.year;
