/**
 * The two ways to spread an annual amount over the terms (rules.md §5), per loan type.
 *
 * - equal: equal weights over the open eligible terms;
 * - proportional: weights credits(t) of the open eligible terms (FSA example 1: 2,205 × 6/15 and 9/15 →
 *   882 + 1,323), offered only when show_both_options;
 * - a closed term keeps exactly its prior disbursement and an ineligible open term gets 0 (rules.md §4, §6).
 *
 * What is spread is the `remaining` amount of rules.md §6 (annual − prior disbursements of closed terms); with
 * no closed term that is the whole annual amount.
 */

import { type Dec, HUNDRED, ONE, ZERO, isPositive } from './decimal.ts';
import { decInt } from './decimal-read.ts';
import { percentHalfUp } from './rounding.ts';
import type { Readings } from './readings.ts';
import { splitByWeights, splitEqual, splitLeftoverLast } from './split.ts';

/** `null` weights mean the equal option. */
export type OptionWeights = readonly Dec[] | null;

/**
 * One loan type's amount per term under one option: closed terms their priors, open eligible terms their part
 * of `remaining` (when it is > 0), every other term 0. Whole dollars, never negative. `remainder` is the reading
 * of where leftover dollars go (src/domain/readings.ts); the service's is the largest remainder.
 */
export function spreadRemaining(
  remaining: Dec,
  priors: readonly Dec[],
  closed: readonly boolean[],
  openEligible: readonly number[],
  weights: OptionWeights,
  remainder: Readings['remainder'] = 'largest_remainder',
): Dec[] {
  const n = priors.length;
  const amounts = new Array<Dec>(n);
  for (let i = 0; i < n; i++) amounts[i] = closed[i] ? priors[i]! : ZERO;
  const k = openEligible.length;
  if (k === 0 || !isPositive(remaining)) return amounts;
  const parts =
    remainder === 'last_term'
      ? splitLeftoverLast(remaining, weights === null ? null : openEligible.map((i) => weights[i]!), k)
      : weights === null
        ? splitEqual(remaining, k)
        : splitByWeights(
            remaining,
            openEligible.map((i) => weights[i]!),
          );
  for (let p = 0; p < k; p++) amounts[openEligible[p]!] = parts[p]!;
  return amounts;
}

/**
 * show_both_options: the proportional exception exists only for students subject to the reduction
 * (percent < 100), and with fewer than two eligible terms (open or closed) both options are the same.
 */
export function showBothOptions(percent: Dec, eligibleCount: number): boolean {
  return percent.lt(HUNDRED) && eligibleCount >= 2;
}

const equalSharePercents = new Map<number, Dec>();

/** round_half_up(100 ÷ count), memoised per count. */
function equalSharePercent(count: number): Dec {
  let pct = equalSharePercents.get(count);
  if (pct === undefined) {
    pct = percentHalfUp(ONE, decInt(count));
    equalSharePercents.set(count, pct);
  }
  return pct;
}

function eligibleWeightsEqual(eligible: readonly boolean[], weights: readonly Dec[]): boolean {
  let first: Dec | null = null;
  for (let i = 0; i < eligible.length; i++) {
    if (!eligible[i]) continue;
    if (first === null) first = weights[i]!;
    else if (!weights[i]!.eq(first)) return false;
  }
  return true;
}

/**
 * disbursement_pct of each term: round_half_up(100 × w(t) ÷ Σ w) over all eligible terms (closed included),
 * with the credit weights when both options are shown, otherwise equal weights; 0 for an ineligible term.
 * Rounded per term, so the values need not sum to exactly 100.
 */
export function disbursementPercents(eligible: readonly boolean[], weights: OptionWeights): Dec[] {
  const n = eligible.length;
  let count = 0;
  for (let i = 0; i < n; i++) if (eligible[i]) count++;
  const result = new Array<Dec>(n).fill(ZERO);
  if (count === 0) return result;
  // Equal weights on every eligible term give 100 × w ÷ (count × w) = 100 ÷ count: the equal shares.
  if (weights === null || eligibleWeightsEqual(eligible, weights)) {
    const equalShare = equalSharePercent(count);
    for (let i = 0; i < n; i++) if (eligible[i]) result[i] = equalShare;
    return result;
  }
  let total = ZERO;
  for (let i = 0; i < n; i++) if (eligible[i]) total = total.plus(weights[i]!);
  for (let i = 0; i < n; i++) if (eligible[i]) result[i] = percentHalfUp(weights[i]!, total);
  return result;
}
