-- A number given as its sign, its significant digits and its decimal exponent (d.ddd × 10^e),
-- written as JavaScript's String() writes it: plain digits from 1e-7 up to 1e21, else
-- d.ddde+21 / d.ddde-7. The tail of js_number (derive/js_number.sql), for DuckDB's exponent forms.
-- Parameters: none (sign, digits and e are the caller's).
CREATE MACRO js_digits(sign, digits, e) AS (
  sign || CASE
    WHEN e >= 21 OR e <= -7
      THEN digits[1] || CASE WHEN length(digits) > 1 THEN '.' || digits[2:] ELSE '' END
           || 'e' || CASE WHEN e > 0 THEN '+' ELSE '-' END || abs(e)::VARCHAR
    WHEN e + 1 >= length(digits) THEN digits || repeat('0', e + 1 - length(digits))
    WHEN e >= 0 THEN digits[1:e + 1] || '.' || digits[e + 2:]
    ELSE '0.' || repeat('0', -e - 1) || digits
  END
);
