/**
 * Worksheet steps for the student-level part of a calculation, in the order the worksheet shows them: the school
 * policy (§10), the credits of the year (§3), the limits (§2.1, §2.3), the starting amounts and caps (§2.2), the
 * percentage and the annual amounts (§3). Built from calculate()'s workings; each family of steps has its file.
 */

import type { CalculationWorkings } from './calculate.ts';
import { CITATIONS } from './citations.ts';
import { annualSteps, percentageStep } from './trace-annual.ts';
import { baseSteps } from './trace-bases.ts';
import { finalPeriodStep, healthStep, limitStep } from './trace-limits.ts';
import { policyStep } from './trace-policy.ts';
import { figure, num, sumText, type TraceStep } from './trace-step.ts';

function creditSteps(w: CalculationWorkings): TraceStep[] {
  const steps: TraceStep[] = [];
  for (const t of w.terms) {
    const i = t.index;
    steps.push({
      id: `term[${i}].credits`,
      section: '§3',
      title: `Credits of ${t.label}`,
      citation: CITATIONS.reduction.citation,
      formula:
        t.actual === null
          ? `credits(t) = credits_enrolled (no actual_final_credits) = ${figure(t.credits)}`
          : `credits(t) = actual_final_credits when present = ${figure(t.actual)} (credits_enrolled ${figure(t.enrolled)})`,
      inputs: {
        label: t.label,
        credits_enrolled: num(t.enrolled),
        actual_final_credits: t.actual === null ? null : num(t.actual),
        full_time_credits: num(t.fullTime),
      },
      output: {
        [`terms[${i}].credits_enrolled`]: num(t.enrolled),
        [`terms[${i}].full_time_credits`]: num(t.fullTime),
      },
    });
  }
  const fullTime = w.terms.map((t) => t.fullTime);
  steps.push({
    id: 'annual_ft_credits',
    section: '§3',
    title: 'Full-time credits of the academic year',
    citation: CITATIONS.reduction.citation,
    formula: `annual_ft_credits = Σ full_time_credits = ${sumText(fullTime)} = ${figure(w.annualFtCredits)}`,
    inputs: { full_time_credits: fullTime.map(num) },
    output: { annual_ft_credits: num(w.annualFtCredits) },
  });
  return steps;
}

/** §3 credits, §2 starting amounts and caps, §3 percentage and annual amounts of the revision. */
export function startSteps(w: CalculationWorkings): TraceStep[] {
  const steps: TraceStep[] = [];
  const policy = policyStep(w);
  if (policy !== null) steps.push(policy);
  steps.push(...creditSteps(w));
  steps.push(limitStep(w));
  const health = healthStep(w);
  if (health !== null) steps.push(health);
  const fp = finalPeriodStep(w);
  if (fp !== null) steps.push(fp);
  steps.push(...baseSteps(w));
  steps.push(percentageStep(w, w.revision, ''));
  steps.push(...annualSteps(w, w.revision, ''));
  return steps;
}
