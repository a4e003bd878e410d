/**
 * Worksheet steps for the terms (§4), the two options and their splits with weights and leftover dollars (§5,
 * §1), closed terms and the remaining amounts (§6), disbursement_pct and the totals (§5). Built from calculate()'s
 * workings; the split steps show, for each term, its exact share, the floor and the leftover dollar it got.
 */

import type { CalculationWorkings } from './calculate.ts';
import { CITATIONS } from './citations.ts';
import { type Dec, HUNDRED, ONE, sumDec } from './decimal.ts';
import { decInt } from './decimal-read.ts';
import { LOAN_TYPES, type PerLoan, type Scenario } from './recalculation.ts';
import { termStanding } from './terms.ts';
import { loanName } from './warning-text.ts';
import {
  type StepScalar,
  type TraceStep,
  LOAN_FIELDS,
  figure,
  num,
  numOrNull,
  quotient,
  sumText,
} from './trace-step.ts';

const STATUS_RULE =
  '≥ 1 full_time; ≥ 0.75 three_quarter_time; ≥ 0.5 half_time; > 0 less_than_half_time; 0 not_enrolled';

function eligibilitySteps(w: CalculationWorkings): TraceStep[] {
  return w.terms.map((t) => {
    const i = t.index;
    const s = termStanding(t.credits, t.fullTime);
    const c = figure(t.credits);
    const f = figure(t.fullTime);
    return {
      id: `term[${i}].eligibility`,
      section: '§4',
      title: `Enrollment and eligibility of ${t.label}`,
      citation: CITATIONS.terms.citation,
      formula:
        `credits ÷ full_time_credits = ${c} ÷ ${f} = ${quotient(t.credits, t.fullTime)} → ${s.status} ` +
        `(${STATUS_RULE}); enrollment_intensity_pct = min(100, round_half_up(100 × ${c} ÷ ${f})) = ` +
        `${figure(s.intensityPct)}; eligible when credits ≥ full_time_credits ÷ 2: ${c} ${s.eligible ? '≥' : '<'} ` +
        `${quotient(t.fullTime, decInt(2))} → ${s.eligible ? 'eligible' : 'not eligible (below half time)'}`,
      inputs: { credits: num(t.credits), full_time_credits: num(t.fullTime) },
      output: {
        [`terms[${i}].enrollment_status`]: s.status,
        [`terms[${i}].enrollment_intensity_pct`]: num(s.intensityPct),
      },
    };
  });
}

function closedSteps(w: CalculationWorkings): TraceStep[] {
  const steps: TraceStep[] = [];
  for (const t of w.terms) {
    if (!t.closed) continue;
    const i = t.index;
    const output: Record<string, StepScalar> = {};
    const parts: string[] = [];
    for (let l = 0; l < 3; l++) {
      const key = LOAN_FIELDS[LOAN_TYPES[l]!].option;
      output[`terms[${i}].equal.${key}`] = num(t.priors[l]!);
      if (w.showBoth) output[`terms[${i}].proportional.${key}`] = num(t.priors[l]!);
      parts.push(`${LOAN_TYPES[l]} ${figure(t.priors[l]!)}`);
    }
    steps.push({
      id: `term[${i}].closed`,
      section: '§6',
      title: `${t.label} is closed (already paid)`,
      citation: CITATIONS.recalculation.citation,
      formula:
        `prior disbursements rounded half up to whole dollars: ${parts.join(', ')}; a term with a payment is ` +
        `closed: it keeps them in both options and receives nothing new`,
      inputs: {
        prior_disbursement_sub: numOrNull(w.input.terms[i]!.prior_disbursement_sub),
        prior_disbursement_unsub: numOrNull(w.input.terms[i]!.prior_disbursement_unsub),
        prior_disbursement_grad_plus: numOrNull(w.input.terms[i]!.prior_disbursement_grad_plus),
      },
      output,
    });
  }
  return steps;
}

function optionsStep(w: CalculationWorkings): TraceStep {
  const { revision, showBoth } = w;
  const p = figure(revision.percent);
  const why = showBoth
    ? `reduced_annual_pct ${p} < 100 and ${revision.eligibleCount} eligible terms ≥ 2: both options are offered`
    : revision.percent.lt(HUNDRED)
      ? `${revision.eligibleCount} eligible term(s) < 2: proportional would equal equal, so it is not offered`
      : `reduced_annual_pct ${p} = 100: the proportional exception is only for students subject to the reduction`;
  const output: Record<string, StepScalar> = { show_both_options: showBoth };
  if (!showBoth) for (const t of w.terms) output[`terms[${t.index}].proportional`] = null;
  return {
    id: 'options',
    section: '§5',
    title: 'Equal and proportional options',
    citation: CITATIONS.distribution.citation,
    formula: `show_both_options when reduced_annual_pct < 100 and at least two terms are eligible: ${why}`,
    inputs: { reduced_annual_pct: num(revision.percent), eligible_terms: revision.eligibleCount },
    output,
  };
}

