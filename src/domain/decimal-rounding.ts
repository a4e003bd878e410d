/**
 * Rounding modes of the domain's decimal (src/domain/decimal.ts), numbered as decimal.js numbers them, and the one
 * decision every mode makes: whether a value cut to fewer places moves one unit away from zero. The class rounds
 * JS-number coefficients itself (the hot path) and hands the BigInt ones to roundMagnitude here.
 */

import { bigPow10 } from './decimal-parts.ts';

export const ROUND_UP = 0;
export const ROUND_DOWN = 1;
export const ROUND_CEIL = 2;
export const ROUND_FLOOR = 3;
export const ROUND_HALF_UP = 4;
export const ROUND_HALF_DOWN = 5;
export const ROUND_HALF_EVEN = 6;
export const ROUND_HALF_CEIL = 7;
export const ROUND_HALF_FLOOR = 8;

/** `rm` says whether to add one to the magnitude q, given the dropped part 2r against the unit p (r ≠ 0). */
export function roundsAway(rm: number, negative: boolean, odd: boolean, twiceR: number, p: number): boolean {
  return roundsAwayCmp(rm, negative, odd, twiceR < p ? -1 : twiceR > p ? 1 : 0);
}

/** As roundsAway, given the dropped part against half a unit (`cmpHalf` −1, 0 or 1). */
export function roundsAwayCmp(rm: number, negative: boolean, odd: boolean, cmpHalf: number): boolean {
  switch (rm) {
    case ROUND_UP:
      return true;
    case ROUND_DOWN:
      return false;
    case ROUND_CEIL:
      return !negative;
    case ROUND_FLOOR:
      return negative;
    case ROUND_HALF_UP:
      return cmpHalf >= 0;
    case ROUND_HALF_DOWN:
      return cmpHalf > 0;
    case ROUND_HALF_EVEN:
      return cmpHalf > 0 || (cmpHalf === 0 && odd);
    case ROUND_HALF_CEIL:
      return cmpHalf > 0 || (cmpHalf === 0 && !negative);
    case ROUND_HALF_FLOOR:
      return cmpHalf > 0 || (cmpHalf === 0 && negative);
    default:
      throw new Error(`[DecimalError] Invalid rounding mode: ${rm}`);
  }
}

/** The magnitude m (of a value whose sign is `negative`) with its last k digits rounded off under mode rm. */
export function roundMagnitude(m: bigint, k: number, rm: number, negative: boolean): bigint {
  const p = bigPow10(k);
  const r = m % p;
  const q = m / p;
  if (r === 0n) return q;
  const twice = r * 2n;
  const cmpHalf = twice < p ? -1 : twice > p ? 1 : 0;
  return roundsAwayCmp(rm, negative, q % 2n === 1n, cmpHalf) ? q + 1n : q;
}
