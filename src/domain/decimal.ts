/**
 * The domain's one decimal type: an exact scaled integer, value = coefficient × 10^-scale.
 *
 * The coefficient is a JS number while it is a safe integer (|c| < 2^53, so every +, −, × and integer division of
 * two such coefficients is either exact or detected as too large), and a BigInt beyond (decimal-big.ts). + − ×
 * never round, divToInt and mod truncate, toDecimalPlaces / floor / round round once from the exact value
 * (decimal-rounding.ts). The one inexact operation is a quotient that does not end (the worksheet's approximate
 * quotients, the `percentRounding: 'none'` reading): rounded half up to 60 significant digits (decimal-quotient.ts).
 *
 * The API is the subset of decimal.js's that the service uses, with decimal.js's results at precision 60, half up,
 * including the sign of zero (-0 × 5 = -0, 5 − 5 = 0, x mod y = 0 is +0) and normal notation in toFixed() /
 * toString(); test/domain/decimal.test.ts compares every operation with decimal.js (a dev dependency). Reading
 * and writing decimal text (the parts ⇄ text) is decimal-parts.ts; `dec` and `decInt`, which share the values hot
 * paths repeat, are decimal-read.ts.
 */

import {
  MAX_SAFE,
  POW10,
  bigPow10,
  exponentText,
  isNegativeParts,
  negativeSign,
  parseDecimal,
  fixedText,
  plainText,
  type DecParts,
} from './decimal-parts.ts';
import { alignedBig, bigOf, compareBig, isSafeBig, magnitude } from './decimal-big.ts';
import { quotientOfSafe, quotientParts } from './decimal-quotient.ts';
import * as R from './decimal-rounding.ts';
import { roundMagnitude, roundsAway } from './decimal-rounding.ts';

export type DecValue = Dec | number | string;

export class Dec implements DecParts {
  static readonly ROUND_UP = R.ROUND_UP;
  static readonly ROUND_DOWN = R.ROUND_DOWN;
  static readonly ROUND_CEIL = R.ROUND_CEIL;
  static readonly ROUND_FLOOR = R.ROUND_FLOOR;
  static readonly ROUND_HALF_UP = R.ROUND_HALF_UP;
  static readonly ROUND_HALF_DOWN = R.ROUND_HALF_DOWN;
  static readonly ROUND_HALF_EVEN = R.ROUND_HALF_EVEN;
  static readonly ROUND_HALF_CEIL = R.ROUND_HALF_CEIL;
  static readonly ROUND_HALF_FLOOR = R.ROUND_HALF_FLOOR;

  // The parts, as DecParts documents them (src/domain/decimal-parts.ts).
  readonly c: number;
  readonly big: bigint | null;
  readonly scale: number;

  /**
   * `new Dec(number | string | Dec)` parses a value as decimal.js does (a number through its shortest decimal
   * form). The three-argument form is internal: a safe-integer coefficient, its scale and, when the coefficient is
   * not safe, the BigInt (then `value` is ignored).
   */
  constructor(value: DecValue, scale?: number, big?: bigint | null) {
    // Kept small so that the engine inlines the internal form, the one every operation allocates with.
    if (scale === undefined) {
      const parsed = value instanceof Dec ? value : parseDecimal(value);
      this.c = parsed.c;
      this.big = parsed.big;
      this.scale = parsed.scale;
    } else {
      // A coefficient that fits 31 bits is stored as the engine's small integer (no box of its own: every decimal
      // the arithmetic makes would otherwise allocate its coefficient as a heap number beside itself); -0 keeps
      // its box, and its sign.
      const c = value as number;
      this.c = (c | 0) === c && (c !== 0 || 1 / c > 0) ? c | 0 : c;
      this.big = big ?? null;
      this.scale = scale;
    }
  }

  isZero(): boolean {
    return this.big === null && this.c === 0;
  }

  /** True for values below zero and for -0, as decimal.js. */
  isNegative(): boolean {
    return isNegativeParts(this);
  }

