/**
 * Splitting a whole-dollar amount over terms (rules.md §1): the largest-remainder method.
 *
 * Each part gets the floor of its exact share `amount × w ÷ Σw`; the dollars still missing go, one each, to
 * the parts with the largest fractional remainders, ties to the earlier part. The parts always sum exactly to
 * the amount and are never negative. Reproduces every published split: 7,875/2 → 3,938 + 3,937;
 * 1,100/3 → 367 + 367 + 366; 1,840 × (9, 12, 12)/33 → 502 + 669 + 669; 2,625/2 → 1,313 + 1,312.
 *
 * All arithmetic is exact: floors come from integer division, and remainders are compared as the exact
 * numerators `amount × w − floor × Σw`, which share the denominator Σw.
 */

import { type Dec, ONE, ZERO, sumDec } from './decimal.ts';
import { decInt } from './decimal-read.ts';

function assertSplittable(amount: Dec): void {
  if (!amount.isInteger() || amount.isNegative()) {
    throw new Error(`split: the amount must be a whole number of dollars ≥ 0, got ${amount.toFixed()}`);
  }
}

/** Splits `amount` into `count` parts with equal weights (the earlier parts get the odd dollars). */
export function splitEqual(amount: Dec, count: number): Dec[] {
  assertSplittable(amount);
  if (!Number.isInteger(count) || count < 1) throw new Error(`splitEqual: count must be ≥ 1, got ${count}`);
  if (amount.isZero()) return new Array<Dec>(count).fill(ZERO);
  if (count === 1) return [amount];
  const divisor = decInt(count);
  const share = amount.divToInt(divisor);
  // leftover < count, so it is a small exact integer.
  const leftover = amount.minus(share.times(divisor)).toNumber();
  const bigger = leftover > 0 ? share.plus(ONE) : share;
  const parts = new Array<Dec>(count);
  for (let i = 0; i < count; i++) parts[i] = i < leftover ? bigger : share;
  return parts;
}

function allEqual(values: readonly Dec[]): boolean {
  const first = values[0]!;
  for (let i = 1; i < values.length; i++) if (!values[i]!.eq(first)) return false;
  return true;
}

/**
 * Splits `amount` by `weights` (each ≥ 0, at least one > 0) with the largest-remainder method.
 */
export function splitByWeights(amount: Dec, weights: readonly Dec[]): Dec[] {
  assertSplittable(amount);
  const n = weights.length;
  if (n === 0) throw new Error('splitByWeights: no weights');
  for (const w of weights) {
    if (w.isNegative()) throw new Error(`splitByWeights: negative weight ${w.toFixed()}`);
  }
  const total = sumDec(weights);
  if (total.isZero()) throw new Error('splitByWeights: the weights sum to 0');
  if (amount.isZero()) return new Array<Dec>(n).fill(ZERO);
  // Equal weights: every exact share is amount ÷ n with the same remainder, so ties put the odd dollars on
  // the earlier parts, which is exactly splitEqual.
  if (allEqual(weights)) return splitEqual(amount, n);

  const parts = new Array<Dec>(n);
  const remainders = new Array<Dec>(n);
  let assigned = ZERO;
  for (let i = 0; i < n; i++) {
    const numerator = amount.times(weights[i]!);
    const floor = numerator.divToInt(total);
    parts[i] = floor;
    remainders[i] = numerator.minus(floor.times(total));
    assigned = assigned.plus(floor);
  }
  // Σ floors > amount − n, so fewer than n dollars are missing: a small exact integer.
  let leftover = amount.minus(assigned).toNumber();
  if (leftover === 0) return parts;

  // Indices by remainder, largest first, ties in term order (earlier term first): an insertion sort, stable, of
  // the few terms of a student (Array#sort with a comparator allocated its work area on every call).
  const order = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    let j = i;
    while (j > 0 && remainders[order[j - 1]!]!.lt(remainders[i]!)) {
      order[j] = order[j - 1]!;
      j--;
    }
    order[j] = i;
  }
  for (let k = 0; k < n && leftover > 0; k++) {
    const i = order[k]!;
    parts[i] = parts[i]!.plus(ONE);
    leftover--;
  }
  return parts;
}

/**
 * Another reading of the split (src/domain/readings.ts `remainder: 'last_term'`): every part gets the floor of its
 * exact share `amount × w ÷ Σw` (equal weights when `weights` is null) and the leftover dollars all go to the last
 * part. The parts still sum exactly to the amount.
 */
export function splitLeftoverLast(amount: Dec, weights: readonly Dec[] | null, count: number): Dec[] {
  assertSplittable(amount);
  if (count < 1) throw new Error(`splitLeftoverLast: count must be ≥ 1, got ${count}`);
  const parts = new Array<Dec>(count);
  let assigned = ZERO;
  if (weights === null) {
    const share = amount.divToInt(decInt(count));
    parts.fill(share);
    assigned = share.times(decInt(count));
  } else {
    const total = sumDec(weights);
    if (total.isZero()) throw new Error('splitLeftoverLast: the weights sum to 0');
    for (let i = 0; i < count; i++) {
      parts[i] = amount.times(weights[i]!).divToInt(total);
      assigned = assigned.plus(parts[i]!);
    }
  }
  parts[count - 1] = parts[count - 1]!.plus(amount.minus(assigned));
  return parts;
}
