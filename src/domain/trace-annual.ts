/**
 * Worksheet steps of a scenario's year: the percentage (§3) and the annual amounts of each loan, Grad PLUS after
 * the reduction of the other two (§2.2 item 3, then §3). Used for the revision and, prefixed "baseline.", for the
 * baseline of a recalculation (§6).
 */

import type { CalculationWorkings } from './calculate.ts';
import { CITATIONS } from './citations.ts';
import { type Dec, HUNDRED, sumDec, TWO, ZERO } from './decimal.ts';
import type { Scenario, ScenarioBases } from './recalculation.ts';
import { policyNote } from './trace-policy.ts';
import { figure, LOAN_FIELDS, num, quotient, type StepScalar, sumText, type TraceStep } from './trace-step.ts';

/** The percentage of a scenario (§3), or of the baseline (§6) with `prefix` "baseline.". */
export function percentageStep(w: CalculationWorkings, scenario: Scenario, prefix: string): TraceStep {
  const credits = scenario.credits;
  const total = sumDec(credits);
  const output: Record<string, StepScalar> = prefix === '' ? { reduced_annual_pct: num(scenario.percent) } : {};
  const inputs = { credits: credits.map(num), annual_ft_credits: num(w.annualFtCredits) };
  if (scenario.bases.fixedPercent !== null) {
    return {
      id: `${prefix}percentage`,
      section: '§2.3',
      title: 'Academic-year percentage (final period: no reduction)',
      citation: CITATIONS.finalPeriod.citation,
      formula: `reduced_annual_pct = ${figure(scenario.percent)}: the final-period proration replaces the reduction`,
      inputs,
      output,
    };
  }
  const belowHalf = w.terms.some((t, i) => credits[i]!.times(2).lt(t.fullTime) && !credits[i]!.isZero());
  const excluded = belowHalf && w.readings.belowHalfTimeCredits === 'excluded';
  const counted = excluded ? credits.filter((_, i) => scenario.eligible[i]) : credits;
  const exact = (excluded ? sumDec(counted) : total).times(HUNDRED);
  const sum = counted.length === 0 ? '0' : sumText(counted);
  return {
    id: `${prefix}percentage`,
    section: prefix === '' ? '§3' : '§6',
    title: prefix === '' ? 'Academic-year percentage' : 'Baseline percentage (enrolled credits)',
    citation: excluded
      ? CITATIONS.schoolPolicy.citation
      : (belowHalf ? CITATIONS.belowHalfTimeCounted : CITATIONS.reduction).citation,
    formula:
      `reduced_annual_pct = min(100, round_half_up(100 × Σ credits(t) ÷ annual_ft_credits)) = min(100, ` +
      `round_half_up(100 × (${sum}) ÷ ${figure(w.annualFtCredits)})) = min(100, round_half_up(` +
      `${quotient(exact, w.annualFtCredits)})) = ${figure(scenario.percent)}` +
      (excluded
        ? `; the credits of terms below half time are left out of Σ credits(t)${policyNote(w, ['below_half_time_credits'])}`
        : ''),
    inputs,
    output,
  };
}

function annualStep(loan: 'sub' | 'unsub', base: Dec, scenario: Scenario, prefix: string, citation: string): TraceStep {
  const annual = scenario.annual[loan === 'sub' ? 0 : 1];
  const p = figure(scenario.percent);
  const field = LOAN_FIELDS[loan].annual;
  if (scenario.bases.halfAnnual === true && !base.isZero()) {
    return {
      id: `${prefix}annual.${loan}`,
      section: prefix === '' ? '§3' : '§6',
      title: `Annual ${loan === 'sub' ? 'subsidized' : 'unsubsidized'} amount${prefix === '' ? '' : ' (baseline)'}`,
      citation: CITATIONS.schoolPolicy.citation,
      formula:
        `one-term loan period on half the annual amount (school policy single_term_basis=half_annual, rules.md §10): ` +
        `${field} = round_half_up(${loan}_base × pct ÷ 200) = round_half_up(${figure(base)} × ${p} ÷ 200) = ` +
        `round_half_up(${quotient(base.times(scenario.percent), HUNDRED.times(TWO))}) = ${figure(annual)}`,
      inputs: { [`${loan}_base`]: num(base), reduced_annual_pct: num(scenario.percent) },
      output: prefix === '' ? { [field]: num(annual) } : {},
    };
  }
  return {
    id: `${prefix}annual.${loan}`,
    section: prefix === '' ? '§3' : '§6',
    title: `Annual ${loan === 'sub' ? 'subsidized' : 'unsubsidized'} amount${prefix === '' ? '' : ' (baseline)'}`,
    citation,
    formula: base.isZero()
      ? `${field} = round_half_up(${loan}_base × pct ÷ 100) = 0 (${loan}_base is 0)`
      : `${field} = round_half_up(${loan}_base × pct ÷ 100) = round_half_up(${figure(base)} × ${p} ÷ 100) = ` +
        `round_half_up(${quotient(base.times(scenario.percent), HUNDRED)}) = ${figure(annual)}`,
    inputs: { [`${loan}_base`]: num(base), reduced_annual_pct: num(scenario.percent) },
    output: prefix === '' ? { [field]: num(annual) } : {},
  };
}

