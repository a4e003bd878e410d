/**
 * Per-term facts of rules.md §4: enrollment status, enrollment intensity, disbursement eligibility. The
 * enrollment intensity is the term's own credit ratio, not necessarily COD's "Direct Loan Enrollment Intensity"
 * (rules.md §8a: on this service's reading that is reduced_annual_pct at the disbursement).
 * Every comparison is on the exact ratio credits(t) ÷ full_time_credits (no rounded percent is compared).
 */

import { type Dec, FOUR, HUNDRED, THREE, TWO, ZERO, minDec } from './decimal.ts';
import { percentHalfUp } from './rounding.ts';
import type { EnrollmentStatus } from './types.ts';

/** From credits ÷ full time: ≥ 1 full; ≥ 0.75 three-quarter; ≥ 0.5 half; > 0 less than half; 0 not enrolled. */
export function enrollmentStatus(credits: Dec, fullTimeCredits: Dec): EnrollmentStatus {
  if (credits.gte(fullTimeCredits)) return 'full_time';
  if (credits.times(FOUR).gte(fullTimeCredits.times(THREE))) return 'three_quarter_time';
  if (credits.times(TWO).gte(fullTimeCredits)) return 'half_time';
  if (credits.gt(ZERO)) return 'less_than_half_time';
  return 'not_enrolled';
}

/** The term's enrollment intensity: min(100, round_half_up(100 × credits ÷ full time)). */
export function enrollmentIntensityPercent(credits: Dec, fullTimeCredits: Dec): Dec {
  if (credits.gte(fullTimeCredits)) return HUNDRED;
  return minDec(HUNDRED, percentHalfUp(credits, fullTimeCredits));
}

/**
 * Eligible for a disbursement: credits ≥ full_time_credits ÷ 2 on the exact ratio (5.99 of 12 is below half
 * time even though its intensity rounds to 50).
 */
export function isEligibleForDisbursement(credits: Dec, fullTimeCredits: Dec): boolean {
  return credits.times(TWO).gte(fullTimeCredits);
}

/** Whether a status is at least half time (the statuses of eligible terms). */
export function isAtLeastHalfTime(status: EnrollmentStatus): boolean {
  return status === 'full_time' || status === 'three_quarter_time' || status === 'half_time';
}

/** Everything §4 says about one term, from its credits and full-time credits alone. */
export interface TermStanding {
  status: EnrollmentStatus;
  intensityPct: Dec;
  eligible: boolean;
}

/**
 * Memoised §4 facts by (credits, full time) decimal identity. `dec()` shares parsed decimals, so the few
 * credit values that bulk files repeat hit this cache; a miss just computes the same facts. A WeakMap keyed
 * by the credits decimal lets entries go when the parse cache drops that decimal.
 */
const standings = new WeakMap<Dec, Map<Dec, TermStanding>>();

export function termStanding(credits: Dec, fullTimeCredits: Dec): TermStanding {
  let byFullTime = standings.get(credits);
  if (byFullTime === undefined) {
    byFullTime = new Map();
    standings.set(credits, byFullTime);
  }
  let standing = byFullTime.get(fullTimeCredits);
  if (standing === undefined) {
    standing = {
      status: enrollmentStatus(credits, fullTimeCredits),
      intensityPct: enrollmentIntensityPercent(credits, fullTimeCredits),
      eligible: isEligibleForDisbursement(credits, fullTimeCredits),
    };
    byFullTime.set(fullTimeCredits, standing);
  }
  return standing;
}
