-- Every matching organization, one row each, in the download's columns, for a full download of the
-- organization list without its budget (fields=id,name): no LIMIT, it is streamed.
-- $year   INTEGER[] or NULL   only organizations with lines these years
-- $search VARCHAR or NULL     only organizations whose name or code contains this (see organizations.sql)
-- $stage  VARCHAR             initial, amended or outturn: which lines count (docs/api.md, "Stages")
SELECT o.id,
       o.name,
       o.code
FROM organizations AS o
WHERE ($year::INTEGER[] IS NULL
       OR EXISTS (SELECT 1 FROM organization_year_sums AS s
                  WHERE s.organization_id = o.id AND s.stage = $stage::VARCHAR AND list_contains($year::INTEGER[], s.year)))
  AND ($search::VARCHAR IS NULL
       OR contains(lower(strip_accents(o.name)), lower(strip_accents($search::VARCHAR)))
       OR contains(lower(strip_accents(o.code)), lower(strip_accents($search::VARCHAR))))
ORDER BY o.id;
