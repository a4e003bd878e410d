/**
 * The domain's one decimal type: an exact scaled integer, value = coefficient × 10^-scale.
 *
 * The coefficient is a JS number while it is a safe integer (|c| < 2^53, so every +, −, × and integer division of
 * two such coefficients is either exact or detected as too large), and a BigInt beyond. Every operation the domain
 * uses is exact: + − × never round, divToInt and mod truncate, toDecimalPlaces / floor / round round once from the
 * exact value. The only inexact operation is a non-terminating dividedBy (the worksheet's approximate quotients and
 * the `percentRounding: 'none'` reading), which is delegated to decimal.js at 60 significant digits, half up:
 * exactly what the previous implementation (a decimal.js clone with precision 60) did.
 *
 * The API is the subset of decimal.js's the service uses, with the same results, including the sign of zero
 * (-0 × 5 = -0, 5 − 5 = 0, x mod y = 0 is +0) and normal notation in toFixed() / toString(). Values here stay far
 * below 60 significant digits (money ≤ 100,000,000 and credits ≤ 1,000 with at most 6 decimals, products of two of
 * them ≤ 30 digits), where decimal.js at precision 60 was exact too; test/domain/decimal.test.ts compares every
 * operation with decimal.js and test/domain/legacy-oracle.test.ts whole calculations with the previous domain.
 * Reading and writing decimal text (the parts ⇄ text) is src/domain/decimal-parts.ts.
 */

import { Decimal } from 'decimal.js';
import {
  MAX_SAFE,
  POW10,
  bigPow10,
  exponentText,
  isNegativeParts,
  negativeSign,
  parseDecimal,
  plainText,
  type DecParts,
} from './decimal-parts.ts';

/** decimal.js at the previous settings, for the rare non-terminating division. */
const Slow = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 });

export type DecValue = Dec | number | string;

