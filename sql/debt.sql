-- Debt per year and origin, each origin's value rolled up over its subtree, at one stage per year.
-- $year       INTEGER[] or NULL only these years
-- $top_level  BOOLEAN           only origins without a parent (parent=null)
-- $parent     BIGINT or NULL    only the children of this origin
-- $stage      VARCHAR or NULL   initial, amended or outturn; null: each year's most final stage
--                               (outturn, then amended, then initial; derive/debt_stages.sql)
-- A series without a stage column has one row per year, of no stated stage (null): it is the
-- year's row by default, and no stage asked for matches it.
-- A rolled-up row is derived when a row summed into it is; its source is the one source of
-- every row summed into it, or null.
WITH rolled AS (
  SELECT debt.year,
         debt.stage,
         closure.ancestor_id AS id,
         sum(debt.value) AS value,
         CASE WHEN count(DISTINCT debt.source_id) = 1 AND count(debt.source_id) = count(*) THEN min(debt.source_id) END AS source_id,
         bool_or(debt.derived) AS derived
  FROM debt
  JOIN debt_origin_closure AS closure ON closure.descendant_id = debt.debt_origin_id
  WHERE ($year::INTEGER[] IS NULL OR list_contains($year::INTEGER[], debt.year))
    AND (CASE WHEN $stage::VARCHAR IS NULL THEN debt.most_final ELSE debt.stage = $stage::VARCHAR END)
  GROUP BY debt.year, debt.stage, closure.ancestor_id
)
SELECT rolled.year,
       o.id,
       o.parent_id AS parent,
       o.name,
       ROUND(rolled.value, 3)::DOUBLE AS value,
       rolled.stage,
       rolled.source_id,
       rolled.derived
FROM rolled JOIN debt_origins AS o ON o.id = rolled.id
WHERE (NOT $top_level::BOOLEAN OR o.parent_id IS NULL)
  AND ($parent::BIGINT IS NULL OR o.parent_id = $parent::BIGINT)
ORDER BY rolled.year, o.id;
