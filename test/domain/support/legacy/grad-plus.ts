/**
 * Grad PLUS sized after the reduction (rules.md §2.2 items 3–5), for legacy graduate and professional borrowers
 * without plus_denied:
 *
 *   grad_plus_base = max(0, cost_of_attendance − annual_basic_eligibility_sub − annual_basic_eligibility_unsub)
 *   grad_plus_base ≤ total_limit − sub_base − unsub_base            (when total_limit is given)
 *   annual_basic_eligibility_grad_plus = min(round_half_up(grad_plus_base × pct ÷ 100), floor(grad_plus_base))
 *
 * i.e. the cost of attendance (already net of other aid) minus the *reduced* Direct Loans the student actually
 * receives, reduced once by the percentage (Oracle SFP: "applied to the unpackaged amount"; project-sor). The
 * floor keeps rounding from lifting Grad PLUS above a cost-of-attendance gap with cents, so the reduced
 * amounts plus Grad PLUS never exceed the cost of attendance.
 */

import { type Dec, ZERO, maxDec, minDec } from './decimal.ts';
import { applyPercent } from './rounding.ts';

export interface GradPlusSizing {
  /** cost_of_attendance (net of other aid). */
  costOfAttendance: Dec;
  /** total_limit − sub_base − unsub_base (≥ 0), when total_limit is given; null otherwise. */
  ceiling: Dec | null;
  /** total_limit, for the warning when the ceiling binds. */
  totalLimit: Dec | null;
}

export interface GradPlusAmount {
  /** COA − reduced sub − reduced unsub, ≥ 0, before the total_limit ceiling. */
  gap: Dec;
  /** The base after the ceiling. */
  base: Dec;
  /** True when the total_limit ceiling lowered the base. */
  squeezed: boolean;
  /** The reduced annual Grad PLUS, whole dollars. */
  annual: Dec;
}

/**
 * `reduce` replaces round_half_up(base × pct ÷ 100) under another reading of the rules (src/domain/readings.ts);
 * `annualSub`/`annualUnsub` are then the amounts that reading subtracts from the cost of attendance.
 */
export function sizeGradPlus(
  sizing: GradPlusSizing,
  annualSub: Dec,
  annualUnsub: Dec,
  percent: Dec,
  reduce?: (base: Dec) => Dec,
): GradPlusAmount {
  const gap = maxDec(ZERO, sizing.costOfAttendance.minus(annualSub).minus(annualUnsub));
  const base = sizing.ceiling === null ? gap : minDec(gap, sizing.ceiling);
  const annual = base.isZero()
    ? ZERO
    : minDec(reduce === undefined ? applyPercent(base, percent) : reduce(base), base.floor());
  return { gap, base, squeezed: base.lt(gap), annual };
}
