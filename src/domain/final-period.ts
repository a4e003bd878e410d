/**
 * Final period of an undergraduate program shorter than an academic year (rules.md §2.3 as revised in 2026-27.3;
 * 34 CFR 685.203(a)(4)–(6) and (d); FSA Handbook 2025-26 Vol. 8 ch. 5, "Loan Limit Proration").
 *
 * - The period is the request's terms the student is scheduled to enroll in (credits_enrolled > 0): a 0-credit
 *   term between two enrolled ones is not part of it (Handbook example 6).
 * - It is shorter than an academic year when the period's full_time_credits sum to less than academic_year_credits.
 * - P = Σ credits_enrolled over the period's terms scheduled at least half time (credits_enrolled ≥ full time ÷ 2):
 *   a below-half-time term receives no loan and its credits are not used (Handbook example 5).
 * - fraction = min(1, P ÷ academic_year_credits), exact, or (school policy, rules.md §10) a 2-decimal figure
 *   rounded half up (24/36 → 0.67) or truncated (0.66).
 * - C'max = round_half_up(C_max × fraction) and S'max = round_half_up(S_max × fraction), each prorated directly
 *   (Handbook example 8: 4,583 / 2,917). The shadow check's `parts_rounded` reading instead prorates the
 *   unsubsidized-only part: C'max = S'max + round_half_up((C_max − S_max) × fraction) (Metro State's page).
 * - Fixed at origination: credits_enrolled, never actual_final_credits (34 CFR 685.301(a)(5)(ii)), so the revision
 *   and the baseline of §6 share the same prorated limits.
 *
 * The less-than-full-time reduction is then not applied on top (reduced_annual_pct 100).
 */

import { type Dec, HUNDRED, ONE, TWO, ZERO, isPositive } from './decimal.ts';
import { dec } from './decimal-read.ts';
import type { Readings } from './readings.ts';
import { roundHalfUp, roundHalfUpDiv } from './rounding.ts';
import type { CalculationInput } from './types.ts';

/**
 * How §2.3 applies to a request:
 * - `none`: final_period_of_program is false;
 * - `ignored_not_undergraduate`: the flag is set for a graduate or professional student (warning);
 * - `not_shorter`: the period is not shorter than an academic year (normal reduction, warning);
 * - `prorate`: traditional proration, no reduction on top.
 * `periodFullTime` is Σ full_time_credits over the period's terms (credits_enrolled > 0).
 */
export type FinalPeriodCase =
  | { kind: 'none' }
  | { kind: 'ignored_not_undergraduate' }
  | { kind: 'not_shorter'; academicYearCredits: Dec; periodFullTime: Dec }
  | { kind: 'prorate'; academicYearCredits: Dec; periodFullTime: Dec };

const NONE: FinalPeriodCase = Object.freeze({ kind: 'none' });
const IGNORED: FinalPeriodCase = Object.freeze({ kind: 'ignored_not_undergraduate' });

/** A term as §2.3 reads it: its credits at origination and its full-time credits. */
export interface PeriodTerm {
  readonly enrolled: Dec;
  readonly fullTime: Dec;
}

/** Σ full_time_credits over the terms with credits_enrolled > 0. */
export function periodFullTimeCredits(terms: readonly PeriodTerm[]): Dec {
  let sum = ZERO;
  for (const t of terms) if (isPositive(t.enrolled)) sum = sum.plus(t.fullTime);
  return sum;
}

export function finalPeriodCase(input: CalculationInput, terms: readonly PeriodTerm[]): FinalPeriodCase {
  if (!input.final_period_of_program) return NONE;
  if (input.degree_level !== 'undergraduate') return IGNORED;
  if (input.academic_year_credits === null) {
    // The schema requires academic_year_credits here (422), so this is a programming error.
    throw new Error('finalPeriodCase: academic_year_credits is required for a final period (validated by the schema)');
  }
  const academicYearCredits = dec(input.academic_year_credits);
  const periodFullTime = periodFullTimeCredits(terms);
  return periodFullTime.lt(academicYearCredits)
    ? { kind: 'prorate', academicYearCredits, periodFullTime }
    : { kind: 'not_shorter', academicYearCredits, periodFullTime };
}

/** The readings §2.3 depends on (a school policy, rules.md §10, or the shadow check's variants). */
export type ProrationReadings = Pick<Readings, 'prorationFraction' | 'prorationLimits'>;

export interface ProratedLimits {
  /** P: Σ credits_enrolled of the period's terms scheduled at least half time. */
  credits: Dec;
  /** Indices of the terms whose credits make P. */
  countedTerms: number[];
  /** Indices of the period's terms below half time (credits_enrolled > 0 but < full time ÷ 2): left out of P. */
  belowHalfTimeTerms: number[];
  /** True when P ≥ academic_year_credits: the fraction is capped at 1 (an overload never raises a limit). */
  capped: boolean;
  /** The 2-decimal fraction applied under a decimal reading; null for the exact fraction P ÷ academic_year_credits. */
  decimal: Dec | null;
  method: ProrationReadings['prorationFraction'];
  limits: ProrationReadings['prorationLimits'];
  subsidizedMax: Dec;
  /** C'max − S'max: the unsubsidized room left beside the prorated subsidized limit. */
  unsubsidizedOnly: Dec;
  combinedMax: Dec;
}

/** min(1, P ÷ Y) as a 2-decimal figure, rounded half up or truncated (rules.md §10 `proration_fraction`). */
function decimalFraction(credits: Dec, academicYearCredits: Dec, method: 'decimal_rounded' | 'decimal_truncated'): Dec {
  const hundredths =
    method === 'decimal_rounded'
      ? roundHalfUpDiv(credits.times(HUNDRED), academicYearCredits)
      : credits.times(HUNDRED).divToInt(academicYearCredits);
  return hundredths.dividedBy(HUNDRED);
}

/**
 * S'max and C'max of §2.3 from the terms at origination. With the exact fraction each product is rounded from the
 * exact rational `amount × P ÷ academic_year_credits` (8/24 never passes through a rounded 0.333…).
 */
export function proratedLimits(
  subsidizedMax: Dec,
  combinedMax: Dec,
  terms: readonly PeriodTerm[],
  academicYearCredits: Dec,
  readings: ProrationReadings,
): ProratedLimits {
  let total = ZERO;
  const countedTerms: number[] = [];
  const belowHalfTimeTerms: number[] = [];
  for (let i = 0; i < terms.length; i++) {
    const t = terms[i]!;
    if (!isPositive(t.enrolled)) continue;
    if (t.enrolled.times(TWO).gte(t.fullTime)) {
      total = total.plus(t.enrolled);
      countedTerms.push(i);
    } else belowHalfTimeTerms.push(i);
  }
  const capped = total.gte(academicYearCredits);
  const method = readings.prorationFraction;
  const decimal = method === 'exact' ? null : capped ? ONE : decimalFraction(total, academicYearCredits, method);
  const prorate = (amount: Dec): Dec =>
    capped
      ? amount
      : decimal === null
        ? roundHalfUpDiv(amount.times(total), academicYearCredits)
        : roundHalfUp(amount.times(decimal));
  const sub = prorate(subsidizedMax);
  const combined =
    readings.prorationLimits === 'parts_rounded'
      ? sub.plus(prorate(combinedMax.minus(subsidizedMax)))
      : prorate(combinedMax);
  return {
    credits: total,
    countedTerms,
    belowHalfTimeTerms,
    capped,
    decimal,
    method,
    limits: readings.prorationLimits,
    subsidizedMax: sub,
    unsubsidizedOnly: combined.minus(sub),
    combinedMax: combined,
  };
}