export class Dec implements DecParts {
  static readonly ROUND_UP = 0;
  static readonly ROUND_DOWN = 1;
  static readonly ROUND_CEIL = 2;
  static readonly ROUND_FLOOR = 3;
  static readonly ROUND_HALF_UP = 4;
  static readonly ROUND_HALF_DOWN = 5;
  static readonly ROUND_HALF_EVEN = 6;
  static readonly ROUND_HALF_CEIL = 7;
  static readonly ROUND_HALF_FLOOR = 8;

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
      this.c = value as number;
      this.big = big ?? null;
      this.scale = scale;
    }
  }

  // ------------------------------------------------------------------------------------------------ queries

  isZero(): boolean {
    return this.big === null && this.c === 0;
  }

  /** True for values below zero and for -0, as decimal.js. */
  isNegative(): boolean {
    return isNegativeParts(this);
  }

  isNeg(): boolean {
    return this.isNegative();
  }

  isPositive(): boolean {
    return !this.isNegative();
  }

  isFinite(): boolean {
    return true;
  }

  isNaN(): boolean {
    return false;
  }

  isInteger(): boolean {
    if (this.scale === 0) return true;
    if (this.big === null) return this.scale > 22 ? this.c === 0 : this.c % POW10[this.scale]! === 0;
    return this.big % bigPow10(this.scale) === 0n;
  }

  isInt(): boolean {
    return this.isInteger();
  }

  // ------------------------------------------------------------------------------------------------ comparison

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

  cmp(other: DecValue): number {
    return this.comparedTo(other);
  }

  eq(other: DecValue): boolean {
    return this.comparedTo(other) === 0;
  }

  equals(other: DecValue): boolean {
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

  // ------------------------------------------------------------------------------------------------ arithmetic

  plus(other: DecValue): Dec {
    const y = toDec(other);
    if (this.big === null && y.big === null) {
      const r = addNumbers(this.c, this.scale, y.c, y.scale);
      if (r !== null) return r;
    }
    return addBig(this, y, false);
  }

  add(other: DecValue): Dec {
    return this.plus(other);
  }

  minus(other: DecValue): Dec {
    const y = toDec(other);
    if (this.big === null && y.big === null) {
      const r = addNumbers(this.c, this.scale, -y.c, y.scale);
      if (r !== null) return r;
    }
    return addBig(this, y, true);
  }

  sub(other: DecValue): Dec {
    return this.minus(other);
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

  mul(other: DecValue): Dec {
    return this.times(other);
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
   * this ÷ other. Exact by a shift of the point when other is ±10^k (÷ 100 of the percentages); otherwise
   * decimal.js's division at 60 significant digits, half up (rare: readings and the worksheet's quotients).
   */
  dividedBy(other: DecValue): Dec {
    const y = toDec(other);
    if (y.big === null && y.scale === 0) {
      const k = POW10.indexOf(Math.abs(y.c));
      if (k >= 0) {
        const c = y.c < 0 ? -this.c : this.c;
        const big = this.big === null ? null : y.c < 0 ? -this.big : this.big;
        return new Dec(c, this.scale + k, big);
      }
    }
    if (y.isZero()) throw new Error('[DecimalError] division by zero');
    return new Dec(new Slow(this.valueOf()).dividedBy(y.valueOf()).valueOf());
  }

  div(other: DecValue): Dec {
    return this.dividedBy(other);
  }

  abs(): Dec {
    if (!this.isNegative()) return this;
    return this.big === null ? new Dec(-this.c, this.scale) : new Dec(0, this.scale, -this.big);
  }

  negated(): Dec {
    return this.big === null ? new Dec(-this.c, this.scale) : new Dec(0, this.scale, -this.big);
  }

  neg(): Dec {
    return this.negated();
  }

  // ------------------------------------------------------------------------------------------------ rounding

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
    const m = this.big === null ? BigInt(Math.abs(this.c)) : this.big < 0n ? -this.big : this.big;
    const p = bigPow10(k);
    const r = m % p;
    let q = m / p;
    if (r !== 0n) {
      const twice = r * 2n;
      const cmpHalf = twice < p ? -1 : twice > p ? 1 : 0;
      if (roundsAwayCmp(rm, negative, q % 2n === 1n, cmpHalf)) q++;
    }
    if (q === 0n) return new Dec(negative ? -0 : 0, dp);
    return fromBig(negative ? -q : q, dp);
  }

  toDP(dp?: number, rm?: number): Dec {
    return this.toDecimalPlaces(dp, rm);
  }

  floor(): Dec {
    return this.toDecimalPlaces(0, Dec.ROUND_FLOOR);
  }

  ceil(): Dec {
    return this.toDecimalPlaces(0, Dec.ROUND_CEIL);
  }

  /** Half up to a whole number (the rounding mode of the previous decimal.js clone). */
  round(): Dec {
    return this.toDecimalPlaces(0, Dec.ROUND_HALF_UP);
  }

  trunc(): Dec {
    return this.toDecimalPlaces(0, Dec.ROUND_DOWN);
  }

  // ------------------------------------------------------------------------------------------------ conversion

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
    const rounded = this.toDecimalPlaces(dp);
    let text = plainText(rounded.abs(), false);
    if (dp > rounded.scale) {
      text += (rounded.scale === 0 ? '.' : '') + '0'.repeat(dp - rounded.scale);
    }
    return this.isNegative() && !this.isZero() ? `-${text}` : text;
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

/** `rm` says whether to add one to the magnitude q, given the dropped part 2r against the unit p (r ≠ 0). */
function roundsAway(rm: number, negative: boolean, odd: boolean, twiceR: number, p: number): boolean {
  return roundsAwayCmp(rm, negative, odd, twiceR < p ? -1 : twiceR > p ? 1 : 0);
}

function roundsAwayCmp(rm: number, negative: boolean, odd: boolean, cmpHalf: number): boolean {
  switch (rm) {
    case Dec.ROUND_UP:
      return true;
    case Dec.ROUND_DOWN:
      return false;
    case Dec.ROUND_CEIL:
      return !negative;
    case Dec.ROUND_FLOOR:
      return negative;
    case Dec.ROUND_HALF_UP:
      return cmpHalf >= 0;
    case Dec.ROUND_HALF_DOWN:
      return cmpHalf > 0;
    case Dec.ROUND_HALF_EVEN:
      return cmpHalf > 0 || (cmpHalf === 0 && odd);
    case Dec.ROUND_HALF_CEIL:
      return cmpHalf > 0 || (cmpHalf === 0 && !negative);
    case Dec.ROUND_HALF_FLOOR:
      return cmpHalf > 0 || (cmpHalf === 0 && negative);
    default:
      throw new Error(`[DecimalError] Invalid rounding mode: ${rm}`);
  }
}

function toDec(value: DecValue): Dec {
  return value instanceof Dec ? value : new Dec(value);
}

function bigOf(x: Dec): bigint {
  return x.big ?? BigInt(x.c);
}

function alignedBig(x: Dec, scale: number): bigint {
  const b = bigOf(x);
  return scale === x.scale ? b : b * bigPow10(scale - x.scale);
}

function fromBig(v: bigint, scale: number): Dec {
  if (v >= -9007199254740991n && v <= 9007199254740991n) return new Dec(Number(v), scale);
  return new Dec(0, scale, v);
}

function compareBig(x: Dec, y: Dec): number {
  const s = Math.max(x.scale, y.scale);
  const a = alignedBig(x, s);
  const b = alignedBig(y, s);
  return a < b ? -1 : a > b ? 1 : 0;
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

const SMALL_INTEGERS: readonly Dec[] = Array.from({ length: 33 }, (_, i) => new Dec(i));

/** A whole number ≥ 0 as a decimal, shared for the small counts (term counts) that hot paths use. */
export function decInt(value: number): Dec {
  return SMALL_INTEGERS[value] ?? new Dec(value);
}

const PARSE_CACHE_LIMIT = 4096;
const parseCache = new Map<string, Dec>();

/**
 * Parses a canonical decimal string from the schema layer. Decimals are immutable, so parsed values are shared
 * through a small bounded cache: bulk files repeat the same few credit and money values millions of times.
 */
export function dec(value: string): Dec {
  const cached = parseCache.get(value);
  if (cached !== undefined) return cached;
  let parsed: Dec;
  try {
    parsed = new Dec(value);
  } catch {
    throw new Error(`not a finite decimal: ${JSON.stringify(value)}`);
  }
  if (parseCache.size >= PARSE_CACHE_LIMIT) parseCache.clear();
  parseCache.set(value, parsed);
  return parsed;
}

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
