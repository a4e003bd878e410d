/**
 * The domain's one decimal type: a private decimal.js clone, so no other module's global Decimal settings can
 * change our arithmetic. 60 significant digits is far more than any value here needs (money ≤ 100,000,000 and
 * credits ≤ 1,000 with at most 6 decimals, products of two of them ≤ 30 digits), so + − × are exact. The only
 * divisions are by 100 (terminating, so exact) and the integer divisions of rounding.ts and split.ts, which
 * truncate without rounding to a working precision.
 */

import { Decimal } from 'decimal.js';

export const Dec = Decimal.clone({
  precision: 60,
  rounding: Decimal.ROUND_HALF_UP,
  toExpNeg: -40,
  toExpPos: 40,
});

/** An instance of the domain decimal type (the clone shares decimal.js's instance type). */
export type Dec = Decimal;

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
  const parsed = new Dec(value);
  if (!parsed.isFinite()) throw new Error(`not a finite decimal: ${JSON.stringify(value)}`);
  if (parseCache.size >= PARSE_CACHE_LIMIT) parseCache.clear();
  parseCache.set(value, parsed);
  return parsed;
}

/** x > 0, read from the sign (decimal.js comparisons copy their argument; this allocates nothing). */
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
