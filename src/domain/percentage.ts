/**
 * The academic-year percentage of rules.md §3 (the Schedule of Reductions percentage).
 *
 * - credits(t) = actual_final_credits when present, else credits_enrolled;
 * - annual_ft_credits = Σ full_time_credits over the request's terms;
 * - reduced_annual_pct = min(100, round_half_up(100 × Σ credits(t) ÷ annual_ft_credits)); terms below half
 *   time still count in the sum, over-loaded terms count in full, only the total is capped;
 * - annual_basic_eligibility_X = round_half_up(X_base × reduced_annual_pct ÷ 100), per loan type.
 */

import { type Dec, HUNDRED, minDec, sumDec } from './decimal.ts';
import { dec } from './decimal-read.ts';
import { applyPercent, percentHalfUp } from './rounding.ts';

/** The credits a term counts with (rules.md §3): the final credits when known, else the enrolled credits. */
export function termCredits(creditsEnrolled: string, actualFinalCredits: string | null): Dec {
  return dec(actualFinalCredits ?? creditsEnrolled);
}

/** Σ full_time_credits (12 + 12 = 24; three 12-credit quarters = 36). */
export function annualFullTimeCredits(fullTimeCredits: readonly Dec[]): Dec {
  return sumDec(fullTimeCredits);
}

/** min(100, round_half_up(100 × Σ credits ÷ annual_ft_credits)); annualFtCredits > 0. */
export function reducedAnnualPercent(credits: readonly Dec[], annualFtCredits: Dec): Dec {
  return minDec(HUNDRED, percentHalfUp(sumDec(credits), annualFtCredits));
}

/** The reduced annual amount of one loan type: round_half_up(base × pct ÷ 100), whole dollars. */
export function annualBasicEligibility(base: Dec, percent: Dec): Dec {
  return applyPercent(base, percent);
}
