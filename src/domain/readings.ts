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
 * | prorationFraction     | §2.3 fraction exact                       | a 2-decimal figure, `decimal_rounded` (0.67)   |
 * |                       |                                           | or `decimal_truncated` (0.66)                  |
 * | prorationLimits       | §2.3 C'max and S'max each prorated        | `parts_rounded`: S' + round((C − S) × f)       |
 * |                       | directly (Handbook ch. 5)                 | (Metro State's page)                           |
 * | singleTermBasis       | one-term loan period on the full annual   | `half_annual`: round(base × pct ÷ 200) for Sub |
 * |                       | amount (§3, FSA example 2)                | and Unsub; Grad PLUS not halved                |
 * | belowHalfTimeTerms    | a below-half-time term kept in the year   | `dropped`: its credits and its full-time       |
 * |                       |                                           | credits left out of the percentage             |
 *
 * The distribution option (equal or proportional) is not a reading of the engine: both are always computed.
 * Five readings are also school-policy options (rules.md §10, src/domain/policy.ts, readingsForPolicy()).
 *
 * Under `belowHalfTimeTerms: 'dropped'` a term below half time (credits(t) > 0 and < full time ÷ 2; a 0-credit
 * term is not enrolled, not below half time) is left out of both sums of the percentage; when every term would be
 * dropped, none is. `annual_ft_credits` in the result stays the request's Σ full-time credits.
 *
 * Under `percentRounding: 'none'` the annual amounts are round_half_up(base × min(Σ credits, Σ full time) ÷
 * Σ full time), exactly; `reduced_annual_pct` shows that ratio × 100 rounded half up to 6 decimals.
 * Under `arithmetic: 'binary_float'`: ratio = Σ credits ÷ Σ full time, pct = min(100, Math.round(ratio × 100)),
 * annual = Math.round(base × (pct ÷ 100)) (Grad PLUS alike, never above floor(its base)); splits stay exact.
 */

import { Dec, HUNDRED, ZERO, isPositive, minDec } from './decimal.ts';
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
  'proration_parts_rounded',
  'proration_decimal',
  'single_term_half_annual',
  'below_half_time_term_dropped',
  'unexplained',
] as const;
export type CheckReason = (typeof CHECK_REASONS)[number];

/** The reasons that try readings of the engine (all but `option_mismatch` and `unexplained`). */
export type ReadingReason = Exclude<CheckReason, 'option_mismatch' | 'unexplained'>;

/**
 * What each reason changes, as changes on top of a base readings (the service's, or a school policy's), in the
 * order they are tried: several for `percent_not_rounded` (unrounded, then rounded down) and `proration_decimal`
 * (the fraction in another form than the base's: rounded, truncated, exact; the form the base already has is left
 * out by readingsForReason()). The shadow check applies them over the policy in force.
 */
export const REASON_CHANGES: Readonly<Record<ReadingReason, readonly Readonly<Partial<Readings>>[]>> = Object.freeze({
  remainder_placement: [{ remainder: 'last_term' }],
  below_half_time_excluded: [{ belowHalfTimeCredits: 'excluded' }],
  percent_not_rounded: [{ percentRounding: 'none' }, { percentRounding: 'down' }],
  binary_float: [{ arithmetic: 'binary_float' }],
  grad_plus_gap_before_reduction: [{ gradPlusBase: 'before_reduction' }],
  paid_term_recomputed: [{ closedTerms: 'recomputed' }],
  proration_parts_rounded: [{ prorationLimits: 'parts_rounded' }],
  proration_decimal: [
    { prorationFraction: 'decimal_rounded' },
    { prorationFraction: 'decimal_truncated' },
    { prorationFraction: 'exact' },
  ],
  single_term_half_annual: [{ singleTermBasis: 'half_annual' }],
  below_half_time_term_dropped: [{ belowHalfTimeTerms: 'dropped' }],
} satisfies Record<ReadingReason, readonly Partial<Readings>[]>);

/** True when `base` already has every reading `changes` sets. */
export function readingsInclude(base: Readings, changes: Partial<Readings>): boolean {
  for (const key of Object.keys(changes) as (keyof Readings)[]) if (base[key] !== changes[key]) return false;
  return true;
}

/** A reason's changes applied over `base`, leaving out those `base` already has. */
function reasonReadingsOver(base: Readings, reason: ReadingReason): readonly Readings[] {
  return Object.freeze(
    REASON_CHANGES[reason].filter((c) => !readingsInclude(base, c)).map((c) => readingsOver(base, c)),
  );
}

/** The readings each reason tries over the service's readings (REASON_CHANGES over SERVICE_READINGS). */
export const REASON_READINGS: Readonly<Record<ReadingReason, readonly Readings[]>> = Object.freeze(
  Object.fromEntries(
    (Object.keys(REASON_CHANGES) as ReadingReason[]).map((reason) => [
      reason,
      reasonReadingsOver(SERVICE_READINGS, reason),
    ]),
  ) as Record<ReadingReason, readonly Readings[]>,
);

