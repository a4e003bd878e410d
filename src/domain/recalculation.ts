/**
 * Recalculation after disbursements (rules.md §6): closed terms, the revision and its baseline, the remaining
 * amount, adjustments and the final-term over-disbursement.
 *
 * - A term is closed when any of its prior disbursements, rounded half up to whole dollars, is > 0. It keeps
 *   exactly those amounts in both options and receives nothing new. actual_final_credits alone does not close
 *   a term: it only replaces the term's credits.
 * - remaining = revised annual amount − Σ prior disbursements of closed terms, split over the open eligible
 *   terms by the option's weights (FSA example 4: 1,660 − 502 = 1,158 → 579 + 579). remaining < 0 is an
 *   over-disbursement (open terms get 0); remaining > 0 with no open eligible term is left unscheduled.
 * - The baseline is the same calculation with every term at its credits_enrolled (same closed terms and
 *   payments); adjustment_X = equal_X(revision) − equal_X(baseline) on each open term.
 */

import { type Dec, ZERO, isPositive } from './decimal.ts';
import { dec } from './decimal-read.ts';
import { type OptionWeights, disbursementPercents, showBothOptions, spreadRemaining } from './distribution.ts';
import { type GradPlusAmount, type GradPlusSizing, sizeGradPlus } from './grad-plus.ts';
import { annualBasicEligibility, reducedAnnualPercent } from './percentage.ts';
import { type Readings, type YearPercent, SERVICE_READINGS, reduceUnder, yearPercentUnder } from './readings.ts';
import { roundDollars } from './rounding.ts';
import { termStanding } from './terms.ts';
import type { LoanType, TermInput } from './types.ts';
import type { LoanExcess } from './warnings-terms.ts';

/** Loan types in output order; PerLoan tuples are indexed the same way. */
export const LOAN_TYPES: readonly LoanType[] = ['sub', 'unsub', 'grad_plus'];
export type PerLoan<T> = [T, T, T];

export interface TermFacts {
  index: number;
  label: string;
  fullTime: Dec;
  enrolled: Dec;
  actual: Dec | null;
  /** credits(t) of the revision: actual_final_credits when present, else credits_enrolled. */
  credits: Dec;
  /** Prior disbursements rounded half up to whole dollars (null is 0), per loan type. */
  priors: PerLoan<Dec>;
  closed: boolean;
  /** A change: actual_final_credits present and different in value from credits_enrolled. */
  changed: boolean;
}

function roundedPrior(value: string | null): Dec {
  if (value === null || value === '0') return ZERO;
  return roundDollars(dec(value));
}

export function readTerm(term: TermInput, index: number): TermFacts {
  const enrolled = dec(term.credits_enrolled);
  const actual = term.actual_final_credits === null ? null : dec(term.actual_final_credits);
  const priors: PerLoan<Dec> = [
    roundedPrior(term.prior_disbursement_sub),
    roundedPrior(term.prior_disbursement_unsub),
    roundedPrior(term.prior_disbursement_grad_plus),
  ];
  return {
    index,
    label: term.label,
    fullTime: dec(term.full_time_credits),
    enrolled,
    actual,
    credits: actual ?? enrolled,
    priors,
    closed: isPositive(priors[0]) || isPositive(priors[1]) || isPositive(priors[2]),
    changed: actual !== null && !actual.eq(enrolled),
  };
}

/** Facts shared by the revision and the baseline: payments and which terms are closed. */
export interface Payments {
  closed: boolean[];
  /** Prior disbursements per loan type, per term (0 on open terms). */
  priorsByLoan: PerLoan<Dec[]>;
  /** Σ prior disbursements of the closed terms, per loan type. */
  paid: PerLoan<Dec>;
}

