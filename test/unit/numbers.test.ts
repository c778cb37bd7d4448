/** roundHalfAway: the rounding of every percentage the API answers. */
import { describe, expect, it } from 'vitest';
import { roundHalfAway } from '../../src/domain/numbers.js';

describe('roundHalfAway', () => {
  it.each([
    [4.345, 2, 4.35],
    [-4.345, 2, -4.35],
    [1.005, 2, 1.01],
    [2.675, 2, 2.68],
    [0.125, 2, 0.13],
    [-0.125, 2, -0.13],
    [4.344999, 2, 4.34],
    [1234.5, 0, 1235],
    [-1234.5, 0, -1235],
    [100.1005, 3, 100.101],
  ])('rounds %d to %d decimals as %d, half away from zero', (value, digits, expected) => {
    expect(roundHalfAway(value, digits)).toBe(expected);
  });
  it('takes the float noise of a division away before rounding', () => {
    // 43.45 / 1000 * 100 is 4.3449999999999997 as a double; the exact quotient is 4.345.
    expect((43.45 / 1000) * 100).not.toBe(4.345);
    expect(roundHalfAway((43.45 / 1000) * 100, 2)).toBe(4.35);
  });
  it('leaves 0, infinities and NaN as they are', () => {
    expect(roundHalfAway(0, 2)).toBe(0);
    expect(roundHalfAway(Infinity, 2)).toBe(Infinity);
    expect(roundHalfAway(Number.NaN, 2)).toBeNaN();
  });
  it('keeps every decimal asked for of a figure too large for 15 significant digits to hold them', () => {
    expect(roundHalfAway(1234567890123.456, 3)).toBe(1234567890123.456);
    // 2^40 + 1/16: a half of the third decimal that a double holds exactly.
    expect(roundHalfAway(1099511627776.0625, 3)).toBe(1099511627776.063);
    expect(roundHalfAway(-1099511627776.0625, 3)).toBe(-1099511627776.063);
    expect(roundHalfAway(999999999999.999, 3)).toBe(999999999999.999);
    expect(roundHalfAway(7300000000000.125, 3)).toBe(7300000000000.125);
  });
  it('leaves a figure too large to have the decimals asked for as it is, never NaN', () => {
    for (const value of [1e18, -1e18, 1e21, 1.5e30, 2 ** 53 + 2]) expect(roundHalfAway(value, 3)).toBe(value);
    expect(roundHalfAway(1e21, 2)).toBe(1e21);
  });
  it('rounds figures at their decimals, their neighbours, halves and quotients as reading their digits does', () => {
    // The rounding read digit by digit, as it was before figures at their decimals were passed as they are.
    const byDigits = (value: number, digits: number) => {
      const [mantissa, exponent] = Math.abs(value).toExponential(14).split('e') as [string, string];
      return Math.sign(value) * Number(`${Math.floor(Number(`${mantissa}e${Number(exponent) + digits}`) + 0.5)}e-${digits}`);
    };
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let i = 0; i < 20_000; i++) {
      const digits = i % 4;
      const value = Math.round((random() - 0.5) * 10 ** (2 + (i % 12))) / 10 ** digits;
      const noise = [value * (1 + Number.EPSILON), value * (1 - Number.EPSILON), value * (1 + 4e-15), value * (1 - 4e-15)];
      const halves = [value + 0.5 / 10 ** (digits + 1), value - 0.5 / 10 ** (digits + 1)];
      for (const v of [value, ...noise, ...halves, value / 3, value * 1.0005, (value * 100) / 7, random() * 10 ** (i % 16)]) {
        // Past 10^15 units of the last decimal, digits read at 15 significant ones cut them (below).
        if (Math.abs(v) * 10 ** digits >= 1e15) continue;
        expect(roundHalfAway(v, digits), `${v} to ${digits}`).toBe(byDigits(v, digits));
      }
    }
  });
});
