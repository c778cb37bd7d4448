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
});
