/**
 * Rounds half away from zero to `digits` decimals, as docs/api.md#numbers asks for percentages.
 * Percentages come out of a floating-point division, so 4.345 may arrive as 4.3449999999999997;
 * reading the value at 15 significant digits first (what a double can hold faithfully) removes
 * that noise before rounding, so the result is what the exact quotient rounds to.
 */
export function roundHalfAway(value: number, digits: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  const [mantissa, exponent] = Math.abs(value).toExponential(14).split('e') as [string, string];
  const shifted = Number(`${mantissa}e${Number(exponent) + digits}`);
  const rounded = Math.floor(shifted + 0.5);
  return Math.sign(value) * Number(`${rounded}e-${digits}`);
}