const reasonReadingsCache = new WeakMap<Readings, Map<ReadingReason, readonly Readings[]>>();

/**
 * The readings a reason tries on top of `base` (a policy's readings, readingsForPolicy()): each of its changes
 * applied over `base`, leaving out a change `base` already has (an empty list: the policy already is the reason's
 * reading, so the reason is skipped). Over SERVICE_READINGS this is REASON_READINGS[reason] itself. Cached per base
 * object.
 */
export function readingsForReason(base: Readings, reason: ReadingReason): readonly Readings[] {
  if (base === SERVICE_READINGS) return REASON_READINGS[reason];
  let byReason = reasonReadingsCache.get(base);
  if (byReason === undefined) {
    byReason = new Map();
    reasonReadingsCache.set(base, byReason);
  }
  let list = byReason.get(reason);
  if (list === undefined) {
    list = reasonReadingsOver(base, reason);
    byReason.set(reason, list);
  }
  return list;
}

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
const HALF = new Dec('0.5');

/**
 * Rounding of an IEEE-754 double as JavaScript does it: the `binary_float` reading emulates a system that computes
 * in doubles (the error it reproduces is the point), so it is the one place in the domain allowed to round one.
 */
function roundDouble(x: number): number {
  // eslint-disable-next-line no-restricted-properties -- the binary_float reading emulates double arithmetic
  return Math.round(x);
}

/**
 * Whether `belowHalfTimeTerms: 'dropped'` leaves term i out of the year: below half time with credits > 0, unless
 * every term would be left out.
 */
function droppedTerms(credits: readonly Dec[], eligible: readonly boolean[]): boolean[] | null {
  let any = false;
  let all = true;
  const dropped = credits.map((c, i) => {
    const drop = !eligible[i] && isPositive(c);
    if (drop) any = true;
    else all = false;
    return drop;
  });
  return any && !all ? dropped : null;
}

/**
 * The year's percentage under `readings` (not the service's: the caller keeps its own fast path for those).
 * `credits[i]` counts in the sum unless the reading excludes terms below half time (`eligible[i]` false); under
 * `belowHalfTimeTerms: 'dropped'` such a term's `fullTime[i]` also leaves the denominator.
 */
export function yearPercentUnder(
  credits: readonly Dec[],
  eligible: readonly boolean[],
  annualFtCredits: Dec,
  readings: Readings,
  fullTime?: readonly Dec[],
): YearPercent {
  const dropped = readings.belowHalfTimeTerms === 'dropped' ? droppedTerms(credits, eligible) : null;
  let den = annualFtCredits;
  if (dropped !== null && fullTime !== undefined) {
    for (let i = 0; i < credits.length; i++) if (dropped[i]) den = den.minus(fullTime[i]!);
  }
  const skip = (i: number) =>
    (readings.belowHalfTimeCredits === 'excluded' && !eligible[i]) || (dropped !== null && dropped[i]!);
  let sum = ZERO;
  for (let i = 0; i < credits.length; i++) {
    if (skip(i)) continue;
    sum = sum.plus(credits[i]!);
  }
  if (readings.arithmetic === 'binary_float') {
    let floatSum = 0;
    for (let i = 0; i < credits.length; i++) {
      if (skip(i)) continue;
      floatSum += credits[i]!.toNumber();
    }
    const ratio = floatSum / den.toNumber();
    return { percent: new Dec(Math.min(100, roundDouble(ratio * 100))), exact: null, float: true };
  }
  switch (readings.percentRounding) {
    case 'none': {
      const num = minDec(sum, den);
      const percent = num.times(HUNDRED).dividedBy(den).toDecimalPlaces(SIX_PLACES, Dec.ROUND_HALF_UP);
      return { percent, exact: { num, den }, float: false };
    }
    case 'down':
      return { percent: minDec(HUNDRED, sum.times(HUNDRED).divToInt(den)), exact: null, float: false };
    case 'half_up':
      return {
        percent: minDec(HUNDRED, roundHalfUpDiv(sum.times(HUNDRED), den)),
        exact: null,
        float: false,
      };
  }
}

/**
 * The reduced annual amount of one loan type under a reading: round(base × the year's percentage); `half` (the
 * `singleTermBasis: 'half_annual'` reading of a one-term loan period) reduces half the base: round(base × pct ÷ 200).
 */
export function reduceUnder(fullBase: Dec, year: YearPercent, half = false): Dec {
  if (fullBase.isZero()) return ZERO;
  const base = half ? fullBase.times(HALF) : fullBase;
  if (year.float) return new Dec(roundDouble(base.toNumber() * (year.percent.toNumber() / 100)));
  if (year.exact !== null) return roundHalfUpDiv(base.times(year.exact.num), year.exact.den);
  return applyPercent(base, year.percent);
}