  isPositive(): boolean {
    return !this.isNegative();
  }

  isInteger(): boolean {
    if (this.scale === 0) return true;
    if (this.big === null) return this.scale > 22 ? this.c === 0 : this.c % POW10[this.scale]! === 0;
    return this.big % bigPow10(this.scale) === 0n;
  }

  /** -1, 0 or 1 (−0 equals 0). */
  comparedTo(other: DecValue): number {
    const y = toDec(other);
    if (this.big === null && y.big === null) {
      let a = this.c;
      let b = y.c;
      if (this.scale !== y.scale) {
        if (this.scale < y.scale) {
          const k = y.scale - this.scale;
          a = k > 22 ? Number.POSITIVE_INFINITY : a * POW10[k]!;
          if (Math.abs(a) > MAX_SAFE) return compareBig(this, y);
        } else {
          const k = this.scale - y.scale;
          b = k > 22 ? Number.POSITIVE_INFINITY : b * POW10[k]!;
          if (Math.abs(b) > MAX_SAFE) return compareBig(this, y);
        }
      }
      return a < b ? -1 : a > b ? 1 : 0;
    }
    return compareBig(this, y);
  }

  eq(other: DecValue): boolean {
    return this.comparedTo(other) === 0;
  }

  lt(other: DecValue): boolean {
    return this.comparedTo(other) < 0;
  }

  lte(other: DecValue): boolean {
    return this.comparedTo(other) <= 0;
  }

  gt(other: DecValue): boolean {
    return this.comparedTo(other) > 0;
  }

  gte(other: DecValue): boolean {
    return this.comparedTo(other) >= 0;
  }

  plus(other: DecValue): Dec {
    const y = toDec(other);
    if (this.big === null && y.big === null) {
      const r = addNumbers(this.c, this.scale, y.c, y.scale);
      if (r !== null) return r;
    }
    return addBig(this, y, false);
  }

  minus(other: DecValue): Dec {
    const y = toDec(other);
    if (this.big === null && y.big === null) {
      const r = addNumbers(this.c, this.scale, -y.c, y.scale);
      if (r !== null) return r;
    }
    return addBig(this, y, true);
  }

  times(other: DecValue): Dec {
    const y = toDec(other);
    if (this.big === null && y.big === null) {
      const p = this.c * y.c;
      if (Math.abs(p) <= MAX_SAFE) return new Dec(p, this.scale + y.scale);
    }
    const p = bigOf(this) * bigOf(y);
    if (p === 0n) return new Dec(this.isNegative() !== y.isNegative() ? -0 : 0, this.scale + y.scale);
    return fromBig(p, this.scale + y.scale);
  }

  /** The integer part of this ÷ other (truncated toward zero), as decimal.js's divToInt. */
  divToInt(other: DecValue): Dec {
    const y = toDec(other);
    if (this.big === null && y.big === null && y.c !== 0) {
      let a = this.c;
      let b = y.c;
      if (this.scale < y.scale) a = y.scale - this.scale > 22 ? Infinity : a * POW10[y.scale - this.scale]!;
      else if (this.scale > y.scale) b = this.scale - y.scale > 22 ? Infinity : b * POW10[this.scale - y.scale]!;
      if (Math.abs(a) <= MAX_SAFE && Math.abs(b) <= MAX_SAFE) {
        const q = (a - (a % b)) / b;
        if (q !== 0) return new Dec(q, 0);
        return new Dec(negativeSign(this.c) !== negativeSign(b) ? -0 : 0, 0);
      }
    }
    if (y.isZero()) throw new Error('[DecimalError] divToInt by zero');
    const negative = this.isNegative() !== y.isNegative();
    const s = Math.max(this.scale, y.scale);
    const q = alignedBig(this, s) / alignedBig(y, s);
    if (q === 0n) return new Dec(negative ? -0 : 0, 0);
    return fromBig(q, 0);
  }

