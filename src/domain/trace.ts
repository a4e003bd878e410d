/**
 * The worksheet's trace: calculate() with its steps recorded (architecture.md, "The aid officer's page and the
 * worksheet"). `calculateWithTrace` runs the same calculate() with a recorder and builds the ordered steps from
 * its workings; `calculate` without a recorder builds nothing. Every value of the result is the output of a
 * step (test/domain/trace.test.ts proves it for every example and for random requests).
 *
 *   trace-start.ts   the student-level steps in order: §3 credits, then the files below
 *   trace-policy.ts  §10 school policy (when not the default); a step changed by an option names it, cites §10
 *   trace-limits.ts  §2.1 statutory row and health professions increase, §2.3 final period
 *   trace-bases.ts   §2.2 starting amounts and caps
 *   trace-annual.ts  §3 percent and annual amounts, Grad PLUS
 *   trace-terms.ts   §4 terms, §6 closed terms and remaining, §5 options, splits, disbursement_pct, totals
 *   this file        §6 the baseline and the adjustments, the final-term over-disbursement, §7 the warnings
 */

import { type CalculationWorkings, calculate } from './calculate.ts';
import { CITATIONS } from './citations.ts';
import { type LimitTable, STATUTORY_LIMIT_TABLE } from './limits.ts';
import { readingsForPolicy } from './readings.ts';
import { LOAN_TYPES } from './recalculation.ts';
import { annualSteps, percentageStep } from './trace-annual.ts';
import { startSteps } from './trace-start.ts';
import { type StepScalar, type TraceStep, LOAN_FIELDS, figure, num } from './trace-step.ts';
import { remainingSteps, splitSteps, termSteps } from './trace-terms.ts';
import type { CalculationInput, CalculationResult } from './types.ts';

export type { StepInput, StepScalar, TraceStep } from './trace-step.ts';

export interface TracedCalculation {
  result: CalculationResult;
  steps: TraceStep[];
}

/** §6: the baseline (every term at its credits_enrolled), only when some credits changed. */
function baselineSteps(w: CalculationWorkings): TraceStep[] {
  if (!w.terms.some((t) => t.changed)) return [];
  const b = w.baseline;
  const steps: TraceStep[] = [percentageStep(w, b, 'baseline.'), ...annualSteps(w, b, 'baseline.')];
  steps.push(...remainingSteps(w, b, 'baseline.'));
  for (let l = 0; l < 3; l++) steps.push(...splitSteps(w, b, b.equal, 'equal', l, 'baseline.'));
  return steps;
}

function adjustmentSteps(w: CalculationWorkings): TraceStep[] {
  const changes = w.terms.filter((t) => t.changed);
  if (changes.length === 0) {
    const output: Record<string, StepScalar> = {};
    for (const t of w.terms) {
      const i = t.index;
      for (const loan of LOAN_TYPES) output[`terms[${i}].${LOAN_FIELDS[loan].adjustment}`] = 0;
      output[`terms[${i}].adjustment_source_index`] = null;
      output[`terms[${i}].adjustment_explanation`] = '';
    }
    return [
      {
        id: 'adjustments',
        section: '§6',
        title: 'Adjustments',
        citation: CITATIONS.recalculation.citation,
        formula: 'no term’s actual_final_credits differs from its credits_enrolled: every adjustment is 0',
        inputs: {},
        output,
      },
    ];
  }
  const changed = changes.map((t) => `${t.label} ${figure(t.enrolled)} → ${figure(t.actual!)}`).join(', ');
  return w.terms.map((t) => {
    const i = t.index;
    const adj = w.adjustments[i]!;
    const output: Record<string, StepScalar> = {};
    const parts: string[] = [];
    for (let l = 0; l < 3; l++) {
      const loan = LOAN_TYPES[l]!;
      output[`terms[${i}].${LOAN_FIELDS[loan].adjustment}`] = num(adj.amounts[l]!);
      parts.push(
        `adjustment_${loan} = equal(revision) − equal(baseline) = ${figure(w.revision.equal[l]![i]!)} − ` +
          `${figure(w.baseline.equal[l]![i]!)} = ${figure(adj.amounts[l]!)}`,
      );
    }
    output[`terms[${i}].adjustment_source_index`] = adj.sourceIndex;
    output[`terms[${i}].adjustment_explanation`] = w.result.terms[i]!.adjustment_explanation;
    const source =
      adj.sourceIndex === null
        ? 'no adjustment, source index null'
        : `source index ${adj.sourceIndex} (${w.terms[adj.sourceIndex]!.label}: the last change at or before this ` +
          'term, else the first after it)';
    return {
      id: `term[${i}].adjustment`,
      section: '§6',
      title: `Adjustment of ${t.label}`,
      citation: CITATIONS.recalculation.citation,
      formula: t.closed
        ? `closed term: adjustments 0 (credits changed: ${changed})`
        : `credits changed: ${changed}; ${parts.join('; ')}; ${source}`,
      inputs: { closed: t.closed },
      output,
    };
  });
}

