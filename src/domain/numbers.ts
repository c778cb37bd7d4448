/**
 * Rounds half away from zero to `digits` decimals, as docs/api.md#numbers asks for percentages.
 * Percentages come out of a floating-point division, so 4.345 may arrive as 4.3449999999999997;
 * reading the value at 15 significant digits first (what a double can hold faithfully) removes
 * that noise before rounding, so the result is what the exact quotient rounds to.
 */
export function roundHalfAway(value: number, digits: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  // Reading the value at 15 significant digits moves it by 5e-15 of itself at most, which matters
  // only within that distance of a half: anywhere else the rounding is decided by the value as it
  // is, without strings (10 times faster). r / scale is the double nearest r × 10^-digits, as the
  // parse below gives it (a division of exact integers is correctly rounded).
  const scale = 10 ** digits;
  const x = Math.abs(value) * scale;
  // From 2^52 on, doubles are a unit of the last decimal asked for apart, or more: there is nothing
  // left to round (and 1e18 with three decimals once came out NaN: "1e+21" is not a mantissa).
  if (x >= 2 ** 52) return value;
  // From 10^15 on, 15 significant digits would cut the decimals asked for (1234567890123.456 came
  // out 1234567890123.46), and a double holds no noise below them to take away: rounded as it is
  // (x + 0.5 is exact there).
  if (x >= 1e15 || Math.abs(x - Math.floor(x) - 0.5) > x * 1e-13 + 1e-9) return (Math.sign(value) * Math.floor(x + 0.5)) / scale;
  const [mantissa, exponent] = Math.abs(value).toExponential(14).split('e') as [string, string];
  const shifted = Number(`${mantissa}e${Number(exponent) + digits}`);
  const rounded = Math.floor(shifted + 0.5);
  return Math.sign(value) * Number(`${rounded}e-${digits}`);
}