  /** this − other × trunc(this ÷ other): the sign of this; a zero remainder is +0 unless this is ±0 (decimal.js's mod). */
  mod(other: DecValue): Dec {
    const y = toDec(other);
    if (y.isZero()) throw new Error('[DecimalError] mod by zero');
    if (this.isZero()) return this;
    const s = Math.max(this.scale, y.scale);
    if (this.big === null && y.big === null && s - this.scale <= 22 && s - y.scale <= 22) {
      const a = this.c * POW10[s - this.scale]!;
      const b = y.c * POW10[s - y.scale]!;
      if (Math.abs(a) <= MAX_SAFE && Math.abs(b) <= MAX_SAFE) {
        const r = a % b;
        return new Dec(r === 0 ? 0 : r, s);
      }
    }
    const r = alignedBig(this, s) % alignedBig(y, s);
    return r === 0n ? new Dec(0, s) : fromBig(r, s);
  }

  /**
   * this ÷ other. Exact by a shift of the point when other is ±10^k (÷ 100 of the percentages); otherwise rounded
   * half up to 60 significant digits (decimal-quotient.ts), the precision the service has always divided at.
   */
  dividedBy(other: DecValue): Dec {
    const y = toDec(other);
    if (this.big === null && y.big === null && y.scale === 0) {
      // a safe coefficient has at most 16 digits: the shifted value is exact and within 60 digits
      const k = POW10.indexOf(Math.abs(y.c));
      if (k >= 0) return new Dec(y.c < 0 ? -this.c : this.c, this.scale + k);
    }
    if (y.isZero()) throw new Error('[DecimalError] division by zero');
    const negative = this.isNegative() !== y.isNegative();
    if (this.isZero()) return new Dec(negative ? -0 : 0, 0);
    if (this.big === null && y.big === null) {
      const q = quotientOfSafe(Math.abs(this.c), this.scale, Math.abs(y.c), y.scale);
      if (q !== null) return new Dec(negative ? -q.c : q.c, q.scale, q.big === null || !negative ? q.big : -q.big);
    }
    const q = quotientParts(magnitude(this), this.scale, magnitude(y), y.scale);
    return fromBig(negative ? -q.coefficient : q.coefficient, q.scale);
  }

  abs(): Dec {
    if (!this.isNegative()) return this;
    return this.big === null ? new Dec(-this.c, this.scale) : new Dec(0, this.scale, -this.big);
  }

  negated(): Dec {
    return this.big === null ? new Dec(-this.c, this.scale) : new Dec(0, this.scale, -this.big);
  }

  /** Rounded to `dp` decimal places with rounding mode `rm` (default half up). Unrounded when dp is omitted. */
  toDecimalPlaces(dp?: number, rm: number = Dec.ROUND_HALF_UP): Dec {
    if (dp === undefined || this.scale <= dp) return this;
    const k = this.scale - dp;
    if (this.big === null && k <= 22) {
      const c = this.c;
      const p = POW10[k]!;
      const r = c % p; // exact, with the sign of c
      const q = (c - r) / p; // exact: c truncated to a multiple of p, divided
      if (r === 0) return new Dec(c === 0 ? c : q, dp); // ±0 keeps its sign
      const away =
        rm === Dec.ROUND_HALF_UP
          ? Math.abs(r) * 2 >= p
          : roundsAway(rm, c < 0, Math.abs(q) % 2 === 1, Math.abs(r) * 2, p);
      if (away) return new Dec(c < 0 ? q - 1 : q + 1, dp);
      return new Dec(q === 0 && c < 0 ? -0 : q, dp);
    }
    const negative = this.isNegative();
    const q = roundMagnitude(magnitude(this), k, rm, negative);
    if (q === 0n) return new Dec(negative ? -0 : 0, dp);
    return fromBig(negative ? -q : q, dp);
  }

  floor(): Dec {
    return this.toDecimalPlaces(0, Dec.ROUND_FLOOR);
  }

  /** The nearest double (−0 for −0), as Number(toString()). */
  toNumber(): number {
    if (this.big === null) {
      if (this.scale === 0) return this.c;
      if (this.scale <= 22) return this.c / POW10[this.scale]!;
    }
    return Number(this.valueOf());
  }

