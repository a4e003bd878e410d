/**
 * calculate(): the Schedule of Reductions (34 CFR 685.203(m)) for one student, composed from the rule modules.
 * Pure: plain validated data in (CalculationInput), plain data out (CalculationResult), deterministic.
 *
 *   bases.ts          §2 starting amounts and caps
 *   final-period.ts   §2.3 final period of an undergraduate program (traditional proration, no reduction)
 *   grad-plus.ts      §2.2 Grad PLUS sized after the reduction of the other two loans
 *   percentage.ts     §3 the academic-year percentage and the annual amounts
 *   terms.ts          §4 status, enrollment intensity (the term's own ratio), eligibility
 *   distribution.ts   §5 equal / proportional, show_both_options, disbursement_pct
 *   recalculation.ts  §6 closed terms, remaining, baseline, adjustments, final-term over-disbursement
 *   warnings.ts       §7 the sentences
 *   output.ts         decimals → JSON numbers, once, at the end
 */

import { type StartingAmounts, startingAmounts } from './bases.ts';
import { type Dec, HUNDRED, isBelowZero, isPositive, sumDec } from './decimal.ts';
import { type FinalPeriodCase, finalPeriodCase } from './final-period.ts';
import { type LimitTable, STATUTORY_LIMIT_TABLE } from './limits.ts';
import { toDisbursementOption, toJsonNumber } from './output.ts';
import { annualFullTimeCredits } from './percentage.ts';
import {
  LOAN_TYPES,
  type Payments,
  type PerLoan,
  type Scenario,
  type ScenarioBases,
  type TermAdjustment,
  type TermFacts,
  collectPayments,
  evaluateScenario,
  finalTermExcesses,
  optionsOffered,
  proportionalSchedule,
  readTerm,
  termAdjustments,
  termsUnder,
} from './recalculation.ts';
import { type Readings, readingsForPolicy } from './readings.ts';
import { termStanding } from './terms.ts';
import type { CalculationInput, CalculationResult, DisbursementOption, TermResult } from './types.ts';
import * as W from './warnings.ts';

function optionAt(schedule: PerLoan<Dec[]>, i: number): DisbursementOption {
  return toDisbursementOption(schedule[0][i]!, schedule[1][i]!, schedule[2][i]!);
}

function optionTotal(schedule: PerLoan<Dec[]>): DisbursementOption {
  return toDisbursementOption(sumDec(schedule[0]), sumDec(schedule[1]), sumDec(schedule[2]));
}

/** The shared part of the adjustment explanations (warnings.ts adjustmentCause()). */
function adjustmentCause(terms: readonly TermFacts[], revision: Scenario, baseline: Scenario): string {
  const changes: W.CreditChange[] = [];
  for (const t of terms) if (t.changed) changes.push({ label: t.label, enrolled: t.enrolled, actual: t.actual! });
  const annualChanges: W.AnnualChange[] = [];
  for (let l = 0; l < 3; l++) {
    annualChanges.push({ loan: LOAN_TYPES[l]!, from: baseline.annual[l]!, to: revision.annual[l]! });
  }
  return W.adjustmentCause(changes, baseline.percent, revision.percent, annualChanges);
}

/** One adjusted term's explanation: the shared cause and the term's own non-zero adjustments. */
function explainAdjustment(cause: string, amounts: PerLoan<Dec>): string {
  const effects: W.TermEffect[] = [];
  for (let l = 0; l < 3; l++) if (!amounts[l]!.isZero()) effects.push({ loan: LOAN_TYPES[l]!, amount: amounts[l]! });
  return W.adjustmentEffect(cause, effects);
}

/** The starting amounts a scenario (recalculation.ts) is evaluated from, under `readings`. */
export function scenarioBases(start: StartingAmounts, readings: Readings): ScenarioBases {
  return {
    sub: start.sub,
    unsub: start.unsub,
    gradPlus: start.gradPlus,
    fixedPercent: start.proration === null ? null : HUNDRED,
    readings,
  };
}

/**
 * The starting amounts for one set of credits(t): they depend on the credits only under the §2.3 proration
 * (the prorated limits follow the period's credits), so the baseline of §6 gets its own then.
 */
function startFor(
  input: CalculationInput,
  finalPeriod: FinalPeriodCase,
  credits: readonly Dec[],
  table: LimitTable,
): StartingAmounts {
  return startingAmounts(
    input,
    finalPeriod.kind === 'prorate' ? { credits, academicYearCredits: finalPeriod.academicYearCredits } : null,
    table,
  );
}

