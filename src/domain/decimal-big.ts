/**
 * The BigInt side of the domain's decimal (src/domain/decimal.ts): coefficients as BigInts, brought to a common
 * scale, for the operations whose operands or results leave the safe-integer range (|c| ≥ 2^53). Plain functions
 * over the parts, so the class keeps only its number fast paths and the choice between the two.
 */

import { bigPow10, type DecParts } from './decimal-parts.ts';

/** The coefficient as a BigInt. */
export function bigOf(x: DecParts): bigint {
  return x.big ?? BigInt(x.c);
}

/** |coefficient| as a BigInt. */
export function magnitude(x: DecParts): bigint {
  const b = bigOf(x);
  return b < 0n ? -b : b;
}

/** The coefficient of x at `scale` (≥ x.scale). */
export function alignedBig(x: DecParts, scale: number): bigint {
  const b = bigOf(x);
  return scale === x.scale ? b : b * bigPow10(scale - x.scale);
}

/** -1, 0 or 1 comparing the values of x and y exactly. */
export function compareBig(x: DecParts, y: DecParts): number {
  const s = Math.max(x.scale, y.scale);
  const a = alignedBig(x, s);
  const b = alignedBig(y, s);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether a BigInt fits a JS number exactly (|v| ≤ 2^53 − 1). */
export function isSafeBig(v: bigint): boolean {
  return v >= -9007199254740991n && v <= 9007199254740991n;
}
