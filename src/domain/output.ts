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
  // Fast path for the common case, a coefficient below 10^15 held in a JS number: then the value has at most 15
  // significant digits and is below 10^15 (the conditions below), and toNumber() is c ÷ 10^scale, correctly rounded.
  if (value.big === null && Math.abs(value.c) < 1e15) {
    if (value.scale === 0) return value.c === 0 ? 0 : value.c;
    const n = value.toNumber();
    return n === 0 ? 0 : n;
  }
  // Otherwise: the magnitude's exponent (< 15) and significant digits (≤ 15) from its normal notation.
  const text = value.abs().toFixed();
  const point = text.indexOf('.');
  const whole = point < 0 ? text : text.slice(0, point);
  const digits = (whole === '0' ? '' : whole) + (point < 0 ? '' : text.slice(point + 1));
  const significant = digits.replace(/^0+/, '').replace(/0+$/, '');
  if (whole.length <= MAX_EXACT_DIGITS && significant.length <= MAX_EXACT_DIGITS) {
    const n = value.toNumber();
    return Object.is(n, -0) ? 0 : n;
  }
  throw new Error(`toJsonNumber: ${value.toFixed()} cannot be represented exactly as a JSON number`);
}

export function toDisbursementOption(sub: Dec, unsub: Dec, gradPlus: Dec): DisbursementOption {
  return { subsidized: toJsonNumber(sub), unsubsidized: toJsonNumber(unsub), grad_plus: toJsonNumber(gradPlus) };
}
