/**
 * The warning sentences (rules.md §7) about the student's inputs and annual amounts: inputs that do not apply
 * (§2), the caps on the bases (§2, §3), Grad PLUS and the health professions increase (§2.1, §2.2), the school
 * policy in force (§10) and the year's percentage (§4).
 */

import type { Dec } from './decimal.ts';
import type { DegreeLevel, GradeLevel } from './types.ts';
import { GRADE_NAMES, formatCredits, formatDollars, formatPercent } from './warning-text.ts';

export function gradeLevelIgnored(grade: GradeLevel, degree: DegreeLevel): string {
  return (
    `grade_level "${grade}" was ignored because the student is a ${degree} student: grade levels apply only ` +
    `to undergraduate loan limits.`
  );
}

export function legacyIgnoredForUndergraduate(): string {
  return (
    'is_legacy_borrower was ignored because the student is an undergraduate: the legacy (interim) exception ' +
    'applies only to graduate and professional students.'
  );
}

export function subsidizedIgnoredForGraduate(amount: Dec, degree: DegreeLevel): string {
  return (
    `subsidized_amount of ${formatDollars(amount)} was ignored because ${degree} students are not eligible ` +
    `for Direct Subsidized Loans; the subsidized amount is $0.`
  );
}

export function subsidizedMaximumCap(requested: Dec, maximum: Dec, grade: GradeLevel): string {
  return (
    `The subsidized amount of ${formatDollars(requested)} exceeds the statutory subsidized maximum of ` +
    `${formatDollars(maximum)} for a ${GRADE_NAMES[grade]} undergraduate, so the subsidized starting amount ` +
    `is capped at ${formatDollars(maximum)}.`
  );
}

export function subsidizedProratedMaximumCap(requested: Dec, maximum: Dec): string {
  return (
    `The subsidized amount of ${formatDollars(requested)} exceeds the prorated subsidized maximum of ` +
    `${formatDollars(maximum)} for this final period, so the subsidized starting amount is capped at ` +
    `${formatDollars(maximum)}.`
  );
}

export interface CapAmounts {
  sub: Dec;
  unsub: Dec;
}

function describeSubUnsub(a: CapAmounts): string {
  return `${formatDollars(a.sub)} subsidized and ${formatDollars(a.unsub)} unsubsidized`;
}

function capSentence(capName: string, cap: Dec, before: CapAmounts, after: CapAmounts): string {
  return (
    `The ${capName} of ${formatDollars(cap)} is below the starting amounts of ` +
    `${formatDollars(before.sub.plus(before.unsub))} (${describeSubUnsub(before)}), so they were lowered ` +
    `(unsubsidized first, then subsidized) to ${describeSubUnsub(after)}.`
  );
}

export function totalLimitCap(cap: Dec, before: CapAmounts, after: CapAmounts): string {
  return capSentence('institutional program limit (total_limit, 34 CFR 685.203(m)(2))', cap, before, after);
}

export function costOfAttendanceCap(cap: Dec, before: CapAmounts, after: CapAmounts): string {
  return capSentence(
    'cost of attendance minus other aid (cost_of_attendance, 34 CFR 685.203(j)(1))',
    cap,
    before,
    after,
  );
}

export function noSubsidizedEligibilityAssumed(combinedMax: Dec): string {
  return (
    'subsidized_amount was not provided, so no subsidized eligibility was assumed: the whole combined limit of ' +
    `${formatDollars(combinedMax)} is unsubsidized. Send the student's need-based subsidized eligibility if ` +
    'the student has any (0 for a student without need).'
  );
}

export function gradPlusDenied(): string {
  return "Grad PLUS is $0 because plus_denied says the student's own Grad PLUS application was denied.";
}

export function gradPlusNeedsCostOfAttendance(): string {
  return (
    "Grad PLUS is $0 because cost_of_attendance was not provided: a legacy borrower's Grad PLUS eligibility is " +
    'the cost of attendance minus other aid and the other loans.'
  );
}

export function gradPlusTotalLimitCap(totalLimit: Dec, ceiling: Dec, gap: Dec): string {
  return (
    `The institutional program limit (total_limit, 34 CFR 685.203(m)(2)) of ${formatDollars(totalLimit)} leaves ` +
    `${formatDollars(ceiling)} for Grad PLUS after the subsidized and unsubsidized starting amounts, so the ` +
    `Grad PLUS base was lowered from ${formatDollars(gap)} (cost of attendance minus the reduced Direct Loans) ` +
    `to ${formatDollars(ceiling)} before the reduction.`
  );
}