  /**
   * Normal notation: without `dp`, every digit of the value and no trailing zeros ("10.5", "0.000001"); with `dp`,
   * rounded half up to exactly dp places. "-" only for a value below zero (−0 prints "0"), as decimal.js.
   */
  toFixed(dp?: number): string {
    if (dp === undefined) {
      if (this.big === null && this.scale === 0) return this.c === 0 ? '0' : String(this.c);
      return plainText(this, true);
    }
    return fixedText(this.toDecimalPlaces(dp), dp, this.isNegative() && !this.isZero());
  }

  /**
   * As toFixed(), except exponent notation from 10^40 and below 10^-39 ("1.5e+40"), as the previous decimal.js
   * clone (toExpPos 40, toExpNeg -40); the values of this domain never get there.
   */
  toString(): string {
    if (this.big === null && this.scale < 40) return this.toFixed();
    return exponentText(this) ?? this.toFixed();
  }

  /** As toString(), but "-0" for −0 (decimal.js's valueOf and toJSON). */
  valueOf(): string {
    return this.big === null && this.c === 0 && 1 / this.c < 0 ? '-0' : this.toString();
  }

  toJSON(): string {
    return this.valueOf();
  }
}

function toDec(value: DecValue): Dec {
  return value instanceof Dec ? value : new Dec(value);
}

function fromBig(v: bigint, scale: number): Dec {
  if (isSafeBig(v)) return new Dec(Number(v), scale);
  return new Dec(0, scale, v);
}

/** a×10^-sa + b×10^-sb when it fits the number path (null otherwise). JS's signed zeros are decimal.js's. */
function addNumbers(a: number, sa: number, b: number, sb: number): Dec | null {
  if (sa !== sb) {
    if (sa < sb) {
      if (sb - sa > 22) return null;
      a *= POW10[sb - sa]!;
      if (Math.abs(a) > MAX_SAFE) return null;
      sa = sb;
    } else {
      if (sa - sb > 22) return null;
      b *= POW10[sa - sb]!;
      if (Math.abs(b) > MAX_SAFE) return null;
    }
  }
  const r = a + b;
  return Math.abs(r) <= MAX_SAFE ? new Dec(r, sa) : null;
}

function addBig(x: Dec, y: Dec, subtract: boolean): Dec {
  const s = Math.max(x.scale, y.scale);
  const b = alignedBig(y, s);
  const r = alignedBig(x, s) + (subtract ? -b : b);
  if (r !== 0n) return fromBig(r, s);
  // x + y = 0 is +0, except -0 + -0 (and -0 − 0), as in IEEE 754 and decimal.js
  const negative = x.isZero() && y.isZero() && x.isNegative() && y.isNegative() !== subtract;
  return new Dec(negative ? -0 : 0, s);
}

export const ZERO: Dec = new Dec(0);
export const ONE: Dec = new Dec(1);
export const TWO: Dec = new Dec(2);
export const THREE: Dec = new Dec(3);
export const FOUR: Dec = new Dec(4);
export const HUNDRED: Dec = new Dec(100);

/** x > 0, read from the sign. */
export function isPositive(x: Dec): boolean {
  return !x.isZero() && !x.isNegative();
}

/** x < 0, read from the sign (-0 is not negative). */
export function isBelowZero(x: Dec): boolean {
  return !x.isZero() && x.isNegative();
}

/** The smaller of two decimals (the first on a tie). */
export function minDec(a: Dec, b: Dec): Dec {
  return b.lt(a) ? b : a;
}

/** The larger of two decimals (the first on a tie). */
export function maxDec(a: Dec, b: Dec): Dec {
  return b.gt(a) ? b : a;
}

/** Σ of decimals. */
export function sumDec(values: readonly Dec[]): Dec {
  let total = ZERO;
  for (const v of values) {
    if (v.isZero()) continue;
    total = total.isZero() ? v : total.plus(v);
  }
  return total;
}
