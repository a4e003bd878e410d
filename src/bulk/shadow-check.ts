/**
 * The shadow check (architecture.md "Shadow check"): a school system's own figures, given in the optional `sis_*`
 * columns, compared with the rules' figures for the same student, and when they differ, the first reason in the
 * table's order whose reading reproduces the school's figures exactly.
 *
 *  - `sis_reduced_annual_pct` (student): compared with reduced_annual_pct at the school's precision (a figure
 *    with d decimals agrees with ours rounded half up, or truncated, to d decimals; ours is a whole percent
 *    under every reading but the unrounded one).
 *  - `sis_option` (student, `equal` default | `proportional`): which of our options the term amounts follow
 *    (when we do not offer proportional, its amounts are the equal ones).
 *  - `sis_sub`, `sis_unsub`, `sis_grad_plus` (term): the term's amounts, compared exactly (1103.00 = 1103).
 * Empty cells are not compared; a student whose figure cells are all empty is `not_checked`. An invalid value is
 * an error naming the column, like any other cell; students with errors are not checked.
 *
 * The reasons and their readings are data of the domain (src/domain/readings.ts); each reading is computed by the
 * engine itself (StudentFigures: calculate()'s figures without its prose), only when it could
 * change a figure.
 *
 * The school policy in force (rules.md §10: the request's, a file's `policy.<option>` query parameters, the
 * deployment's SOR_POLICY) is the base of the comparison: `result` is calculate()'s under that policy, the other
 * distribution option (`option_mismatch`) is read from the same result, and each reason tries its changes ON TOP
 * of the policy's readings (readingsOver(readingsForPolicy(policy), change)). A change the policy already makes
 * gives the policy's own figures, which did not match, so it is skipped: under `remainder_placement=last_term`
 * the reason `remainder_placement` is never given, nor `single_term_half_annual` under
 * `single_term_basis=half_annual`. `proration_decimal` is the fraction in another form than the policy's: under
 * the default (exact) it tries the 2-decimal figure rounded (0.67), then truncated (0.66); under
 * `proration_fraction=decimal_rounded` it tries truncated, then the exact fraction, and so on.
 */
import { Dec } from '../domain/decimal.ts';
import { type Figures, StudentFigures } from '../domain/figures.ts';
import {
  CHECK_REASONS,
  type CheckReason,
  REASON_CHANGES,
  type ReadingReason,
  type Readings,
  readingsForPolicy,
  readingsForReason,
} from '../domain/readings.ts';
import type { CalculationInput, CalculationResult, DisbursementOption } from '../domain/types.ts';
import { SIS_LOANS, type SisFigures, type SisLoan, type SisOption } from './sis-figures.ts';

export { hasSisColumns, readSisFigures, type SisFigures, type SisOption } from './sis-figures.ts';

export type CheckStatus = 'match' | 'mismatch' | 'not_checked';
export { CHECK_REASONS, type CheckReason };

/** The outcome of one student's check: the three output columns (NDJSON: `check`). */
export interface ShadowCheck {
  readonly status: CheckStatus;
  /** Each differing field under the service's readings, `Fall: sub 1102 ≠ 1103` (school ≠ rules); '' otherwise. */
  readonly detail: string;
  /** The first reason that reproduces the school's figures (mismatch only); null otherwise. */
  readonly reason: CheckReason | null;
}

const LOANS = SIS_LOANS;
type Loan = SisLoan;
const OPTION_FIELD: Record<Loan, keyof DisbursementOption> = {
  sub: 'subsidized',
  unsub: 'unsubsidized',
  grad_plus: 'grad_plus',
};
const NOT_CHECKED: ShadowCheck = Object.freeze({ status: 'not_checked', detail: '', reason: null });
const MATCH: ShadowCheck = Object.freeze({ status: 'match', detail: '', reason: null });

/** The amounts of one option of a term; proportional falls back to equal when it is not offered. */
function optionOf(result: Figures, i: number, option: SisOption): DisbursementOption {
  return option === 'proportional' && result.proportional !== null ? result.proportional[i]! : result.equal[i]!;
}

/** The service's figures, read from its result. */
function figuresOf(result: CalculationResult): Figures {
  return {
    reduced_annual_pct: result.reduced_annual_pct,
    equal: result.terms.map((t) => t.equal),
    proportional: result.show_both_options ? result.terms.map((t) => t.proportional!) : null,
  };
}

function decimals(text: string): number {
  const point = text.indexOf('.');
  return point === -1 ? 0 : text.length - point - 1;
}

/** The school's percentage agrees with ours at the school's precision (rounded half up or truncated). */
function percentAgrees(school: string, ours: number): boolean {
  const d = decimals(school);
  if (Number.isInteger(ours) && d === 0) return school === String(ours);
  const value = new Dec(ours);
  return value.toDecimalPlaces(d, Dec.ROUND_HALF_UP).eq(school) || value.toDecimalPlaces(d, Dec.ROUND_DOWN).eq(school);
}