export function collectPayments(terms: readonly TermFacts[]): Payments {
  const n = terms.length;
  const closed = terms.map((t) => t.closed);
  // Sized up front: an empty array grown by push allocated room for 16 more entries on the first push.
  const priorsByLoan: PerLoan<Dec[]> = [new Array<Dec>(n), new Array<Dec>(n), new Array<Dec>(n)];
  const paid: PerLoan<Dec> = [ZERO, ZERO, ZERO];
  for (let i = 0; i < n; i++) {
    const t = terms[i]!;
    for (let l = 0; l < 3; l++) {
      const prior = t.priors[l]!;
      priorsByLoan[l]![i] = prior;
      if (!prior.isZero()) paid[l] = paid[l]!.plus(prior);
    }
  }
  return { closed, priorsByLoan, paid };
}

/** What a scenario reduces: the starting amounts of §2.2 (and §2.3), and how Grad PLUS is sized. */
export interface ScenarioBases {
  sub: Dec;
  unsub: Dec;
  /** Grad PLUS sized after the reduction of sub and unsub; null when the student has no Grad PLUS. */
  gradPlus: GradPlusSizing | null;
  /** §2.3 final-period proration: the percentage is 100 (no reduction on top); null otherwise. */
  fixedPercent: Dec | null;
  /** The readings of the rules the scenario is computed under (src/domain/readings.ts); default the service's. */
  readings?: Readings;
  /**
   * `singleTermBasis: 'half_annual'` on a one-term loan period without the §2.3 proration: Sub and Unsub are reduced
   * from half their bases, round_half_up(base × pct ÷ 200) (rules.md §10); Grad PLUS is not halved.
   */
  halfAnnual?: boolean;
}

export interface Scenario {
  /** credits(t) used by this scenario. */
  credits: readonly Dec[];
  bases: ScenarioBases;
  percent: Dec;
  annual: PerLoan<Dec>;
  /** Grad PLUS sizing of this scenario; null when the student has no Grad PLUS. */
  gradPlus: GradPlusAmount | null;
  eligible: boolean[];
  eligibleCount: number;
  /** Indices of the open (unpaid) eligible terms, in term order. */
  openEligible: number[];
  /** annual − Σ priors of closed terms, per loan type (negative = over-disbursement). */
  remaining: PerLoan<Dec>;
  /** Equal option: amount per term, per loan type (closed terms hold their priors). */
  equal: PerLoan<Dec[]>;
}