/** remaining = annual − Σ priors of closed terms (§6), per loan type with a payment. */
export function remainingSteps(w: CalculationWorkings, scenario: Scenario, prefix: string): TraceStep[] {
  const steps: TraceStep[] = [];
  for (let l = 0; l < 3; l++) {
    const paid = w.payments.paid[l]!;
    if (paid.isZero()) continue;
    const loan = LOAN_TYPES[l]!;
    const remaining = scenario.remaining[l]!;
    const annual = scenario.annual[l]!;
    const what = remaining.isNegative()
      ? ': below 0, an over-disbursement; open terms get 0'
      : remaining.isZero()
        ? ': nothing left for the open terms'
        : scenario.openEligible.length === 0
          ? ': no open eligible term is left, so it stays unscheduled'
          : '';
    steps.push({
      id: `${prefix}remaining.${loan}`,
      section: '§6',
      title: `Remaining ${loanName(loan)} amount after the paid terms${prefix === '' ? '' : ' (baseline)'}`,
      citation: CITATIONS.recalculation.citation,
      formula: `remaining = annual − Σ prior disbursements of closed terms = ${figure(annual)} − ${figure(paid)} = ${figure(remaining)}${what}`,
      inputs: { annual: num(annual), paid: num(paid) },
      output: {},
    });
  }
  return steps;
}

/**
 * The split of one loan type's remaining amount under one option: a summary step (weights, Σ, leftover dollars)
 * and one step per open eligible term (its exact share, floor and leftover dollar). With `prefix` "baseline."
 * the steps have no output (the baseline is not in the result).
 */
export function splitSteps(
  w: CalculationWorkings,
  scenario: Scenario,
  schedule: PerLoan<Dec[]>,
  option: 'equal' | 'proportional',
  l: number,
  prefix: string,
): TraceStep[] {
  const loan = LOAN_TYPES[l]!;
  const key = LOAN_FIELDS[loan].option;
  const amount = scenario.remaining[l]!;
  const open = scenario.openEligible;
  const record = prefix === '';
  const section = record ? '§5' : '§6';
  const amountName = w.payments.paid[l]!.isZero() ? `annual ${loan}` : `remaining ${loan}`;
  const summaryOutput: Record<string, StepScalar> = {};
  const ineligibleOpen = w.terms.filter((t) => !t.closed && !scenario.eligible[t.index]).map((t) => t.index);
  const zeroTerms =
    !amount.isNegative() && !amount.isZero() && open.length > 0 ? ineligibleOpen : [...open, ...ineligibleOpen];
  if (record) for (const j of zeroTerms) summaryOutput[`terms[${j}].${option}.${key}`] = 0;
  const title = `${option === 'equal' ? 'Equal' : 'Proportional'} split of the ${loanName(loan)} amount${record ? '' : ' (baseline)'}`;
  const citation = (
    w.readings.remainder === 'last_term'
      ? CITATIONS.schoolPolicy
      : option === 'equal'
        ? CITATIONS.split
        : CITATIONS.distribution
  ).citation;
  if (open.length === 0 || amount.isNegative() || amount.isZero()) {
    return [
      {
        id: `${prefix}${option}.${loan}`,
        section,
        title,
        citation,
        formula:
          open.length === 0
            ? 'no open eligible term: nothing is scheduled'
            : `${amountName} is ${figure(amount)}: every open term gets 0`,
        inputs: { amount: num(amount), open_eligible_terms: open.length },
        output: summaryOutput,
      },
    ];
  }
  const lastTerm = w.readings.remainder === 'last_term';
  const weights = open.map((j) => (option === 'equal' ? ONE : scenario.credits[j]!));
  const total = sumDec(weights);
  const floors = weights.map((wt) => amount.times(wt).divToInt(total));
  const leftover = amount.minus(sumDec(floors));
  const parts = open.map((j) => schedule[l]![j]!);
  const weightText =
    option === 'equal' ? `${open.length} equal weights` : `weights credits(t) ${sumText(weights)} (Σ ${figure(total)})`;
  const steps: TraceStep[] = [
    {
      id: `${prefix}${option}.${loan}`,
      section,
      title,
      citation,
      formula:
        `${amountName} ${figure(amount)} split over the open eligible terms by ${weightText}: floors ` +
        `${floors.map(figure).join(', ')}, ${figure(leftover)} leftover dollar(s) ${
          lastTerm
            ? 'on the last open eligible term (school policy remainder_placement=last_term, rules.md §10)'
            : 'to the largest remainders, ties to the earlier term'
        } → ${parts.map(figure).join(' + ')} = ${figure(amount)}` +
        (ineligibleOpen.length > 0 ? '; open terms below half time get 0' : ''),
      inputs: {
        amount: num(amount),
        weights: weights.map(num),
        sum_of_weights: num(total),
        leftover_dollars: num(leftover),
      },
      output: summaryOutput,
    },
  ];
  open.forEach((j, p) => {
    const part = parts[p]!;
    const extra = part.minus(floors[p]!);
    const share =
      option === 'equal'
        ? `${amountName} ÷ open eligible terms = ${figure(amount)} ÷ ${open.length}`
        : `${amountName} × term credits ÷ Σ credits = ${figure(amount)} × ${figure(weights[p]!)} ÷ ${figure(total)}`;
    const exact = quotient(amount.times(weights[p]!), total);
    const eq = exact.startsWith('≈') ? ' ' : ' = ';
    const tail = extra.isZero()
      ? exact === figure(part)
        ? ` = ${figure(part)}`
        : `${eq}${exact} → floor ${figure(part)}`
      : `${eq}${exact} → floor ${figure(floors[p]!)} + ${figure(extra)} leftover dollar${extra.eq(ONE) ? '' : 's'} = ${figure(part)}`;
    steps.push({
      id: `${prefix}term[${j}].${option}.${loan}`,
      section,
      title: `${w.terms[j]!.label}: ${option} ${loanName(loan)}${record ? '' : ' (baseline)'}`,
      citation,
      formula: share + tail,
      inputs: { amount: num(amount), weight: num(weights[p]!), sum_of_weights: num(total) },
      output: record ? { [`terms[${j}].${option}.${key}`]: num(part) } : {},
    });
  });
  return steps;
}