/** Whether `result`, read with `option`, reproduces every figure the school gave. */
function reproduces(figures: SisFigures, result: Figures, option: SisOption): boolean {
  if (figures.percent !== null && !percentAgrees(figures.percent, result.reduced_annual_pct)) return false;
  for (let i = 0; i < figures.terms.length; i++) {
    const school = figures.terms[i]!;
    const ours = optionOf(result, i, option);
    for (const loan of LOANS) {
      const value = school[loan];
      if (value !== null && value !== String(ours[OPTION_FIELD[loan]])) return false;
    }
  }
  return true;
}

/** reproduces() on the service's result itself (the common case: no copy of its figures). */
function reproducesResult(figures: SisFigures, result: CalculationResult): boolean {
  if (figures.percent !== null && !percentAgrees(figures.percent, result.reduced_annual_pct)) return false;
  const proportional = figures.option === 'proportional' && result.show_both_options;
  for (let i = 0; i < figures.terms.length; i++) {
    const school = figures.terms[i]!;
    const term = result.terms[i]!;
    const ours = proportional ? term.proportional! : term.equal;
    for (const loan of LOANS) {
      const value = school[loan];
      if (value !== null && value !== String(ours[OPTION_FIELD[loan]])) return false;
    }
  }
  return true;
}

/** Each differing field under the service's readings: `pct 62.5 ≠ 63; Fall: sub 1102 ≠ 1103, unsub …`. */
function differences(figures: SisFigures, result: CalculationResult): string {
  const ours = figuresOf(result);
  const parts: string[] = [];
  if (figures.percent !== null && !percentAgrees(figures.percent, result.reduced_annual_pct)) {
    parts.push(`pct ${figures.percent} ≠ ${result.reduced_annual_pct}`);
  }
  for (let i = 0; i < figures.terms.length; i++) {
    const school = figures.terms[i]!;
    const option = optionOf(ours, i, figures.option);
    const fields: string[] = [];
    for (const loan of LOANS) {
      const value = school[loan];
      const our = option[OPTION_FIELD[loan]];
      if (value !== null && value !== String(our)) fields.push(`${loan} ${value} ≠ ${our}`);
    }
    if (fields.length > 0) parts.push(`${result.terms[i]!.label}: ${fields.join(', ')}`);
  }
  return parts.join('; ');
}

function hasClosedTerm(input: CalculationInput): boolean {
  for (const t of input.terms) {
    for (const v of [t.prior_disbursement_sub, t.prior_disbursement_unsub, t.prior_disbursement_grad_plus]) {
      if (v !== null && v !== '0') return true;
    }
  }
  return false;
}

/**
 * Σ credits(t) × 100 ÷ Σ full time is a whole number: no rounding reading can change the percentage. Only known
 * when the policy counts every term's credits (under `below_half_time_credits=excluded` the sum is another one).
 */
function wholePercent(input: CalculationInput, base: Readings): boolean {
  if (base.belowHalfTimeCredits !== 'counted' || base.belowHalfTimeTerms !== 'kept') return false;
  let credits = new Dec(0);
  let fullTime = new Dec(0);
  for (const t of input.terms) {
    credits = credits.plus(t.actual_final_credits ?? t.credits_enrolled);
    fullTime = fullTime.plus(t.full_time_credits);
  }
  return credits.times(100).mod(fullTime).isZero();
}

/**
 * Whether the school's terms of some loan type, all given, add up to another total than ours under the option:
 * then no reading that keeps the annual amounts and the payments (where the leftover dollars go) can explain them.
 */
function totalsDiffer(figures: SisFigures, result: Figures): boolean {
  for (const loan of LOANS) {
    let school = new Dec(0);
    let ours = 0;
    let complete = true;
    for (let i = 0; i < figures.terms.length && complete; i++) {
      const value = figures.terms[i]![loan];
      if (value === null) complete = false;
      else {
        school = school.plus(value);
        ours += optionOf(result, i, figures.option)[OPTION_FIELD[loan]];
      }
    }
    if (complete && !school.eq(ours)) return true;
  }
  return false;
}

/**
 * The §2.3 proration may apply (a superset of the engine's test, from the request alone): an undergraduate's final
 * period whose enrolled terms (credits_enrolled > 0) have fewer full-time credits than its academic year. Only then
 * can a proration reading change a figure.
 */
function mayProrate(input: CalculationInput): boolean {
  if (!input.final_period_of_program || input.degree_level !== 'undergraduate') return false;
  if (input.academic_year_credits === null) return false;
  let fullTime = new Dec(0);
  for (const t of input.terms) if (!new Dec(t.credits_enrolled).isZero()) fullTime = fullTime.plus(t.full_time_credits);
  return fullTime.lt(input.academic_year_credits);
}

