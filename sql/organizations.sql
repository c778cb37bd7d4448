-- One page of organizations with their budget, and how many organizations match.
-- $year   INTEGER[] or NULL   only organizations with lines these years, and only these years' budget
-- $search VARCHAR or NULL     only organizations whose name or code contains this, ignoring case and accents
-- $limit  INTEGER             page size (organizations)
-- $offset INTEGER             organizations to skip
-- $stage  VARCHAR             initial, amended or outturn: which lines count (docs/api.md, "Stages")
-- budget is a JSON array (see derive/organization_budgets.sql); with years it holds those years'
-- entries alone, ordered by year (list_sort orders by the first field: 1M lines, 0.65 ms against
-- 1.39 ms for list(... ORDER BY year)). Of the two branches, the one whose filter matches the parameters returns rows.
-- NOT MATERIALIZED: filtering organizations twice (count, page) is cheaper than materializing them.
WITH matching AS NOT MATERIALIZED (
  SELECT id, name, code, budget FROM organization_budgets
  WHERE stage = $stage::VARCHAR AND $year::INTEGER[] IS NULL
  UNION ALL
  SELECT o.id,
         o.name,
         o.code,
         to_json(list_sort(list({'year': s.year, 'expenses': s.rounded_expenses, 'resources': s.rounded_resources})))::VARCHAR
  FROM organization_year_sums AS s
  JOIN organizations AS o ON o.id = s.organization_id
  WHERE s.stage = $stage::VARCHAR AND list_contains($year::INTEGER[], s.year)
  GROUP BY o.id, o.name, o.code
),
searched AS NOT MATERIALIZED (
  SELECT * FROM matching
  WHERE $search::VARCHAR IS NULL
     OR contains(lower(strip_accents(name)), lower(strip_accents($search::VARCHAR)))
     OR contains(lower(strip_accents(code)), lower(strip_accents($search::VARCHAR)))
),
total AS (SELECT count(*) AS count FROM searched),
page AS (SELECT * FROM searched ORDER BY id LIMIT $limit::INTEGER OFFSET $offset::BIGINT)
SELECT total.count, page.id, page.name, page.code, page.budget
FROM total
LEFT JOIN page ON true
ORDER BY page.id;
