-- Every category's place in category order and its subtree's last (derive/category_order.sql),
-- kept in JS: a page of a category's lines read in category order binds the two.
-- Parameters: none.
SELECT category_id, place, last_place FROM in_order.category_order ORDER BY place;
