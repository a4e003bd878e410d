/**
 * Rounding rules of rules.md §1, done exactly: no quotient is ever rounded to a working precision first.
 *
 * - Dollar rounding: half up to a whole dollar.
 * - Percent rounding: half up to a whole percent, computed as an exact rational `100 × a ÷ b`.
 */

import { Dec, HUNDRED, TWO } from './decimal.ts';

/** Half up to a whole number (2.5 → 3, 2.4999 → 2). For the non-negative values of this domain. */
export function roundHalfUp(x: Dec): Dec {
  return x.toDecimalPlaces(0, Dec.ROUND_HALF_UP);
}

/** Dollar rounding (rules.md §1): half up to a whole dollar. */
export function roundDollars(x: Dec): Dec {
  return roundHalfUp(x);
}

/**
 * `round_half_up(a ÷ b)` for a ≥ 0 and b > 0, exactly: floor((2a + b) ÷ 2b). decimal.js's integer division
 * truncates without rounding to a working precision, so the result is exact for any size of a and b.
 */
export function roundHalfUpDiv(a: Dec, b: Dec): Dec {
  const twoB = b.times(TWO);
  return a.times(TWO).plus(b).divToInt(twoB);
}

const TWO_HUNDRED = new Dec(200);

/**
 * `round_half_up(100 × part ÷ whole)`: a whole percent (62.5 → 63, 87.5 → 88, 83.33 → 83). whole > 0.
 * roundHalfUpDiv(100 × part, whole) with 2 × 100 × part folded into one product: floor((200 part + whole) ÷ 2 whole).
 */
export function percentHalfUp(part: Dec, whole: Dec): Dec {
  return part.times(TWO_HUNDRED).plus(whole).divToInt(whole.times(TWO));
}

/** `round_half_up(amount × percent ÷ 100)` in whole dollars: the reduced annual amount of rules.md §3. */
export function applyPercent(amount: Dec, percent: Dec): Dec {
  return roundHalfUp(amount.times(percent).dividedBy(HUNDRED));
}