function sameEligibility(a: readonly boolean[], b: readonly boolean[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return a.length === b.length;
}

/**
 * One full pass of §3–§6 for a given set of credits (the revision or the baseline), equal option.
 *
 * `reference` is another scenario of the same student (same payments). The annual amounts, the remaining amounts
 * and the equal option depend on the credits only through the bases, the percentage and which terms are
 * eligible, so when all three match the reference's, its amounts are shared instead of recomputed.
 */
export function evaluateScenario(
  terms: readonly TermFacts[],
  credits: readonly Dec[],
  annualFtCredits: Dec,
  bases: ScenarioBases,
  payments: Payments,
  reference?: Scenario,
): Scenario {
  const readings = bases.readings ?? SERVICE_READINGS;
  let year: YearPercent | null = null;
  let percent: Dec;
  if (readings === SERVICE_READINGS) {
    percent = bases.fixedPercent ?? reducedAnnualPercent(credits, annualFtCredits);
  } else {
    year = yearUnder(terms, credits, annualFtCredits, bases, readings);
    percent = year.percent;
  }
  const eligible = new Array<boolean>(terms.length);
  const openEligible: number[] = [];
  let eligibleCount = 0;
  for (let i = 0; i < terms.length; i++) {
    const ok = termStanding(credits[i]!, terms[i]!.fullTime).eligible;
    eligible[i] = ok;
    if (!ok) continue;
    eligibleCount++;
    if (!payments.closed[i]) openEligible.push(i);
  }
  if (
    reference !== undefined &&
    reference.bases === bases &&
    reference.percent.eq(percent) &&
    sameEligibility(reference.eligible, eligible)
  ) {
    const { annual, gradPlus, remaining, equal } = reference;
    return { credits, bases, percent, annual, gradPlus, eligible, eligibleCount, openEligible, remaining, equal };
  }
  if (year !== null)
    return evaluateUnder(readings, year, credits, bases, payments, eligible, eligibleCount, openEligible);
  const annualSub = bases.sub.isZero() ? ZERO : annualBasicEligibility(bases.sub, percent);
  const annualUnsub = bases.unsub.isZero() ? ZERO : annualBasicEligibility(bases.unsub, percent);
  const gradPlus = bases.gradPlus === null ? null : sizeGradPlus(bases.gradPlus, annualSub, annualUnsub, percent);
  const annual: PerLoan<Dec> = [annualSub, annualUnsub, gradPlus === null ? ZERO : gradPlus.annual];
  const remaining: PerLoan<Dec> = [ZERO, ZERO, ZERO];
  const equal: PerLoan<Dec[]> = [[], [], []];
  for (let l = 0; l < 3; l++) {
    const paid = payments.paid[l]!;
    remaining[l] = paid.isZero() ? annual[l]! : annual[l]!.minus(paid);
    equal[l] = spreadRemaining(remaining[l]!, payments.priorsByLoan[l]!, payments.closed, openEligible, null);
  }
  return { credits, bases, percent, annual, gradPlus, eligible, eligibleCount, openEligible, remaining, equal };
}

/** The year's percentage of a scenario under readings other than the service's. */
export function yearUnder(
  terms: readonly TermFacts[],
  credits: readonly Dec[],
  annualFtCredits: Dec,
  bases: ScenarioBases,
  readings: Readings,
): YearPercent {
  if (bases.fixedPercent !== null) {
    return { percent: bases.fixedPercent, exact: null, float: readings.arithmetic === 'binary_float' };
  }
  const eligible = terms.map((t, i) => termStanding(credits[i]!, t.fullTime).eligible);
  const fullTime = readings.belowHalfTimeTerms === 'dropped' ? terms.map((t) => t.fullTime) : undefined;
  return yearPercentUnder(credits, eligible, annualFtCredits, readings, fullTime);
}

/** The reduced annual amounts (and the Grad PLUS sizing) for a year's percentage under readings. */
export function annualsUnder(
  bases: ScenarioBases,
  year: YearPercent,
  readings: Readings,
): { annual: PerLoan<Dec>; gradPlus: GradPlusAmount | null } {
  const reduce = (base: Dec) => reduceUnder(base, year);
  const half = bases.halfAnnual === true;
  const annualSub = reduceUnder(bases.sub, year, half);
  const annualUnsub = reduceUnder(bases.unsub, year, half);
  const before = readings.gradPlusBase === 'before_reduction';
  const gradPlus =
    bases.gradPlus === null
      ? null
      : sizeGradPlus(
          bases.gradPlus,
          before ? bases.sub : annualSub,
          before ? bases.unsub : annualUnsub,
          year.percent,
          reduce,
        );
  return { annual: [annualSub, annualUnsub, gradPlus === null ? ZERO : gradPlus.annual], gradPlus };
}

/** evaluateScenario's amounts under readings other than the service's (never shared with a reference). */
function evaluateUnder(
  readings: Readings,
  year: YearPercent,
  credits: readonly Dec[],
  bases: ScenarioBases,
  payments: Payments,
  eligible: boolean[],
  eligibleCount: number,
  openEligible: number[],
): Scenario {
  const { annual, gradPlus } = annualsUnder(bases, year, readings);
  const remaining: PerLoan<Dec> = [ZERO, ZERO, ZERO];
  const equal: PerLoan<Dec[]> = [[], [], []];
  for (let l = 0; l < 3; l++) {
    remaining[l] = annual[l]!.minus(payments.paid[l]!);
    equal[l] = spreadRemaining(
      remaining[l]!,
      payments.priorsByLoan[l]!,
      payments.closed,
      openEligible,
      null,
      readings.remainder,
    );
  }
  const percent = year.percent;
  return { credits, bases, percent, annual, gradPlus, eligible, eligibleCount, openEligible, remaining, equal };
}

/**
 * The terms as a reading sees them: under `closedTerms: 'recomputed'` no term is closed (payments are ignored and
 * every term gets its share again); otherwise the terms themselves.
 */
export function termsUnder(terms: TermFacts[], readings: Readings): TermFacts[] {
  if (readings.closedTerms !== 'recomputed') return terms;
  const none: PerLoan<Dec> = [ZERO, ZERO, ZERO];
  return terms.map((t) => ({ ...t, priors: none, closed: false }));
}

/** The proportional option of a scenario: the same remaining amounts, split by credits(t). */
export function proportionalSchedule(scenario: Scenario, payments: Payments): PerLoan<Dec[]> {
  const weights: OptionWeights = scenario.credits;
  const result: PerLoan<Dec[]> = [[], [], []];
  for (let l = 0; l < 3; l++) {
    result[l] = spreadRemaining(
      scenario.remaining[l]!,
      payments.priorsByLoan[l]!,
      payments.closed,
      scenario.openEligible,
      weights,
      scenario.bases.readings?.remainder,
    );
  }
  return result;
}

/** show_both_options and disbursement_pct of a scenario (rules.md §5). */
export function optionsOffered(scenario: Scenario): { showBoth: boolean; disbursementPct: Dec[] } {
  const showBoth = showBothOptions(scenario.percent, scenario.eligibleCount);
  return { showBoth, disbursementPct: disbursementPercents(scenario.eligible, showBoth ? scenario.credits : null) };
}

/**
 * adjustment_source_index of term j: the last change at or before j, else the first change after j.
 * `changes` are term indices in ascending order; null when there is no change at all.
 */
export function adjustmentSourceIndex(changes: readonly number[], j: number): number | null {
  let source: number | null = null;
  for (const c of changes) {
    if (c <= j) source = c;
    else return source ?? c;
  }
  return source;
}

export interface TermAdjustment {
  amounts: PerLoan<Dec>;
  sourceIndex: number | null;
}

const NO_ADJUSTMENT: TermAdjustment = { amounts: [ZERO, ZERO, ZERO], sourceIndex: null };

/**
 * Per term: equal(revision) − equal(baseline) on open terms; 0 and null on closed terms and wherever all three
 * adjustments are 0. Scenarios sharing their equal option (the same scenario, or a baseline that reused the
 * revision's amounts) have every adjustment 0.
 */
export function termAdjustments(terms: readonly TermFacts[], revision: Scenario, baseline: Scenario): TermAdjustment[] {
  if (revision.equal === baseline.equal) return terms.map(() => NO_ADJUSTMENT);
  const changes = terms.filter((t) => t.changed).map((t) => t.index);
  return terms.map((t, j) => {
    if (t.closed) return NO_ADJUSTMENT;
    const amounts: PerLoan<Dec> = [ZERO, ZERO, ZERO];
    let any = false;
    for (let l = 0; l < 3; l++) {
      const now = revision.equal[l]![j]!;
      const before = baseline.equal[l]![j]!;
      const diff = now === before ? ZERO : now.minus(before);
      amounts[l] = diff;
      if (!diff.isZero()) any = true;
    }
    return any ? { amounts, sourceIndex: adjustmentSourceIndex(changes, j) } : NO_ADJUSTMENT;
  });
}

/**
 * final_term_overdisbursement: the last term is closed and, for some loan type, the prior disbursements of all
 * terms exceed the revised annual amount. Returns the loan types in excess (empty when the flag is false).
 */
export function finalTermExcesses(terms: readonly TermFacts[], revision: Scenario, payments: Payments): LoanExcess[] {
  const last = terms[terms.length - 1];
  if (last === undefined || !last.closed) return [];
  const excesses: LoanExcess[] = [];
  for (let l = 0; l < 3; l++) {
    const paid = payments.paid[l]!;
    if (paid.gt(revision.annual[l]!)) excesses.push({ loan: LOAN_TYPES[l]!, paid, annual: revision.annual[l]! });
  }
  return excesses;
}
