/**
 * Final period of an undergraduate program shorter than an academic year (rules.md §2.3; 34 CFR
 * 685.203(a)(4)–(6) and (d); FSA Handbook Vol. 8 ch. 5, "Loan limit proration").
 *
 * When `final_period_of_program` is true for an undergraduate and Σ full_time_credits < academic_year_credits,
 * the statutory limits are prorated by `fraction = min(1, Σ credits(t) ÷ academic_year_credits)`:
 *   S'max = round_half_up(S_max × fraction)
 *   C'max = S'max + round_half_up((C_max − S_max) × fraction)
 * before the starting amounts of §2.2, and the less-than-full-time reduction is not applied on top
 * (reduced_annual_pct 100). Metro State's example (an independent senior's limits, rules.md §2.3): 8 of 24
 * credits → 1,833 / 1,833 + 2,333.
 */

import { type Dec, dec, sumDec } from './decimal.ts';
import { roundHalfUpDiv } from './rounding.ts';
import type { CalculationInput } from './types.ts';

/**
 * How §2.3 applies to a request:
 * - `none`: final_period_of_program is false;
 * - `ignored_not_undergraduate`: the flag is set for a graduate or professional student (warning);
 * - `not_shorter`: the period is not shorter than an academic year (normal reduction, warning);
 * - `prorate`: traditional proration, no reduction on top.
 */
export type FinalPeriodCase =
  | { kind: 'none' }
  | { kind: 'ignored_not_undergraduate' }
  | { kind: 'not_shorter'; academicYearCredits: Dec }
  | { kind: 'prorate'; academicYearCredits: Dec };

export function finalPeriodCase(input: CalculationInput, annualFtCredits: Dec): FinalPeriodCase {
  if (!input.final_period_of_program) return { kind: 'none' };
  if (input.degree_level !== 'undergraduate') return { kind: 'ignored_not_undergraduate' };
  if (input.academic_year_credits === null) {
    // The schema requires academic_year_credits here (422), so this is a programming error.
    throw new Error('finalPeriodCase: academic_year_credits is required for a final period (validated by the schema)');
  }
  const academicYearCredits = dec(input.academic_year_credits);
  return annualFtCredits.lt(academicYearCredits)
    ? { kind: 'prorate', academicYearCredits }
    : { kind: 'not_shorter', academicYearCredits };
}

export interface ProratedLimits {
  /** Σ credits(t) of the period. */
  credits: Dec;
  /** True when Σ credits ≥ academic_year_credits: the fraction is capped at 1 (an overload never raises a limit). */
  capped: boolean;
  subsidizedMax: Dec;
  /** The prorated unsubsidized-only part: round_half_up((C_max − S_max) × fraction). */
  unsubsidizedOnly: Dec;
  combinedMax: Dec;
}

/**
 * S'max and C'max of §2.3 for the given credits(t) of the period. Each product is rounded from the exact
 * rational `amount × Σ credits ÷ academic_year_credits` (8/24 never passes through a rounded 0.333…).
 */
export function proratedLimits(
  subsidizedMax: Dec,
  combinedMax: Dec,
  credits: readonly Dec[],
  academicYearCredits: Dec,
): ProratedLimits {
  const total = sumDec(credits);
  const capped = total.gte(academicYearCredits);
  const prorate = (amount: Dec): Dec => (capped ? amount : roundHalfUpDiv(amount.times(total), academicYearCredits));
  const sub = prorate(subsidizedMax);
  const unsubOnly = prorate(combinedMax.minus(subsidizedMax));
  return { credits: total, capped, subsidizedMax: sub, unsubsidizedOnly: unsubOnly, combinedMax: sub.plus(unsubOnly) };
}
