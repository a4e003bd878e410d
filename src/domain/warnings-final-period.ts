/**
 * The warning sentences (rules.md §7) of the final period of a program (§2.3: the prorated limits, and when the
 * proration does not apply) and of the disbursement options not offered (§5).
 */

import type { Dec } from './decimal.ts';
import type { DegreeLevel } from './types.ts';
import { formatCredits, formatDollars, joinList } from './warning-text.ts';
import type { CreditChange } from './warnings-terms.ts';

export interface ProrationFacts {
  /** P: the credits of the period's terms at least half time. */
  credits: Dec;
  academicYearCredits: Dec;
  /** Σ full_time_credits of the period's terms (credits_enrolled > 0). */
  periodFullTime: Dec;
  capped: boolean;
  /** The 2-decimal fraction under a school policy; null for the exact fraction. */
  decimal: Dec | null;
  method: 'exact' | 'decimal_rounded' | 'decimal_truncated';
  /** Labels of the period's terms below half time, left out of P. */
  leftOut: readonly string[];
  subsidizedMax: Dec;
  combinedMax: Dec;
  /** The unsubsidized-only part prorated on its own (the `parts_rounded` reading); null when prorated directly. */
  unsubsidizedOnly: Dec | null;
}

export function finalPeriodProrated(p: ProrationFacts): string {
  const y = formatCredits(p.academicYearCredits);
  const shorter = `the period's ${formatCredits(p.periodFullTime)} full-time credits are fewer than the academic year's ${y}`;
  const fraction = p.capped
    ? `${formatCredits(p.credits)} credits, at least the academic year's ${y}, so the limits are not lowered`
    : p.decimal === null
      ? `${formatCredits(p.credits)} of ${y} academic-year credits`
      : `${formatCredits(p.credits)} of ${y} academic-year credits as the decimal ${p.decimal.toFixed()}, ` +
        `${p.method === 'decimal_rounded' ? 'rounded' : 'truncated'} to 2 places by school policy`;
  const leftOut =
    p.leftOut.length === 0
      ? ''
      : `; ${joinList(p.leftOut)}, below half time, ${p.leftOut.length === 1 ? 'receives' : 'receive'} no loan and ` +
        `${p.leftOut.length === 1 ? 'its' : 'their'} credits are not counted`;
  const combined =
    p.unsubsidizedOnly === null
      ? `${formatDollars(p.combinedMax)} combined`
      : `${formatDollars(p.combinedMax)} combined (${formatDollars(p.subsidizedMax)} + ` +
        `${formatDollars(p.unsubsidizedOnly)})`;
  return (
    `Final period of the program, shorter than an academic year (${shorter}): the annual loan limits are ` +
    `prorated (${fraction}${leftOut}) to ${formatDollars(p.subsidizedMax)} subsidized and ${combined} ` +
    '(34 CFR 685.203(a)(4)–(6), (d); FSA Handbook Vol. 8 ch. 5), and the less-than-full-time reduction is not ' +
    'applied on top.'
  );
}

export function prorationNotRedone(changes: readonly CreditChange[]): string {
  const what = joinList(
    changes.map((c) => `${c.label} from ${formatCredits(c.enrolled)} to ${formatCredits(c.actual)} credits`),
  );
  return (
    `Final credits differ from enrolled credits (${what}), but the final-period proration was not redone: it is ` +
    'fixed at origination on the credits the student was scheduled to attend (34 CFR 685.301(a)(5)(ii)); the ' +
    'final credits still decide which terms can be paid.'
  );
}

export function finalPeriodNotShorter(annualFtCredits: Dec, academicYearCredits: Dec): string {
  return (
    `final_period_of_program does not change the amounts: the period's ${formatCredits(annualFtCredits)} ` +
    `full-time credits are not fewer than the academic year's ${formatCredits(academicYearCredits)}, so the ` +
    'period is not shorter than an academic year; no traditional proration, the normal reduction applies.'
  );
}

export function finalPeriodIgnoredForGraduate(degree: DegreeLevel): string {
  return (
    `final_period_of_program and academic_year_credits were ignored because the student is a ${degree} ` +
    'student: the proration of a final period shorter than an academic year is an undergraduate rule.'
  );
}

export function academicYearCreditsIgnored(): string {
  return (
    'academic_year_credits was ignored because final_period_of_program is false: it is used only for the ' +
    'final period of an undergraduate program.'
  );
}

export function proportionalNotOfferedNoReduction(): string {
  return (
    'Proportional disbursement is not offered because the academic-year percentage is 100%: the student is ' +
    'not subject to the reduction, so only equal disbursements apply.'
  );
}

export function proportionalNotOfferedFinalPeriod(): string {
  return (
    'Proportional disbursement is not offered because the final-period proration replaces the ' +
    'less-than-full-time reduction: the student is not subject to the reduction, so only equal disbursements ' +
    'apply.'
  );
}

export function proportionalNotOfferedFewEligibleTerms(eligibleCount: number): string {
  const which = eligibleCount === 0 ? 'no term is' : 'only one term is';
  return (
    `Proportional disbursement is not offered because ${which} at least half time: with fewer than two ` +
    'eligible terms the proportional and equal options are the same.'
  );
}