function noGradPlusReason(w: CalculationWorkings): string {
  const { input } = w;
  if (input.degree_level === 'undergraduate') return 'Grad PLUS is for graduate and professional students';
  if (input.plus_denied) return 'the student’s Grad PLUS application was denied (plus_denied)';
  if (w.start.limit.gradPlus === 'none')
    return 'Grad PLUS is closed to borrowers without the interim (legacy) exception';
  return 'Grad PLUS is sized from cost_of_attendance, which is not given';
}

/** Grad PLUS after the reduction of the other two loans (§2.2 item 3, then §3). */
function gradPlusSteps(w: CalculationWorkings, scenario: Scenario, prefix: string): TraceStep[] {
  const field = LOAN_FIELDS.grad_plus.annual;
  const output = (value: Dec) => (prefix === '' ? { [field]: num(value) } : {});
  const sizing = scenario.bases.gradPlus;
  const amount = scenario.gradPlus;
  if (sizing === null || amount === null) {
    return [
      {
        id: `${prefix}annual.grad_plus`,
        section: '§2.2',
        title: `Annual Grad PLUS amount${prefix === '' ? '' : ' (baseline)'}`,
        citation: w.start.limit.citation,
        formula: `${field} = 0: ${noGradPlusReason(w)}`,
        inputs: { degree_level: w.input.degree_level, is_legacy_borrower: w.input.is_legacy_borrower },
        output: output(ZERO),
      },
    ];
  }
  const before = w.readings.gradPlusBase === 'before_reduction';
  const [annualSub, annualUnsub] = before ? [scenario.bases.sub, scenario.bases.unsub] : scenario.annual;
  const ceiling =
    sizing.ceiling === null
      ? ''
      : `; capped by total_limit − sub_base − unsub_base = ${figure(sizing.ceiling)} → ${figure(amount.base)}`;
  const steps: TraceStep[] = [
    {
      id: `${prefix}grad_plus.base`,
      section: '§2.2',
      title: before
        ? 'Grad PLUS base: cost of attendance minus the starting loans'
        : 'Grad PLUS base: cost of attendance minus the reduced loans',
      citation: before ? CITATIONS.schoolPolicy.citation : CITATIONS.gradPlus.citation,
      formula:
        (before
          ? `grad_plus_base = max(0, cost_of_attendance − sub_base − unsub_base)${policyNote(w, ['grad_plus_gap'])} = max(0, `
          : `grad_plus_base = max(0, cost_of_attendance − annual sub − annual unsub) = max(0, `) +
        `${figure(sizing.costOfAttendance)} − ${figure(annualSub)} − ${figure(annualUnsub)}) = ${figure(amount.gap)}${ceiling}`,
      inputs: {
        cost_of_attendance: num(sizing.costOfAttendance),
        total_limit: sizing.totalLimit === null ? null : num(sizing.totalLimit),
      },
      output: {},
    },
  ];
  steps.push({
    id: `${prefix}annual.grad_plus`,
    section: prefix === '' ? '§3' : '§6',
    title: `Annual Grad PLUS amount${prefix === '' ? '' : ' (baseline)'}`,
    citation: CITATIONS.reduction.citation,
    formula: amount.base.isZero()
      ? `${field} = 0 (grad_plus_base is 0)`
      : `${field} = min(round_half_up(grad_plus_base × pct ÷ 100), floor(grad_plus_base)) = ` +
        `min(round_half_up(${figure(amount.base)} × ${figure(scenario.percent)} ÷ 100), ${figure(amount.base.floor())}) = ` +
        `${figure(amount.annual)}`,
    inputs: { grad_plus_base: num(amount.base), reduced_annual_pct: num(scenario.percent) },
    output: output(amount.annual),
  });
  return steps;
}

/** The annual amounts of a scenario: sub, unsub, Grad PLUS. */
export function annualSteps(w: CalculationWorkings, scenario: Scenario, prefix: string): TraceStep[] {
  const bases: ScenarioBases = scenario.bases;
  const citation = CITATIONS.reduction.citation;
  return [
    annualStep('sub', bases.sub, scenario, prefix, citation),
    annualStep('unsub', bases.unsub, scenario, prefix, citation),
    ...gradPlusSteps(w, scenario, prefix),
  ];
}
