/**
 * Warning sentences (rules.md §7): plain English an aid officer can paste into a student's file. Each function
 * returns exactly one sentence, deterministic for its arguments, with the amounts written out ($1,840; credits
 * as given: 10.5). Nothing here decides *whether* to warn; the calculation modules do that.
 */

import type { Dec } from './decimal.ts';
import type { DegreeLevel, GradeLevel, LoanType } from './types.ts';

// ---------------------------------------------------------------------------------------------- formatting

function groupThousands(digits: string): string {
  const length = digits.length;
  if (length <= 3) return digits;
  const head = length % 3 === 0 ? 3 : length % 3;
  let out = digits.slice(0, head);
  for (let i = head; i < length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return out;
}

/** $1,840 for whole dollars; $2,000.50 or $0.125 for fractional inputs (exact, never rounded). */
export function formatDollars(amount: Dec): string {
  const negative = amount.isNegative() && !amount.isZero();
  const text = amount.abs().toFixed();
  const point = text.indexOf('.');
  if (point < 0) return `${negative ? '-' : ''}$${groupThousands(text)}`;
  let fraction = text.slice(point + 1);
  if (fraction.length === 1) fraction += '0';
  return `${negative ? '-' : ''}$${groupThousands(text.slice(0, point))}.${fraction}`;
}

/** A signed dollar change: +$875, -$90, $0. */
export function formatSignedDollars(amount: Dec): string {
  if (amount.isZero()) return '$0';
  return amount.isNegative() ? formatDollars(amount) : `+${formatDollars(amount)}`;
}

/** A credit count as written in normal notation without trailing zeros: 24, 10.5, 0.000001. */
export function formatCredits(credits: Dec): string {
  return credits.toFixed();
}

export function formatPercent(percent: Dec): string {
  return `${percent.toFixed()}%`;
}

const LOAN_NAMES: Readonly<Record<LoanType, string>> = {
  sub: 'subsidized',
  unsub: 'unsubsidized',
  grad_plus: 'Grad PLUS',
};

export function loanName(loan: LoanType): string {
  return LOAN_NAMES[loan];
}

const GRADE_NAMES: Readonly<Record<GradeLevel, string>> = {
  first_year: 'first-year',
  second_year: 'second-year',
  third_year_and_beyond: 'third-year-and-beyond',
};

/** "a, b and c" */
function joinList(items: readonly string[]): string {
  const n = items.length;
  if (n <= 1) return n === 0 ? '' : items[0]!;
  let out = items[0]!;
  for (let i = 1; i < n - 1; i++) out += `, ${items[i]!}`;
  return `${out} and ${items[n - 1]!}`;
}

function termName(label: string, index: number): string {
  return `Term ${index + 1} ("${label}")`;
}

// ---------------------------------------------------------------------------------------------- inputs ignored

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

// ---------------------------------------------------------------------------------------------- caps

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

// ---------------------------------------------------------------------------------------------- Grad PLUS

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

// ---------------------------------------------------------------------------------------------- percentage

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

// ---------------------------------------------------------------------------------------------- final period

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

// ---------------------------------------------------------------------------------------------- options

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

// ---------------------------------------------------------------------------------------------- terms

/**
 * How a below-half-time term's credits enter the year: counted in the academic-year percentage (§3, the
 * default), left out of it by the school's policy (below_half_time_credits=excluded, §10), or, under the
 * final-period proration (§2.3), left out of the prorated credits (there is no percentage then).
 */
export type BelowHalfTimeCredits = 'counted' | 'excluded' | 'proration';

export function termBelowHalfTime(
  label: string,
  index: number,
  credits: Dec,
  fullTimeCredits: Dec,
  closed: boolean,
  creditsUse: BelowHalfTimeCredits = 'counted',
): string {
  const ratio = `${formatCredits(credits)} of ${formatCredits(fullTimeCredits)} credits`;
  // Under the proration a not-enrolled term is simply outside the period; elsewhere the sentence is the §4 one.
  const what =
    creditsUse === 'proration' && credits.isZero()
      ? `${termName(label, index)} is not enrolled (${ratio})`
      : `${termName(label, index)} is below half time (${ratio})`;
  const credit =
    creditsUse === 'proration'
      ? credits.isZero()
        ? 'it is not part of the final period'
        : 'its credits are left out of the final-period proration'
      : creditsUse === 'excluded'
        ? 'its credits are left out of the academic-year percentage (school policy below_half_time_credits=excluded)'
        : 'its credits still count toward the academic-year percentage';
  return closed
    ? `${what}: it keeps the disbursements already made for it but is not eligible for more, and ${credit}.`
    : creditsUse === 'counted'
      ? `${what} and receives no disbursement, but ${credit}.`
      : `${what} and receives no disbursement; ${credit}.`;
}

export function overDisbursement(loan: LoanType, paid: Dec, annual: Dec): string {
  return (
    `${capitalise(loanName(loan))} over-disbursement: ${formatDollars(paid)} was already disbursed but the ` +
    `revised annual amount is ${formatDollars(annual)}, an excess of ${formatDollars(paid.minus(annual))}, ` +
    `so no further ${loanName(loan)} disbursement is scheduled.`
  );
}

export function unscheduledAmount(loan: LoanType, remaining: Dec, annual: Dec): string {
  return (
    `${formatDollars(remaining)} of the ${formatDollars(annual)} ${loanName(loan)} annual amount is not ` +
    'scheduled because no unpaid term is at least half time, so the totals fall short of the annual amount.'
  );
}

export interface LoanExcess {
  loan: LoanType;
  paid: Dec;
  annual: Dec;
}

export function finalTermOverDisbursement(excesses: readonly LoanExcess[]): string {
  const parts = excesses.map(
    (e) =>
      `${formatDollars(e.paid)} ${loanName(e.loan)} disbursed against a revised annual amount of ` +
      `${formatDollars(e.annual)} (excess ${formatDollars(e.paid.minus(e.annual))})`,
  );
  return (
    `Over-disbursement after the final disbursement: ${joinList(parts)}; no reduction is required for an ` +
    'enrollment drop after the final disbursement, and the school may choose to return the excess.'
  );
}

// ---------------------------------------------------------------------------------------------- adjustments

export interface CreditChange {
  label: string;
  enrolled: Dec;
  actual: Dec;
}

export interface AnnualChange {
  loan: LoanType;
  from: Dec;
  to: Dec;
}

export interface TermEffect {
  loan: LoanType;
  amount: Dec;
}

/**
 * An adjusted term's explanation is one sentence: what changed (credits from → to), the percentage and annual
 * amounts from → to (this part, the same for every adjusted term of a student, built once per student), then the
 * dollar effect on the term on the equal option (adjustmentEffect()).
 */
export function adjustmentCause(
  changes: readonly CreditChange[],
  percentFrom: Dec,
  percentTo: Dec,
  annualChanges: readonly AnnualChange[],
): string {
  const what = joinList(
    changes.map((c) => `${c.label} from ${formatCredits(c.enrolled)} to ${formatCredits(c.actual)} credits`),
  );
  const percent = percentFrom.eq(percentTo)
    ? `the academic-year percentage stayed at ${formatPercent(percentTo)}`
    : `the academic-year percentage went from ${formatPercent(percentFrom)} to ${formatPercent(percentTo)}`;
  const changed = annualChanges.filter((a) => !a.from.eq(a.to));
  const annual =
    changed.length === 0
      ? 'the annual amounts did not change'
      : `the annual ${joinList(
          changed.map((a) => `${loanName(a.loan)} amount from ${formatDollars(a.from)} to ${formatDollars(a.to)}`),
        )}`;
  return `Final credits differ from enrolled credits (${what}), so ${percent} and ${annual}`;
}

/** An adjusted term's explanation: the student's adjustmentCause() and the term's own effects. */
export function adjustmentEffect(cause: string, effects: readonly TermEffect[]): string {
  const effect = joinList(effects.map((e) => `${formatSignedDollars(e.amount)} ${loanName(e.loan)}`));
  return `${cause}; compared with the enrolled credits, this term's equal disbursement changes by ${effect}.`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
