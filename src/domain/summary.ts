/**
 * The worksheet's summary: page 1 of every worksheet (HTML and PDF), the `summary` of the JSON worksheet, and what
 * the assistant's tools return. What an auditor reads in a minute, in an aid office's words: the student, the award
 * year, the rule set and the school policy; the academic-year percentage with its arithmetic ((6 + 9) ÷ 24 = 62.5%
 * → 63%) or the final-period proration that replaces it; each annual amount as starting amount × percentage =
 * amount with its short citation; the schedule per term under both options and the totals; the adjustments and
 * the warnings.
 *
 * Pure: built from the request, the result and the trace's steps (src/domain/trace.ts) of one calculation. The
 * figures come from the result; their arithmetic is checked against it (summary-amounts.ts). No text of the
 * summary holds an API field name, `null`, `JSON` or a reference to the rule book; the legal citations are the
 * short forms of the citation data (src/domain/citations.ts).
 *
 *   summary-types.ts    the shape
 *   summary-amounts.ts  the percentage, the final-period proration and the annual amounts
 *   summary-words.ts    statuses, loans, policy options and request fields in words; the warnings rewritten
 */

import { HUNDRED, isPositive } from './decimal.ts';
import { Dec } from './decimal.ts';
import { POLICY_OPTIONS, type PolicyOptionName, type SchoolPolicy } from './policy.ts';
import { RULE_SET_ID } from './rule-set.ts';
import { type SummaryContext, annualSummary, percentageSummary, stepOf, summaryContext } from './summary-amounts.ts';
import type { SummaryPolicyOption, SummaryStudent, SummaryTerm, WorksheetSummary } from './summary-types.ts';
import { POLICY_WORDS, STATUS_WORDS, credits, officeWords, policyValueWords } from './summary-words.ts';
import type { TraceStep } from './trace-step.ts';
import type { CalculationInput, CalculationResult } from './types.ts';

export type * from './summary-types.ts';

/** The student as the worksheet request names them: either part may be missing. */
export interface StudentIdentity {
  name?: string;
  id?: string;
}

function studentOf(student: StudentIdentity | undefined): SummaryStudent | null {
  const name = student?.name ?? null;
  const id = student?.id ?? null;
  return name === null && id === null ? null : { name, id };
}

function policySummary(policy: SchoolPolicy): SummaryPolicyOption[] {
  return POLICY_OPTIONS.map((o) => {
    const option: PolicyOptionName = o.name;
    const value = policy[option];
    const isDefault = value === o.values[0];
    const words = policyValueWords(option, value);
    const defaultWords = policyValueWords(option, o.values[0] as never);
    const label = POLICY_WORDS[option].label;
    return {
      option,
      label,
      value,
      value_label: words,
      is_default: isDefault,
      default_label: defaultWords,
      text: isDefault
        ? `${label}: ${words}; the service’s default.`
        : `${label}: ${words}, the school’s choice; the service’s default is ${defaultWords}.`,
    };
  });
}

function optionsText(ctx: SummaryContext): string {
  const { result } = ctx;
  if (result.show_both_options) {
    return (
      'The school disburses by one of two options: equal amounts in each term the student can be paid for, or ' +
      'amounts in proportion to each term’s credits (allowed because the student’s loans are reduced).'
    );
  }
  const why = ctx.prorated
    ? 'the final-period proration replaces the reduction, so the student is not subject to it'
    : result.reduced_annual_pct >= 100
      ? 'the student is not subject to the reduction'
      : 'fewer than two terms are at least half time, so both options would be the same';
  return `Equal amounts only: ${why}.`;
}

function scheduleOf(ctx: SummaryContext): SummaryTerm[] {
  const { result, terms } = ctx;
  const last = result.terms.length - 1;
  return result.terms.map((t, i) => {
    const facts = terms[i]!;
    const paid = stepOf(ctx, `term[${i}].closed`) !== undefined;
    const notes: string[] = [];
    if (paid) notes.push('Already paid: the amounts disbursed, kept under both options');
    else if (!facts.eligible) {
      notes.push(isPositive(facts.credits) ? 'Below half time: no disbursement' : 'Not enrolled: no disbursement');
    }
    if (i === last && t.final_term_overdisbursement) notes.push('Over-disbursed after the final disbursement');
    return {
      label: t.label,
      status: STATUS_WORDS[t.enrollment_status],
      intensity_pct: t.enrollment_intensity_pct,
      credits:
        `${credits(facts.credits)} of ${credits(facts.fullTime)} credits` +
        (facts.changed ? ` (final; enrolled ${credits(facts.enrolled)})` : ''),
      paid_before: paid,
      equal: { ...t.equal },
      proportional: t.proportional === null ? null : { ...t.proportional },
      note: notes.length === 0 ? '' : `${notes.join('. ')}.`,
    };
  });
}

/**
 * The summary of one calculation: `input` as parsed, `result` and `steps` as calculateWithTrace() returned them,
 * and the student the worksheet is for (never stored). Throws when its arithmetic does not reproduce the result
 * (a bug, never a wrong page).
 */
export function worksheetSummary(
  input: CalculationInput,
  result: CalculationResult,
  steps: readonly TraceStep[],
  student?: StudentIdentity,
): WorksheetSummary {
  const ctx = summaryContext(input, result, steps);
  const percentage = percentageSummary(ctx);
  const pct = ctx.prorated ? HUNDRED : new Dec(result.reduced_annual_pct);
  return {
    student: studentOf(student),
    award_year: input.award_year,
    rule_set: RULE_SET_ID,
    policy: policySummary(input.policy),
    percentage,
    annual: annualSummary(ctx, pct),
    options: optionsText(ctx),
    schedule: scheduleOf(ctx),
    totals: {
      equal: { ...result.total_equal },
      proportional: result.show_both_options ? { ...result.total_proportional } : null,
    },
    adjustments: result.terms
      .filter((t) => t.adjustment_explanation !== '')
      .map((t) => `${t.label}: ${officeWords(t.adjustment_explanation)}`),
    warnings: result.warnings.map(officeWords),
  };
}
