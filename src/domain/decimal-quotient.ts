/**
 * The one inexact operation of the domain's decimal: a quotient that does not end (1 ÷ 3), rounded half up to
 * 60 significant digits. Only the readings that keep an unrounded percentage (`percentRounding: 'none'`) and the
 * worksheet's shown quotients get here; 60 digits is far beyond what either prints, and a quotient that ends
 * within 60 digits comes out exact. test/domain/decimal.test.ts checks it against decimal.js at precision 60,
 * half up, which is what the service divided with before this was written on the scaled integers.
 */

import { bigPow10 } from './decimal-parts.ts';

/** Significant digits a quotient keeps. */
export const QUOTIENT_DIGITS = 60;

/** A quotient's magnitude: coefficient × 10^-scale, with no trailing zero after the point. */
export interface QuotientParts {
  readonly coefficient: bigint;
  readonly scale: number;
}

/**
 * (a × 10^-sa) ÷ (b × 10^-sb) for magnitudes a > 0, b > 0, rounded half up to QUOTIENT_DIGITS significant digits.
 *
 * With k = QUOTIENT_DIGITS − digits(a) + digits(b), the integer quotient q = ⌊a × 10^k ÷ b⌋ has QUOTIENT_DIGITS or
 * one more digits (a ≥ 10^(digits(a)−1) and b < 10^digits(b) bound it from below, the reverse from above), and the
 * value is q × 10^-(sa − sb + k) plus the remainder's fraction of the last place. The rounding looks at what is
 * dropped: the extra digit when there is one (≥ 5 rounds up, the remainder only adds to it), else the remainder
 * against half the divisor.
 */
export function quotientParts(a: bigint, sa: number, b: bigint, sb: number): QuotientParts {
  const k = QUOTIENT_DIGITS - digitCount(a) + digitCount(b);
  const numerator = k >= 0 ? a * bigPow10(k) : a;
  const divisor = k >= 0 ? b : b * bigPow10(-k);
  let q = numerator / divisor;
  const r = numerator % divisor;
  let scale = sa - sb + k;
  if (digitCount(q) > QUOTIENT_DIGITS) {
    const dropped = q % 10n;
    q = q / 10n + (dropped >= 5n ? 1n : 0n);
    scale--;
  } else if (r * 2n >= divisor) {
    q++;
  }
  // The normal form the parser gives: no trailing zeros after the point, no negative scale.
  while (scale > 0 && q % 10n === 0n) {
    q /= 10n;
    scale--;
  }
  if (scale < 0) {
    q *= bigPow10(-scale);
    scale = 0;
  }
  return { coefficient: q, scale };
}

function digitCount(x: bigint): number {
  return x.toString().length;
}
