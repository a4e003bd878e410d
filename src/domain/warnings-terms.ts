/**
 * The warning sentences (rules.md §7) about single terms and disbursements: a term below half time (§4), what was
 * paid beyond or left unscheduled against the annual amount (§5, §6), and the recalculation's adjustments (§6).
 */

import type { Dec } from './decimal.ts';
import type { LoanType } from './types.ts';
import {
  capitalise,
  formatCredits,
  formatDollars,
  formatPercent,
  formatSignedDollars,
  joinList,
  loanName,
  termName,
} from './warning-text.ts';

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
