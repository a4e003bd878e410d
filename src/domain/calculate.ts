/**
 * calculate(): the Schedule of Reductions (34 CFR 685.203(m)) for one student, composed from the rule modules.
 * Pure: plain validated data in (CalculationInput), plain data out (CalculationResult), deterministic.
 *
 *   bases.ts          §2 starting amounts and caps (§2.1 the health professions increase, health-professions.ts)
 *   final-period.ts   §2.3 final period of an undergraduate program (traditional proration, no reduction)
 *   policy.ts         §10 the school policy in force: its options are readings (readings.ts)
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
import { DEFAULT_POLICY, type SchoolPolicy, isDefaultPolicy, policyText } from './policy.ts';
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

/** The terms whose actual_final_credits differ from their credits_enrolled, in term order (rules.md §6). */
function creditChanges(terms: readonly TermFacts[]): W.CreditChange[] {
  const changes: W.CreditChange[] = [];
  for (const t of terms) if (t.changed) changes.push({ label: t.label, enrolled: t.enrolled, actual: t.actual! });
  return changes;
}

/** The shared part of the adjustment explanations (warnings.ts adjustmentCause()). */
function adjustmentCause(terms: readonly TermFacts[], revision: Scenario, baseline: Scenario): string {
  const changes = creditChanges(terms);
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

/**
 * The starting amounts a scenario (recalculation.ts) is evaluated from, under `readings`; `termCount` decides the
 * one-term loan period of `singleTermBasis: 'half_annual'` (rules.md §10), which does not apply under §2.3.
 */
export function scenarioBases(start: StartingAmounts, readings: Readings, termCount: number): ScenarioBases {
  return {
    sub: start.sub,
    unsub: start.unsub,
    gradPlus: start.gradPlus,
    fixedPercent: start.proration === null ? null : HUNDRED,
    readings,
    halfAnnual: readings.singleTermBasis === 'half_annual' && termCount === 1 && start.proration === null,
  };
}

/**
 * The starting amounts of §2 (with the §2.3 prorated limits when they apply). The proration is fixed at
 * origination (credits_enrolled), so the revision and the baseline of §6 share these amounts.
 */
export function startFor(
  input: CalculationInput,
  finalPeriod: FinalPeriodCase,
  terms: readonly TermFacts[],
  readings: Readings,
  table: LimitTable,
): StartingAmounts {
  return startingAmounts(
    input,
    finalPeriod.kind === 'prorate' ? { terms, academicYearCredits: finalPeriod.academicYearCredits, readings } : null,
    table,
  );
}

/** The §2.3 sentences: proration applied (and not redone for changed credits), flag not applicable, or ignored. */
function finalPeriodWarnings(
  input: CalculationInput,
  finalPeriod: FinalPeriodCase,
  start: StartingAmounts,
  terms: readonly TermFacts[],
): string[] {
  switch (finalPeriod.kind) {
    case 'prorate': {
      const p = start.proration!;
      const sentences = [
        W.finalPeriodProrated({
          credits: p.credits,
          academicYearCredits: finalPeriod.academicYearCredits,
          periodFullTime: finalPeriod.periodFullTime,
          capped: p.capped,
          decimal: p.decimal,
          method: p.method,
          leftOut: p.belowHalfTimeTerms.map((i) => terms[i]!.label),
          subsidizedMax: p.subsidizedMax,
          combinedMax: p.combinedMax,
          unsubsidizedOnly: p.limits === 'parts_rounded' ? p.unsubsidizedOnly : null,
        }),
      ];
      const changes = creditChanges(terms);
      if (changes.length > 0) sentences.push(W.prorationNotRedone(changes));
      return sentences;
    }
    case 'not_shorter':
      return [W.finalPeriodNotShorter(finalPeriod.periodFullTime, finalPeriod.academicYearCredits)];
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

const policySentences = new WeakMap<SchoolPolicy, string | null>();

/** rules.md §10: one sentence naming the non-default options in force, or null for the default policy. */
export function policySentence(policy: SchoolPolicy): string | null {
  if (policy === DEFAULT_POLICY) return null;
  let sentence = policySentences.get(policy);
  if (sentence === undefined) {
    sentence = isDefaultPolicy(policy) ? null : W.schoolPolicyInForce(policyText(policy));
    policySentences.set(policy, sentence);
  }
  return sentence;
}

/**
 * rules.md §7 (2026-27.3): why a legacy borrower's Grad PLUS is $0 when a cost of attendance sized it (plus_denied
 * and a missing cost of attendance have their own sentences in bases.ts); null when it is not $0.
 */
function gradPlusZeroSentence(start: StartingAmounts, revision: Scenario, readings: Readings): string | null {
  const amount = revision.gradPlus;
  const sizing = start.gradPlus;
  if (amount === null || sizing === null || !amount.annual.isZero()) return null;
  if (amount.gap.isZero()) {
    const before = readings.gradPlusBase === 'before_reduction';
    return W.gradPlusZeroNoGap(
      sizing.costOfAttendance,
      before ? start.sub : revision.annual[0],
      before ? start.unsub : revision.annual[1],
      before ? 'starting' : 'reduced',
    );
  }
  if (amount.base.isZero() && sizing.totalLimit !== null) {
    return W.gradPlusZeroTotalLimit(sizing.totalLimit, start.sub, start.unsub, amount.gap);
  }
  return W.gradPlusZeroRounded(amount.base, revision.percent);
}

/**
 * What calculate() worked out on its way to the result, handed to a recorder when one is given (the worksheet's
 * steps, src/domain/trace.ts, are built from it). Nothing here is computed for the recorder alone.
 */
export interface CalculationWorkings {
  input: CalculationInput;
  /** The readings the calculation ran under (the school policy's, readingsForPolicy(), by default). */
  readings: Readings;
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
  const finalPeriod = finalPeriodCase(input, terms);

  // §10 the school policy in force, then §2 starting amounts (§2.1 increase, §2.3 prorated limits)
  const start = startFor(input, finalPeriod, terms, readings, table);
  const policy = policySentence(input.policy);
  const warnings = policy === null ? start.warnings.slice() : [policy, ...start.warnings];
  if (finalPeriod.kind !== 'none' || input.academic_year_credits !== null) {
    warnings.push(...finalPeriodWarnings(input, finalPeriod, start, terms));
  }
  const bases = scenarioBases(start, readings, n);

  // §3–§6 the revision (credits(t)), and the baseline (credits_enrolled) only when some credits changed; both
  // share the starting amounts (the §2.3 proration is fixed at origination)
  const revisionCredits = terms.map((t) => t.credits);
  const payments = collectPayments(terms);
  const revision = evaluateScenario(terms, revisionCredits, annualFtCredits, bases, payments);
  const { showBoth, disbursementPct } = optionsOffered(revision);
  const proportional = showBoth ? proportionalSchedule(revision, payments) : null;
  let baseline = revision;
  if (terms.some((t) => t.changed)) {
    const enrolledCredits = terms.map((t) => t.enrolled);
    baseline = evaluateScenario(terms, enrolledCredits, annualFtCredits, bases, payments, revision);
  }
  const adjustments = termAdjustments(terms, revision, baseline);
  const finalExcesses = finalTermExcesses(terms, revision, payments);

  // §7 student-level warnings, in a fixed order
  const percent = revision.percent;
  const gradPlus = revision.gradPlus;
  const gradPlusZero = gradPlus === null ? null : gradPlusZeroSentence(start, revision, readings);
  if (
    gradPlus !== null &&
    gradPlus.squeezed &&
    !gradPlus.base.isZero() &&
    start.gradPlus !== null &&
    start.gradPlus.totalLimit !== null
  ) {
    warnings.push(W.gradPlusTotalLimitCap(start.gradPlus.totalLimit, gradPlus.base, gradPlus.gap));
  }
  if (gradPlusZero !== null) warnings.push(gradPlusZero);
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
  const creditsUse: W.BelowHalfTimeCredits =
    finalPeriod.kind === 'prorate'
      ? 'proration'
      : readings.belowHalfTimeCredits === 'excluded'
        ? 'excluded'
        : 'counted';
  for (const t of terms) {
    if (revision.eligible[t.index]) continue;
    const sentence = W.termBelowHalfTime(t.label, t.index, t.credits, t.fullTime, t.closed, creditsUse);
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
      readings,
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