/** Credits above 0 and below half of the full-time credits. */
function belowHalfTime(credits: string | null, fullTime: Dec): boolean {
  if (credits === null) return false;
  const c = new Dec(credits);
  return c.isPositive() && c.times(2).lt(fullTime);
}

/** Some term is below half time (by its enrolled or its final credits): it could be dropped from the year. */
function hasTermBelowHalfTime(input: CalculationInput): boolean {
  for (const t of input.terms) {
    const fullTime = new Dec(t.full_time_credits);
    if (belowHalfTime(t.credits_enrolled, fullTime) || belowHalfTime(t.actual_final_credits, fullTime)) return true;
  }
  return false;
}

/**
 * Whether a reason's readings (over `base`, the policy's) can give figures other than ours for this student, or
 * could explain the school's; when they cannot, the reason is not computed (the outcome is the same, only faster:
 * a file may hold a million students).
 */
function mayDiffer(
  reason: ReadingReason,
  base: Readings,
  input: CalculationInput,
  result: CalculationResult,
  figures: SisFigures,
  ours: Figures,
): boolean {
  switch (reason) {
    case 'remainder_placement':
      return !totalsDiffer(figures, ours);
    case 'below_half_time_excluded':
      return result.terms.some((t) => t.enrollment_status === 'less_than_half_time');
    case 'percent_not_rounded':
      return result.reduced_annual_pct < 100 && !wholePercent(input, base);
    case 'grad_plus_gap_before_reduction':
      return result.annual_basic_eligibility_grad_plus > 0;
    case 'paid_term_recomputed':
      return hasClosedTerm(input);
    case 'proration_parts_rounded':
    case 'proration_decimal':
      return mayProrate(input);
    case 'single_term_half_annual':
      return (
        input.terms.length === 1 &&
        (result.annual_basic_eligibility_sub > 0 || result.annual_basic_eligibility_unsub > 0)
      );
    case 'below_half_time_term_dropped':
      return hasTermBelowHalfTime(input);
    default:
      return true;
  }
}

const READING_REASONS: readonly ReadingReason[] = CHECK_REASONS.filter((r): r is ReadingReason => r in REASON_CHANGES);

/**
 * A cheap first look at a reading (its percentage and annual amounts only): false when they already contradict
 * the school's figures — the percentage, or a loan's complete term amounts that must add up to its annual amount
 * (no closed term and some eligible term: every dollar of the year is spread over the terms).
 */
function couldReproduce(figures: SisFigures, quick: ReturnType<StudentFigures['annualsUnder']>): boolean {
  if (figures.percent !== null && !percentAgrees(figures.percent, quick.percent)) return false;
  if (!quick.allOpen || !quick.anyEligible) return true;
  for (let l = 0; l < LOANS.length; l++) {
    let total = new Dec(0);
    let complete = true;
    for (const term of figures.terms) {
      const value = term[LOANS[l]!];
      if (value === null) {
        complete = false;
        break;
      }
      total = total.plus(value);
    }
    if (complete && !total.eq(quick.annual[l]!)) return false;
  }
  return true;
}

/**
 * The first reason, in the table's order, whose reading (on top of the policy in force) reproduces the school's
 * figures exactly.
 */
function explain(input: CalculationInput, result: CalculationResult, figures: SisFigures): CheckReason {
  const ours = figuresOf(result);
  if (result.show_both_options) {
    const other: SisOption = figures.option === 'equal' ? 'proportional' : 'equal';
    if (reproduces(figures, ours, other)) return 'option_mismatch';
  }
  let student: StudentFigures | undefined;
  const proportional = figures.option === 'proportional';
  const base = readingsForPolicy(input.policy);
  for (const reason of READING_REASONS) {
    const attempts = readingsForReason(base, reason);
    if (attempts.length === 0 || !mayDiffer(reason, base, input, result, figures, ours)) continue;
    for (const readings of attempts) {
      student ??= new StudentFigures(input);
      if (!couldReproduce(figures, student.annualsUnder(readings))) continue;
      if (reproduces(figures, student.under(readings, proportional), figures.option)) return reason;
    }
  }
  return 'unexplained';
}

/**
 * The check of one calculated student: `figures` from readSisFigures (null: nothing to compare), `result` the
 * service's result for `input`, calculated under its policy (`input.policy`, the readings of readingsForPolicy).
 */
export function shadowCheck(
  input: CalculationInput,
  result: CalculationResult,
  figures: SisFigures | null,
): ShadowCheck {
  if (figures === null) return NOT_CHECKED;
  if (reproducesResult(figures, result)) return MATCH;
  return { status: 'mismatch', detail: differences(figures, result), reason: explain(input, result, figures) };
}