function disbursementPctSteps(w: CalculationWorkings): TraceStep[] {
  const { revision, showBoth } = w;
  const eligible = w.terms.filter((t) => revision.eligible[t.index]);
  const total = sumDec(eligible.map((t) => revision.credits[t.index]!));
  return w.terms.map((t) => {
    const i = t.index;
    const pct = w.disbursementPct[i]!;
    const formula = !revision.eligible[i]
      ? 'disbursement_pct = 0 (not eligible)'
      : showBoth
        ? `disbursement_pct = round_half_up(100 × credits(t) ÷ Σ credits of eligible terms) = round_half_up(100 × ` +
          `${figure(revision.credits[i]!)} ÷ ${figure(total)}) = ${figure(pct)}`
        : `disbursement_pct = round_half_up(100 ÷ eligible terms) = round_half_up(100 ÷ ${eligible.length}) = ${figure(pct)}`;
    return {
      id: `term[${i}].disbursement_pct`,
      section: '§5',
      title: `Share of the year scheduled for ${t.label}`,
      citation: CITATIONS.distribution.citation,
      formula,
      inputs: { eligible: revision.eligible[i]!, eligible_terms: eligible.length },
      output: { [`terms[${i}].disbursement_pct`]: num(pct) },
    };
  });
}

function totalStep(w: CalculationWorkings, option: 'equal' | 'proportional'): TraceStep {
  const schedule = option === 'proportional' ? w.proportional : w.revision.equal;
  const output: Record<string, StepScalar> = {};
  const parts: string[] = [];
  for (let l = 0; l < 3; l++) {
    const key = LOAN_FIELDS[LOAN_TYPES[l]!].option;
    const values = (schedule ?? w.revision.equal)[l]!;
    const sum = sumDec(values);
    output[`total_${option}.${key}`] = num(sum);
    parts.push(`${LOAN_TYPES[l]} ${sumText(values)} = ${figure(sum)}`);
  }
  return {
    id: `total.${option}`,
    section: '§5',
    title: `Total of the ${option} option`,
    citation: CITATIONS.distribution.citation,
    formula:
      schedule === null
        ? 'total_proportional = total_equal (proportional not offered): ' + parts.join('; ')
        : `Σ over all terms, prior disbursements included: ${parts.join('; ')}`,
    inputs: {},
    output,
  };
}

/** §4 terms, §6 closed terms and remaining, §5 options, splits, disbursement_pct and totals of the revision. */
export function termSteps(w: CalculationWorkings): TraceStep[] {
  const steps = eligibilitySteps(w);
  steps.push(...closedSteps(w));
  steps.push(optionsStep(w));
  steps.push(...remainingSteps(w, w.revision, ''));
  for (let l = 0; l < 3; l++) steps.push(...splitSteps(w, w.revision, w.revision.equal, 'equal', l, ''));
  if (w.proportional !== null) {
    for (let l = 0; l < 3; l++) steps.push(...splitSteps(w, w.revision, w.proportional, 'proportional', l, ''));
  }
  steps.push(...disbursementPctSteps(w));
  steps.push(totalStep(w, 'equal'), totalStep(w, 'proportional'));
  return steps;
}
