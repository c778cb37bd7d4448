-- A text field as the CSV that JS writes has it (formats/csv.ts: formulaSafe, then csv-stringify's
-- quoting), for the CSV that DuckDB writes itself with its own quoting off (src/data/export-sql.ts):
-- a leading =, +, -, @, tab or carriage return gets a ' first, so that a spreadsheet does not run
-- it as a formula; a field holding a quote, comma or line break is quoted, its quotes doubled.
-- Parameters: none (s is the caller's).
CREATE MACRO csv_text(s) AS (
  CASE
    WHEN regexp_matches(s, '^[=+\-@\t\r]') THEN csv_text_quoted('''' || s)
    ELSE csv_text_quoted(s)
  END
);