/** The §2.3 sentences: proration applied, flag not applicable, or fields ignored. */
function finalPeriodWarnings(
  input: CalculationInput,
  finalPeriod: FinalPeriodCase,
  start: StartingAmounts,
  annualFtCredits: Dec,
): string[] {
  switch (finalPeriod.kind) {
    case 'prorate': {
      const p = start.proration!;
      return [
        W.finalPeriodProrated(
          p.credits,
          finalPeriod.academicYearCredits,
          p.capped,
          p.subsidizedMax,
          p.unsubsidizedOnly,
          p.combinedMax,
        ),
      ];
    }
    case 'not_shorter':
      return [W.finalPeriodNotShorter(annualFtCredits, finalPeriod.academicYearCredits)];
    case 'ignored_not_undergraduate':
      return [W.finalPeriodIgnoredForGraduate(input.degree_level)];
    case 'none':
      if (input.academic_year_credits === null) return [];
      return [
        input.degree_level === 'undergraduate'
          ? W.academicYearCreditsIgnored()
          : W.finalPeriodIgnoredForGraduate(input.degree_level),
      ];
  }
}

/**
 * What calculate() worked out on its way to the result, handed to a recorder when one is given (the worksheet's
 * steps, src/domain/trace.ts, are built from it). Nothing here is computed for the recorder alone.
 */
export interface CalculationWorkings {
  input: CalculationInput;
  terms: readonly TermFacts[];
  annualFtCredits: Dec;
  finalPeriod: FinalPeriodCase;
  start: StartingAmounts;
  payments: Payments;
  revision: Scenario;
  baseline: Scenario;
  showBoth: boolean;
  disbursementPct: readonly Dec[];
  proportional: PerLoan<Dec[]> | null;
  adjustments: readonly TermAdjustment[];
  finalExcesses: readonly W.LoanExcess[];
  result: CalculationResult;
}

/** Receives the workings of one calculation (src/domain/trace.ts records them as steps). */
export type WorkingsRecorder = (workings: CalculationWorkings) => void;

/**
 * The result for one student. `table` is the statutory limit table (the shipped one by default); the row used is
 * the one of `input.award_year`. `readings` are the readings of the rules (src/domain/readings.ts): the service's
 * by default; the shadow check computes the same student under others. `recorder`, when given, receives the
 * workings before the result is returned; without one nothing extra is kept or built.
 */
