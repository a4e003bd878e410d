/**
 * Readings of the regulation (rules.md §9 and architecture.md "Shadow check"): the places where sources and school
 * systems disagree, as a typed parameter of the engine. `calculate(input, table, readings)` computes a student
 * under the service's readings by default (SERVICE_READINGS, the choices of rules.md); any other value computes
 * the same student the way another system reads the rules, so the shadow check can say which reading explains a
 * school's figures.
 *
 * | field                 | service (default)                         | alternative                                   |
 * |-----------------------|-------------------------------------------|-----------------------------------------------|
 * | remainder             | largest remainder, ties to the earlier    | `last_term`: each term the floor of its share, |
 * |                       | term (rules.md §1)                        | the leftover dollars on the last term          |
 * | belowHalfTimeCredits  | counted in the year's sum (§3)            | `excluded` from Σ credits (the denominator,    |
 * |                       |                                           | Σ full-time credits, is unchanged)             |
 * | percentRounding       | half up to a whole percent (§1)           | `down` (floor) or `none` (the exact ratio)     |
 * | arithmetic            | exact decimal (§1)                        | `binary_float`: the percentage and the annual  |
 * |                       |                                           | amounts in IEEE-754 doubles, as a spreadsheet  |
 * |                       |                                           | or JavaScript does (2,250 × 0.69 → 1,552)      |
 * | gradPlusBase          | COA − the reduced Sub and Unsub (§2.2.3)  | `before_reduction`: COA − the starting amounts |
 * | closedTerms           | a paid term keeps its payments (§6)       | `recomputed`: payments ignored, every term     |
 * |                       |                                           | gets its share of the annual amount            |
 *
 * The distribution option (equal or proportional) is not a reading of the engine: both are always computed.
 *
 * Under `percentRounding: 'none'` the annual amounts are round_half_up(base × min(Σ credits, Σ full time) ÷
 * Σ full time), exactly; `reduced_annual_pct` shows that ratio × 100 rounded half up to 6 decimals.
 * Under `arithmetic: 'binary_float'`: ratio = Σ credits ÷ Σ full time, pct = min(100, Math.round(ratio × 100)),
 * annual = Math.round(base × (pct ÷ 100)) (Grad PLUS alike, never above floor(its base)); splits stay exact.
 */

import { Dec, HUNDRED, ZERO, minDec } from './decimal.ts';
import { DEFAULT_POLICY, type SchoolPolicy, isDefaultPolicy } from './policy.ts';
import { applyPercent, roundHalfUpDiv } from './rounding.ts';

export interface Readings {
  readonly remainder: 'largest_remainder' | 'last_term';
  readonly belowHalfTimeCredits: 'counted' | 'excluded';
  readonly percentRounding: 'half_up' | 'down' | 'none';
  readonly arithmetic: 'decimal' | 'binary_float';
  readonly gradPlusBase: 'after_reduction' | 'before_reduction';
  readonly closedTerms: 'kept' | 'recomputed';
  /** §2.3: the proration fraction exact, or as a 2-decimal figure rounded half up or truncated (policy, §10). */
  readonly prorationFraction: 'exact' | 'decimal_rounded' | 'decimal_truncated';
  /**
   * §2.3: the combined and subsidized limits each prorated directly (the Handbook), or the subsidized limit and the
   * unsubsidized-only part prorated separately, S' + round((C − S) × fraction) (Metro State's page).
   */
  readonly prorationLimits: 'combined_direct' | 'parts_rounded';
  /** §3, one-term loan period: the per-term formula on the full annual amount, or on half of it (policy, §10). */
  readonly singleTermBasis: 'full_annual' | 'half_annual';
  /** §3: a below-half-time term kept in the year, or dropped from it entirely (its credits and full-time credits). */
  readonly belowHalfTimeTerms: 'kept' | 'dropped';
}

/** The service's readings (rules.md): the default of every calculation. */
export const SERVICE_READINGS: Readings = Object.freeze({
  remainder: 'largest_remainder',
  belowHalfTimeCredits: 'counted',
  percentRounding: 'half_up',
  arithmetic: 'decimal',
  gradPlusBase: 'after_reduction',
  closedTerms: 'kept',
  prorationFraction: 'exact',
  prorationLimits: 'combined_direct',
  singleTermBasis: 'full_annual',
  belowHalfTimeTerms: 'kept',
});

/** The service's readings with some changed. */
export function readingsWith(changes: Partial<Readings>): Readings {
  return Object.freeze({ ...SERVICE_READINGS, ...changes });
}

/** `base` with some readings changed. */
export function readingsOver(base: Readings, changes: Partial<Readings>): Readings {
  return Object.freeze({ ...base, ...changes });
}

const policyReadings = new WeakMap<SchoolPolicy, Readings>();

/**
 * The readings a school policy (rules.md §10, src/domain/policy.ts) calculates under: each option is one reading;
 * the default policy gives SERVICE_READINGS itself. Cached per policy object (a file's rows share one).
 */
