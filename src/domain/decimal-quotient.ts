/**
 * The one inexact operation of the domain's decimal: a quotient that does not end (1 ÷ 3), rounded half up to
 * 60 significant digits. Only the readings that keep an unrounded percentage (`percentRounding: 'none'`) and the
 * worksheet's shown quotients get here; 60 digits is far beyond what either prints, and a quotient that ends
 * within 60 digits comes out exact. test/domain/decimal.test.ts checks it against decimal.js at precision 60,
 * half up, which is what the service divided with before this was written on the scaled integers.
 */

import { MAX_SAFE, POW10, bigPow10, type DecParts } from './decimal-parts.ts';

/** Significant digits a quotient keeps. */
export const QUOTIENT_DIGITS = 60;

/** A quotient's magnitude: coefficient × 10^-scale, with no trailing zero after the point. */
export interface QuotientParts {
  readonly coefficient: bigint;
  readonly scale: number;
}

/**
 * As quotientParts, for magnitudes a > 0, b > 0 that are safe integers (the domain's operands): long division in
 * JS numbers, k digits per step where r × 10^k stays a safe integer (r < b), until the remainder is 0 or there
 * are QUOTIENT_DIGITS + 1 significant digits; the last of those decides the rounding (≥ 5 rounds up: what is
 * dropped is then at least half a unit). Null when b is too large for a digit per step.
 */
export function quotientOfSafe(a: number, sa: number, b: number, sb: number): DecParts | null {
  let k = 0;
  while (k < 15 && b * POW10[k + 1]! <= MAX_SAFE) k++;
  if (k === 0) return null;
  const unit = POW10[k]!;
  let r = a % b;
  const whole = (a - r) / b;
  let digits = whole === 0 ? '' : String(whole);
  let places = 0;
  while (r !== 0 && digits.length <= QUOTIENT_DIGITS) {
    const n = r * unit;
    r = n % b;
    const d = (n - r) / b;
    if (digits !== '') digits += String(d).padStart(k, '0');
    else if (d !== 0) digits = String(d); // leading zeros after the point are not significant
    places += k;
  }
  let roundUp = false;
  if (digits.length > QUOTIENT_DIGITS) {
    roundUp = digits.charCodeAt(QUOTIENT_DIGITS) >= 53; // '5'
    places -= digits.length - QUOTIENT_DIGITS;
    digits = digits.slice(0, QUOTIENT_DIGITS);
  }
  let scale = sa - sb + places;
  if (roundUp) digits = (BigInt(digits) + 1n).toString();
  // The normal form the parser gives: no trailing zeros after the point, no negative scale.
  let end = digits.length;
  while (scale > 0 && end > 1 && digits.charCodeAt(end - 1) === 48) {
    end--;
    scale--;
  }
  if (end !== digits.length) digits = digits.slice(0, end);
  if (scale < 0) {
    digits += '0'.repeat(-scale);
    scale = 0;
  }
  if (digits.length <= 15) return { c: Number(digits), big: null, scale };
  const big = BigInt(digits);
  return big <= 9007199254740991n ? { c: Number(big), big: null, scale } : { c: 0, big, scale };
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