export function calculate(
  input: CalculationInput,
  table: LimitTable = STATUTORY_LIMIT_TABLE,
  readings: Readings = readingsForPolicy(input.policy),
  recorder?: WorkingsRecorder,
): CalculationResult {
  const terms = termsUnder(input.terms.map(readTerm), readings);
  const n = terms.length;
  if (n === 0) throw new Error('calculate: at least one term is required (validated by the schema)');
  const fullTime = terms.map((t) => t.fullTime);
  const annualFtCredits = annualFullTimeCredits(fullTime);
  const finalPeriod = finalPeriodCase(input, annualFtCredits);

  // §2 starting amounts (§2.3 prorated limits when they apply)
  const revisionCredits = terms.map((t) => t.credits);
  const start = startFor(input, finalPeriod, revisionCredits, table);
  const warnings = start.warnings.slice();
  warnings.push(...finalPeriodWarnings(input, finalPeriod, start, annualFtCredits));
  const bases = scenarioBases(start, readings);

  // §3–§6 the revision (credits(t)), and the baseline (credits_enrolled) only when some credits changed
  const payments = collectPayments(terms);
  const revision = evaluateScenario(terms, revisionCredits, annualFtCredits, bases, payments);
  const { showBoth, disbursementPct } = optionsOffered(revision);
  const proportional = showBoth ? proportionalSchedule(revision, payments) : null;
  let baseline = revision;
  if (terms.some((t) => t.changed)) {
    const enrolledCredits = terms.map((t) => t.enrolled);
    const baselineBases =
      finalPeriod.kind === 'prorate'
        ? scenarioBases(startFor(input, finalPeriod, enrolledCredits, table), readings)
        : bases;
    baseline = evaluateScenario(terms, enrolledCredits, annualFtCredits, baselineBases, payments, revision);
  }
  const adjustments = termAdjustments(terms, revision, baseline);
  const finalExcesses = finalTermExcesses(terms, revision, payments);

  // §7 student-level warnings, in a fixed order
  const percent = revision.percent;
  const gradPlus = revision.gradPlus;
  if (gradPlus !== null && gradPlus.squeezed && start.gradPlus !== null && start.gradPlus.totalLimit !== null) {
    warnings.push(W.gradPlusTotalLimitCap(start.gradPlus.totalLimit, gradPlus.base, gradPlus.gap));
  }
  if (finalPeriod.kind !== 'prorate' && input.academic_year_terms !== null && input.academic_year_terms > n) {
    warnings.push(
      W.shorterLoanPeriod(n, input.academic_year_terms, sumDec(revision.credits), annualFtCredits, percent),
    );
  }
  if (input.degree_level !== 'undergraduate' && input.is_legacy_borrower && percent.lt(HUNDRED)) {
    warnings.push(W.legacyStillReduced(percent));
  }
  if (!showBoth) {
    warnings.push(
      percent.lt(HUNDRED)
        ? W.proportionalNotOfferedFewEligibleTerms(revision.eligibleCount)
        : finalPeriod.kind === 'prorate'
          ? W.proportionalNotOfferedFinalPeriod()
          : W.proportionalNotOfferedNoReduction(),
    );
  }
  const termWarnings: string[][] = terms.map(() => []);
  for (const t of terms) {
    if (revision.eligible[t.index]) continue;
    const sentence = W.termBelowHalfTime(t.label, t.index, t.credits, t.fullTime, t.closed);
    warnings.push(sentence);
    termWarnings[t.index]!.push(sentence);
  }
  for (let l = 0; l < 3; l++) {
    const remaining = revision.remaining[l]!;
    if (isBelowZero(remaining)) {
      warnings.push(W.overDisbursement(LOAN_TYPES[l]!, payments.paid[l]!, revision.annual[l]!));
    } else if (isPositive(remaining) && revision.openEligible.length === 0) {
      warnings.push(W.unscheduledAmount(LOAN_TYPES[l]!, remaining, revision.annual[l]!));
    }
  }
  if (finalExcesses.length > 0) {
    const sentence = W.finalTermOverDisbursement(finalExcesses);
    warnings.push(sentence);
    termWarnings[n - 1]!.push(sentence);
  }

  // results
  let cause: string | null = null;
  const termResults: TermResult[] = terms.map((t, i) => {
    const adjustment = adjustments[i]!;
    const adjusted = adjustment.sourceIndex !== null;
    const standing = termStanding(t.credits, t.fullTime);
    return {
      label: t.label,
      enrollment_status: standing.status,
      enrollment_intensity_pct: toJsonNumber(standing.intensityPct),
      disbursement_pct: toJsonNumber(disbursementPct[i]!),
      adjustment_sub: toJsonNumber(adjustment.amounts[0]),
      adjustment_unsub: toJsonNumber(adjustment.amounts[1]),
      adjustment_grad_plus: toJsonNumber(adjustment.amounts[2]),
      adjustment_explanation: adjusted
        ? explainAdjustment((cause ??= adjustmentCause(terms, revision, baseline)), adjustment.amounts)
        : '',
      adjustment_source_index: adjustment.sourceIndex,
      credits_enrolled: toJsonNumber(t.enrolled),
      full_time_credits: toJsonNumber(t.fullTime),
      equal: optionAt(revision.equal, i),
      proportional: proportional === null ? null : optionAt(proportional, i),
      final_term_overdisbursement: i === n - 1 && finalExcesses.length > 0,
      warning: termWarnings[i]!.join(' '),
    };
  });

  const totalEqual = optionTotal(revision.equal);
  const result: CalculationResult = {
    annual_ft_credits: toJsonNumber(annualFtCredits),
    reduced_annual_pct: toJsonNumber(percent),
    annual_basic_eligibility_sub: toJsonNumber(revision.annual[0]),
    annual_basic_eligibility_unsub: toJsonNumber(revision.annual[1]),
    annual_basic_eligibility_grad_plus: toJsonNumber(revision.annual[2]),
    show_both_options: showBoth,
    terms: termResults,
    total_equal: totalEqual,
    total_proportional: proportional === null ? { ...totalEqual } : optionTotal(proportional),
    warnings,
  };
  if (recorder !== undefined) {
    recorder({
      input,
      terms,
      annualFtCredits,
      finalPeriod,
      start,
      payments,
      revision,
      baseline,
      showBoth,
      disbursementPct,
      proportional,
      adjustments,
      finalExcesses,
      result,
    });
  }
  return result;
}