export function readingsForPolicy(policy: SchoolPolicy): Readings {
  if (policy === DEFAULT_POLICY) return SERVICE_READINGS;
  let readings = policyReadings.get(policy);
  if (readings === undefined) {
    readings = isDefaultPolicy(policy)
      ? SERVICE_READINGS
      : readingsWith({
          prorationFraction: policy.proration_fraction,
          remainder: policy.remainder_placement,
          singleTermBasis: policy.single_term_basis,
          belowHalfTimeCredits: policy.below_half_time_credits,
          gradPlusBase: policy.grad_plus_gap,
        });
    policyReadings.set(policy, readings);
  }
  return readings;
}

/**
 * The reasons of the shadow check, in the table's order (architecture.md "Shadow check"): each names the
 * readings under which our figures are computed to see whether they reproduce a school's. `option_mismatch`
 * uses the service's readings with the other distribution option; `unexplained` is none of them.
 */
export const CHECK_REASONS = [
  'option_mismatch',
  'remainder_placement',
  'below_half_time_excluded',
  'percent_not_rounded',
  'binary_float',
  'grad_plus_gap_before_reduction',
  'paid_term_recomputed',
  'unexplained',
] as const;
export type CheckReason = (typeof CHECK_REASONS)[number];

/** The readings each reason tries, in order (several for `percent_not_rounded`: unrounded, then rounded down). */
export const REASON_READINGS: Readonly<Record<Exclude<CheckReason, 'option_mismatch' | 'unexplained'>, Readings[]>> = {
  remainder_placement: [readingsWith({ remainder: 'last_term' })],
  below_half_time_excluded: [readingsWith({ belowHalfTimeCredits: 'excluded' })],
  percent_not_rounded: [readingsWith({ percentRounding: 'none' }), readingsWith({ percentRounding: 'down' })],
  binary_float: [readingsWith({ arithmetic: 'binary_float' })],
  grad_plus_gap_before_reduction: [readingsWith({ gradPlusBase: 'before_reduction' })],
  paid_term_recomputed: [readingsWith({ closedTerms: 'recomputed' })],
};

/**
 * The year's percentage under a reading, with what the reduction needs: `percent` is what the result shows; for
 * `percentRounding: 'none'` the exact ratio `num ÷ den` (already capped at 1) reduces the amounts.
 */
export interface YearPercent {
  percent: Dec;
  exact: { num: Dec; den: Dec } | null;
  float: boolean;
}

const SIX_PLACES = 6;

/**
 * Rounding of an IEEE-754 double as JavaScript does it: the `binary_float` reading emulates a system that computes
 * in doubles (the error it reproduces is the point), so it is the one place in the domain allowed to round one.
 */
function roundDouble(x: number): number {
  // eslint-disable-next-line no-restricted-properties -- the binary_float reading emulates double arithmetic
  return Math.round(x);
}

/**
 * The year's percentage under `readings` (not the service's: the caller keeps its own fast path for those).
 * `credits[i]` counts in the sum unless the reading excludes terms below half time (`eligible[i]` false).
 */
export function yearPercentUnder(
  credits: readonly Dec[],
  eligible: readonly boolean[],
  annualFtCredits: Dec,
  readings: Readings,
): YearPercent {
  let sum = ZERO;
  for (let i = 0; i < credits.length; i++) {
    if (readings.belowHalfTimeCredits === 'excluded' && !eligible[i]) continue;
    sum = sum.plus(credits[i]!);
  }
  if (readings.arithmetic === 'binary_float') {
    let floatSum = 0;
    for (let i = 0; i < credits.length; i++) {
      if (readings.belowHalfTimeCredits === 'excluded' && !eligible[i]) continue;
      floatSum += credits[i]!.toNumber();
    }
    const ratio = floatSum / annualFtCredits.toNumber();
    return { percent: new Dec(Math.min(100, roundDouble(ratio * 100))), exact: null, float: true };
  }
  switch (readings.percentRounding) {
    case 'none': {
      const num = minDec(sum, annualFtCredits);
      const percent = num.times(HUNDRED).dividedBy(annualFtCredits).toDecimalPlaces(SIX_PLACES, Dec.ROUND_HALF_UP);
      return { percent, exact: { num, den: annualFtCredits }, float: false };
    }
    case 'down':
      return { percent: minDec(HUNDRED, sum.times(HUNDRED).divToInt(annualFtCredits)), exact: null, float: false };
    case 'half_up':
      return {
        percent: minDec(HUNDRED, roundHalfUpDiv(sum.times(HUNDRED), annualFtCredits)),
        exact: null,
        float: false,
      };
  }
}

/** The reduced annual amount of one loan type under a reading: round(base × the year's percentage). */
export function reduceUnder(base: Dec, year: YearPercent): Dec {
  if (base.isZero()) return ZERO;
  if (year.float) return new Dec(roundDouble(base.toNumber() * (year.percent.toNumber() / 100)));
  if (year.exact !== null) return roundHalfUpDiv(base.times(year.exact.num), year.exact.den);
  return applyPercent(base, year.percent);
}
