/**
 * The one place where domain decimals become JSON numbers (rules.md §8a). Whole dollars and percentages are
 * integers; credit counts are exact decimals of at most 6 places and are normalised (24, not 24.0; 10.5 stays
 * 10.5). A value whose decimal form would not survive the trip through a binary double is refused rather than
 * silently changed.
 */

import type { Dec } from './decimal.ts';
import type { DisbursementOption } from './types.ts';

/**
 * Up to 15 significant decimal digits always round-trip through an IEEE-754 double; below 10^15 an integer is
 * also a safe integer.
 */
const MAX_EXACT_DIGITS = 15;

export function toJsonNumber(value: Dec): number {
  // Fast path for the common case, a whole number below 10^7: decimal.js then holds the whole value in its
  // first base-10^7 limb (d[0], with e + 1 digits), so sign × limb is the exact value.
  const limbs = value.d;
  if (limbs !== null && limbs.length === 1 && value.e >= 0 && value.e < 7 && value.isInteger()) {
    const n = value.s * limbs[0]!;
    return n === 0 ? 0 : n;
  }
  if (value.isFinite() && value.e < MAX_EXACT_DIGITS && value.sd() <= MAX_EXACT_DIGITS) {
    const n = value.toNumber();
    return Object.is(n, -0) ? 0 : n;
  }
  throw new Error(`toJsonNumber: ${value.toFixed()} cannot be represented exactly as a JSON number`);
}

export function toDisbursementOption(sub: Dec, unsub: Dec, gradPlus: Dec): DisbursementOption {
  return { subsidized: toJsonNumber(sub), unsubsidized: toJsonNumber(unsub), grad_plus: toJsonNumber(gradPlus) };
}
