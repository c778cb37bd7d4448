-- A DOUBLE as JavaScript's String() writes it, for the CSV that DuckDB writes itself
-- (src/data/export-sql.ts): the same bytes as the CSV that JS writes (formats/csv.ts). Both write
-- the shortest digits that read back as the same double; they differ only in notation. DuckDB
-- writes 1234 as 1234.0 and switches to exponents from 1e16 and below 1e-4 (1e+16, 1e-07), where
-- JS writes plain digits from 1e-7 up to 1e21; -0 is 0 in JS. No subquery: it would be a join,
-- and an export's lines must keep their order (derive/all_lines.sql).
-- Parameters: none (x is the caller's).
CREATE MACRO js_number(x) AS (
  CASE
    -- Most amounts: DuckDB writes them plain, as JS does, but for a trailing .0.
    WHEN abs(x) >= 0.001 AND abs(x) < 1e15 THEN CASE WHEN suffix(x::VARCHAR, '.0') THEN left(x::VARCHAR, -2) ELSE x::VARCHAR END
    WHEN x = 0 THEN '0'
    WHEN NOT contains(x::VARCHAR, 'e') THEN CASE WHEN suffix(x::VARCHAR, '.0') THEN left(x::VARCHAR, -2) ELSE x::VARCHAR END
    ELSE js_digits(
      CASE WHEN x < 0 THEN '-' ELSE '' END,
      replace(regexp_extract(x::VARCHAR, '^-?([0-9.]+)e', 1), '.', ''),
      TRY_CAST(regexp_extract(x::VARCHAR, 'e([-+][0-9]+)$', 1) AS INTEGER))
  END
);