/**
 * Grad PLUS of $0 for a legacy borrower with a cost of attendance (rules.md §7, 2026-27.3): why, with the amounts.
 * `basis` says which Sub and Unsub were subtracted: the reduced amounts, or the starting ones (grad_plus_gap
 * before_reduction).
 */
export function gradPlusZeroNoGap(costOfAttendance: Dec, sub: Dec, unsub: Dec, basis: 'reduced' | 'starting'): string {
  return (
    `Grad PLUS is $0 because the cost of attendance of ${formatDollars(costOfAttendance)} does not exceed the ` +
    `${basis} subsidized and unsubsidized amounts (${formatDollars(sub)} + ${formatDollars(unsub)} = ` +
    `${formatDollars(sub.plus(unsub))}): nothing is left for Grad PLUS.`
  );
}

export function gradPlusZeroTotalLimit(totalLimit: Dec, sub: Dec, unsub: Dec, gap: Dec): string {
  return (
    `Grad PLUS is $0 because the institutional program limit (total_limit, 34 CFR 685.203(m)(2)) of ` +
    `${formatDollars(totalLimit)} is used up by the subsidized and unsubsidized starting amounts ` +
    `(${formatDollars(sub)} + ${formatDollars(unsub)}), so it leaves $0 for Grad PLUS instead of the ` +
    `${formatDollars(gap)} of cost of attendance minus the reduced Direct Loans.`
  );
}

export function gradPlusZeroRounded(base: Dec, percent: Dec): string {
  return (
    `Grad PLUS is $0 because its base of ${formatDollars(base)} reduced to ${formatPercent(percent)} (and never ` +
    `above the whole dollars of the base) rounds to $0.`
  );
}

export function gradPlusClosedToNewBorrowers(): string {
  return (
    'Grad PLUS is $0 because Grad PLUS is closed to graduate and professional borrowers without the interim ' +
    '(legacy) exception from July 1, 2026 (34 CFR 685.200(b)(2)).'
  );
}

export function healthProfessionsIncrease(
  program: string,
  months: number,
  additional: Dec,
  how: string,
  combinedMax: Dec,
  table: string,
): string {
  return (
    `Increased unsubsidized amount for health professions (${program}, ${months}-month academic year): ` +
    `${formatDollars(additional)} (${how}) is added to the combined limit, which becomes ` +
    `${formatDollars(combinedMax)}, as prior law allows and the interim (legacy) exception keeps (FSA Handbook ` +
    `2025-26 Vol. 8 ch. 4, table ${table}). Foreign schools may not award this increase.`
  );
}

export function healthProfessionsIgnored(
  why: 'undergraduate' | 'not_legacy' | 'no_program' | 'not_in_force',
  degree: DegreeLevel,
  awardYear: string,
): string {
  const fields = 'health_professions_program and academic_year_months were ignored';
  switch (why) {
    case 'undergraduate':
      return `${fields} because the student is an undergraduate: the increased unsubsidized amounts for health professions never applied to undergraduates.`;
    case 'not_legacy':
      return (
        `${fields} because the ${degree} student is not a legacy borrower: the increased unsubsidized amounts for ` +
        'health professions ended from July 1, 2026 for borrowers without the interim (legacy) exception.'
      );
    case 'no_program':
      return 'academic_year_months was ignored because no health_professions_program was given: the months only size the increased unsubsidized amount of a health professions program.';
    case 'not_in_force':
      return `${fields} because the table of increased unsubsidized amounts for health professions has no amounts in force for award year ${awardYear}.`;
  }
}

export function schoolPolicyInForce(options: string): string {
  return `School policy in force: ${options}.`;
}

export function shorterLoanPeriod(
  termCount: number,
  academicYearTerms: number,
  credits: Dec,
  annualFtCredits: Dec,
  percent: Dec,
): string {
  return (
    `The loan period has ${termCount} term${termCount === 1 ? '' : 's'} but the academic year has ` +
    `${academicYearTerms}: the loan period is shorter than the academic year, so the percentage is computed ` +
    `over the supplied terms only (${formatCredits(credits)} of ${formatCredits(annualFtCredits)} credits = ` +
    `${formatPercent(percent)} of the annual amounts).`
  );
}

export function legacyStillReduced(percent: Dec): string {
  return (
    'Legacy borrower status (the interim exception) does not exempt the student from the less-than-full-time ' +
    `reduction, so the annual amounts are reduced to ${formatPercent(percent)}.`
  );
}
