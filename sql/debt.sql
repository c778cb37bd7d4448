-- Debt per year and origin, each origin's value rolled up over its subtree.
-- $year       INTEGER or NULL   only this year
-- $top_level  BOOLEAN           only origins without a parent (parent=null)
-- $parent     BIGINT or NULL    only the children of this origin
WITH rolled AS (
  SELECT debt.year, closure.ancestor_id AS id, sum(debt.value) AS value
  FROM debt JOIN debt_origin_closure AS closure ON closure.descendant_id = debt.debt_origin_id
  WHERE $year::INTEGER IS NULL OR debt.year = $year::INTEGER
  GROUP BY debt.year, closure.ancestor_id
)
SELECT rolled.year,
       o.id,
       o.parent_id AS parent,
       o.name,
       ROUND(rolled.value, 3)::DOUBLE AS value
FROM rolled JOIN debt_origins AS o ON o.id = rolled.id
WHERE (NOT $top_level::BOOLEAN OR o.parent_id IS NULL)
  AND ($parent::BIGINT IS NULL OR o.parent_id = $parent::BIGINT)
ORDER BY rolled.year, o.id;