function finalTermStep(w: CalculationWorkings): TraceStep {
  const n = w.terms.length;
  const output: Record<string, StepScalar> = {};
  for (const t of w.terms)
    output[`terms[${t.index}].final_term_overdisbursement`] = w.result.terms[t.index]!.final_term_overdisbursement;
  const excess = w.finalExcesses.map((e) => `${e.loan} paid ${figure(e.paid)} > annual ${figure(e.annual)}`);
  return {
    id: 'final_term_overdisbursement',
    section: '§6',
    title: 'Over-disbursement after the final disbursement',
    citation: CITATIONS.recalculation.citation,
    formula:
      excess.length > 0
        ? `the last term (${w.terms[n - 1]!.label}) is closed and ${excess.join('; ')}: flagged on the last term`
        : w.terms[n - 1]!.closed
          ? 'the last term is closed but no loan type’s payments exceed its revised annual amount: not flagged'
          : 'the last term is still open: later disbursements can absorb any change, not flagged',
    inputs: { last_term_closed: w.terms[n - 1]!.closed },
    output,
  };
}

function warningsStep(w: CalculationWorkings): TraceStep {
  const output: Record<string, StepScalar> = {};
  w.result.warnings.forEach((sentence, k) => (output[`warnings[${k}]`] = sentence));
  w.result.terms.forEach((t, i) => (output[`terms[${i}].warning`] = t.warning));
  const count = w.result.warnings.length;
  return {
    id: 'warnings',
    section: '§7',
    title: 'Warnings',
    citation: CITATIONS.warnings.citation,
    formula:
      count === 0
        ? 'no warning applies'
        : `${count} sentence(s) for the student’s file, in a fixed order (caps and ignored fields, final period, ` +
          'Grad PLUS, shorter loan period, legacy, options, terms below half time, over-disbursement, final term)',
    inputs: {},
    output,
  };
}

/** The ordered steps of one calculation, from its workings. */
export function traceSteps(w: CalculationWorkings): TraceStep[] {
  return [
    ...startSteps(w),
    ...termSteps(w),
    ...baselineSteps(w),
    ...adjustmentSteps(w),
    finalTermStep(w),
    warningsStep(w),
  ];
}

/** calculate() with its steps under the school policy in force: the same result, and how each value was computed. */
export function calculateWithTrace(
  input: CalculationInput,
  table: LimitTable = STATUTORY_LIMIT_TABLE,
): TracedCalculation {
  let steps: TraceStep[] | null = null;
  const result = calculate(input, table, readingsForPolicy(input.policy), (workings) => {
    steps = traceSteps(workings);
  });
  if (steps === null) throw new Error('calculateWithTrace: calculate() did not hand over its workings');
  return { result, steps };
}
