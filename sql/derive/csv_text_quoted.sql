-- A CSV field, quoted with its quotes doubled when it holds a quote, a comma or a line break (as
-- csv-stringify writes it); else as it is. The tail of csv_text (derive/csv_text.sql).
-- Parameters: none (t is the caller's).
CREATE MACRO csv_text_quoted(t) AS (
  CASE WHEN regexp_matches(t, '[",\r\n]') THEN '"' || replace(t, '"', '""') || '"' ELSE t END
);
