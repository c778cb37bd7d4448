-- One page of organizations with their budget, and how many organizations match.
-- $year   INTEGER or NULL   only organizations with lines this year, and only this year's budget
-- $limit  INTEGER           page size (organizations)
-- $offset INTEGER           organizations to skip
-- $stage  VARCHAR           initial, amended or outturn: which lines count (docs/api.md, "Stages")
-- budget is a JSON array (see derive/organization_budgets.sql); with a year it holds that year's
-- entry alone. Of the two branches, the one whose filter matches the parameters returns rows.
-- NOT MATERIALIZED: filtering organizations twice (count, page) is cheaper than materializing them.
WITH matching AS NOT MATERIALIZED (
  SELECT id, name, code, budget FROM organization_budgets
  WHERE stage = $stage::VARCHAR AND $year::INTEGER IS NULL
  UNION ALL
  SELECT o.id,
         o.name,
         o.code,
         to_json([{'year': s.year, 'expenses': s.rounded_expenses, 'resources': s.rounded_resources}])::VARCHAR
  FROM organization_year_sums AS s
  JOIN organizations AS o ON o.id = s.organization_id
  WHERE s.stage = $stage::VARCHAR AND s.year = $year::INTEGER
),
total AS (SELECT count(*) AS count FROM matching),
page AS (SELECT * FROM matching ORDER BY id LIMIT $limit::INTEGER OFFSET $offset::BIGINT)
SELECT total.count, page.id, page.name, page.code, page.budget
FROM total
LEFT JOIN page ON true
ORDER BY page.id;
