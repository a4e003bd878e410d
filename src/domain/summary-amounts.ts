/**
 * The figures of the worksheet's summary (summary.ts): the academic-year percentage with its arithmetic, or the
 * final-period proration that replaces it (rules.md §2.3, §3), and each annual amount as starting amount ×
 * percentage = amount with where the starting amount came from (§2.2). The arithmetic is written from the request
 * and the trace's recorded figures and checked against the result: a summary that disagreed with the result would
 * be a bug, so it throws instead of printing it.
 */

import { CITATIONS } from './citations.ts';
import { Dec, HUNDRED, ONE, TWO, ZERO, isPositive, maxDec, minDec, sumDec } from './decimal.ts';
import { dec } from './decimal-read.ts';
import { finalPeriodCase } from './final-period.ts';
import { toJsonNumber } from './output.ts';
import { percentHalfUp, roundHalfUp } from './rounding.ts';
import type { SummaryAnnual, SummaryPercentage, SummaryProratedLimit } from './summary-types.ts';
import { LOAN_LABELS, credits as creditText, dollars, listWords } from './summary-words.ts';
import type { TraceStep } from './trace-step.ts';
import type { CalculationInput, CalculationResult } from './types.ts';

/** One term as the summary reads it. */
export interface SummaryTermFacts {
  label: string;
  fullTime: Dec;
  enrolled: Dec;
  /** credits(t): the final credits when given, else the enrolled ones. */
  credits: Dec;
  /** Final credits given and different from the enrolled ones. */
  changed: boolean;
  /** At least half time on credits(t): the term can be paid. */
  eligible: boolean;
}

export interface SummaryContext {
  input: CalculationInput;
  result: CalculationResult;
  steps: readonly TraceStep[];
  terms: readonly SummaryTermFacts[];
  /** The final-period proration of §2.3 applies. */
  prorated: boolean;
}

export function summaryContext(
  input: CalculationInput,
  result: CalculationResult,
  steps: readonly TraceStep[],
): SummaryContext {
  const terms = input.terms.map((t): SummaryTermFacts => {
    const enrolled = dec(t.credits_enrolled);
    const actual = t.actual_final_credits === null ? null : dec(t.actual_final_credits);
    const fullTime = dec(t.full_time_credits);
    const credits = actual ?? enrolled;
    return {
      label: t.label,
      fullTime,
      enrolled,
      credits,
      changed: actual !== null && !actual.eq(enrolled),
      eligible: credits.times(TWO).gte(fullTime),
    };
  });
  const prorated = finalPeriodCase(input, terms).kind === 'prorate';
  return { input, result, steps, terms, prorated };
}

/** The step of `id`; the summary only reads steps every calculation of its kind has. */
export function stepOf(ctx: SummaryContext, id: string): TraceStep | undefined {
  return ctx.steps.find((s) => s.id === id);
}

/** A number the trace recorded as a step input (null when the step or the value is absent or null). */
export function figureOf(step: TraceStep | undefined, name: string): Dec | null {
  const value = step?.inputs[name];
  return typeof value === 'number' ? new Dec(value) : null;
}

function required(step: TraceStep | undefined, name: string): Dec {
  const value = figureOf(step, name);
  if (value === null) throw new Error(`worksheet summary: the trace has no ${name} for ${step?.id ?? 'a step'}`);
  return value;
}

/** `= 62.5` when the value has at most 4 decimals, else `≈ 83.33` (`shown` places). */
function quotientText(value: Dec, shown = 2): string {
  const exact = value.toDecimalPlaces(4);
  return exact.eq(value) ? `= ${exact.toFixed()}` : `≈ ${value.toDecimalPlaces(shown).toFixed()}`;
}

/** `= $1,260` or `= $1,260.315 → $1,260`: an exact product in dollars, then its rounding when it has cents. */
function roundedDollars(exact: Dec, amount: Dec): string {
  const shown = exact.toDecimalPlaces(4);
  const sign = shown.eq(exact) ? '=' : '≈';
  const figure = shown.eq(exact) ? dollars(exact) : dollars(exact.toDecimalPlaces(2));
  return exact.eq(amount) ? `= ${dollars(amount)}` : `${sign} ${figure} → ${dollars(amount)}`;
}

const check = (what: string, computed: Dec, reported: number) => {
  if (!computed.eq(new Dec(reported))) {
    throw new Error(`worksheet summary: ${what} computed as ${computed.toFixed()}, the result says ${reported}`);
  }
};

// ----------------------------------------------------------------------------------------------- percentage

function finalPeriodPercentage(ctx: SummaryContext): SummaryPercentage {
  const step = stepOf(ctx, 'final_period');
  const p = required(step, 'credits');
  const year = required(step, 'academic_year_credits');
  const fraction = figureOf(step, 'fraction');
  const method = step?.inputs.proration_fraction;
  const period = ctx.terms.filter((t) => isPositive(t.enrolled));
  const counted = period.filter((t) => t.enrolled.times(TWO).gte(t.fullTime));
  const leftOut = period.filter((t) => !t.enrolled.times(TWO).gte(t.fullTime));
  const q = p.dividedBy(year);
  let arithmetic: string;
  let times: (amount: Dec) => { text: string; exact: Dec };
  if (fraction !== null && fraction.eq(ONE) && !q.lt(ONE)) {
    arithmetic = `${creditText(p)} ÷ ${creditText(year)} ${quotientText(q, 4)}, never above 1 → 1`;
    times = (amount) => ({ text: `${dollars(amount)} × 1`, exact: amount });
  } else if (fraction === null) {
    arithmetic =
      `${creditText(p)} ÷ ${creditText(year)} ${quotientText(q, 4)}` +
      (q.toDecimalPlaces(4).eq(q) ? '' : ' (used as the exact fraction)');
    times = (amount) => ({
      text: `${dollars(amount)} × ${creditText(p)} ÷ ${creditText(year)}`,
      exact: amount.times(p).dividedBy(year),
    });
  } else {
    const how = method === 'decimal_truncated' ? 'truncated' : 'rounded';
    arithmetic = `${creditText(p)} ÷ ${creditText(year)} ${quotientText(q, 4)} → ${fraction.toFixed(2)} (${how} to 2 places)`;
    times = (amount) => ({ text: `${dollars(amount)} × ${fraction.toFixed(2)}`, exact: amount.times(fraction) });
  }
  const limits: SummaryProratedLimit[] = (
    [
      ['subsidized', 'Subsidized limit', 'subsidized_max', 'prorated_subsidized_max'],
      ['combined', 'Combined subsidized and unsubsidized limit', 'combined_max', 'prorated_combined_max'],
    ] as const
  ).map(([limit, label, statutoryName, proratedName]) => {
    const statutory = required(step, statutoryName);
    const prorated = required(step, proratedName);
    const product = times(statutory);
    if (!roundHalfUp(product.exact).eq(prorated)) {
      throw new Error(`worksheet summary: the prorated ${limit} limit does not follow from the fraction`);
    }
    return {
      limit,
      label,
      statutory: toJsonNumber(statutory),
      prorated: toJsonNumber(prorated),
      arithmetic: `${product.text} ${roundedDollars(product.exact, prorated)}`,
    };
  });
  const periodFullTime = sumDec(period.map((t) => t.fullTime));
  const sentences = [
    `Final period of the program, shorter than an academic year: ${creditText(periodFullTime)} full-time credits in ` +
      `${listWords(period.map((t) => t.label))}, ${creditText(year)} in the school’s academic year. The annual loan ` +
      `limits are prorated by the credits of the terms at least half time (${
        counted.length === 0 ? 'none' : listWords(counted.map((t) => `${t.label} ${creditText(t.enrolled)}`))
      }) divided by ${creditText(year)}.`,
  ];
  if (leftOut.length > 0) {
    sentences.push(
      `${listWords(leftOut.map((t) => t.label))}, below half time, ${leftOut.length === 1 ? 'receives' : 'receive'} ` +
        `no loan and ${leftOut.length === 1 ? 'its' : 'their'} credits are not counted.`,
    );
  }
  if (ctx.terms.some((t) => t.changed)) {
    sentences.push('The proration is fixed when the loan is originated: final credits do not change it.');
  }
  sentences.push('No less-than-full-time reduction on top: 100%.');
  return {
    pct: 100,
    kind: 'final_period',
    arithmetic,
    text: sentences.join(' '),
    citation: CITATIONS.finalPeriod.short,
    limits,
  };
}

/** The academic-year percentage (§3) with its arithmetic, or the final-period proration that replaces it (§2.3). */
export function percentageSummary(ctx: SummaryContext): SummaryPercentage {
  if (ctx.prorated) return finalPeriodPercentage(ctx);
  const { input, result, terms } = ctx;
  const excluded =
    input.policy.below_half_time_credits === 'excluded' && terms.some((t) => !t.eligible && isPositive(t.credits));
  const counted = excluded ? terms.filter((t) => t.eligible) : terms;
  const sum = sumDec(counted.map((t) => t.credits));
  const fullTime = sumDec(terms.map((t) => t.fullTime));
  const exact = sum.times(HUNDRED).dividedBy(fullTime);
  const pct = minDec(HUNDRED, percentHalfUp(sum, fullTime));
  check('the academic-year percentage', pct, result.reduced_annual_pct);
  const sumPart =
    counted.length === 0
      ? '0'
      : counted.length === 1
        ? creditText(sum)
        : `(${counted.map((t) => creditText(t.credits)).join(' + ')})`;
  const shown = quotientText(exact);
  const rounded = exact.eq(pct) ? '' : exact.gt(HUNDRED) ? ' → 100% (never above 100%)' : ` → ${pct.toFixed()}%`;
  const arithmetic = `${sumPart} ÷ ${creditText(fullTime)} ${shown}%${rounded}`;

  const sentences: string[] = [];
  const full = pct.eq(HUNDRED);
  sentences.push(
    full
      ? `The student’s credits (${creditText(sum)}) reach the ${creditText(fullTime)} full-time credits of the year: no reduction, every annual amount is 100% of its starting amount.`
      : `The student’s credits for the year (${creditText(sum)}) divided by the full-time credits of the year (${creditText(fullTime)}), ` +
          `rounded half up to a whole percent: each annual amount is reduced to ${pct.toFixed()}% of its starting amount.`,
  );
  const changed = terms.filter((t) => t.changed);
  if (changed.length > 0) {
    sentences.push(
      `Final credits are used where known: ${listWords(changed.map((t) => `${t.label} ${creditText(t.credits)} (enrolled ${creditText(t.enrolled)})`))}.`,
    );
  }
  if (excluded) {
    const left = terms.filter((t) => !t.eligible && isPositive(t.credits));
    sentences.push(
      `By the school’s policy the credits of ${listWords(left.map((t) => t.label))}, below half time, are left out of the year’s credits.`,
    );
  }
  if (input.academic_year_terms !== null && input.academic_year_terms > terms.length) {
    sentences.push(
      `The loan period has ${terms.length} of the academic year’s ${input.academic_year_terms} terms: the percentage is taken over the terms of the loan period.`,
    );
  }
  return {
    pct: toJsonNumber(pct),
    kind: full ? 'full_time' : 'reduction',
    arithmetic,
    text: sentences.join(' '),
    citation: CITATIONS.reduction.short,
    limits: [],
  };
}

// ----------------------------------------------------------------------------------------------- annual amounts

const CAP_WORDS: Readonly<Record<string, string>> = {
  total_limit: 'the institutional program limit',
  cost_of_attendance: 'the cost of attendance minus other aid',
};

/** The caps that lowered a starting amount: "lowered to $0 by the institutional program limit of $2,000". */
function capsOn(ctx: SummaryContext, which: 'sub_base' | 'unsub_base', finalBase: Dec): string[] {
  const caps = ctx.steps.filter((s) => s.id.startsWith('cap.'));
  const notes: string[] = [];
  caps.forEach((step, k) => {
    const name = step.id.slice('cap.'.length);
    const before = required(step, which);
    const after = k + 1 < caps.length ? required(caps[k + 1], which) : finalBase;
    if (!after.eq(before)) {
      notes.push(`lowered to ${dollars(after)} by ${CAP_WORDS[name] ?? name} of ${dollars(required(step, name))}`);
    }
  });
  return notes;
}

function withCaps(start: string, caps: readonly string[]): string {
  return caps.length === 0 ? `${start}.` : `${start}, ${listWords(caps)}.`;
}

function subBasis(ctx: SummaryContext, base: Dec): string {
  const { input } = ctx;
  if (input.degree_level !== 'undergraduate') {
    return `${input.degree_level === 'graduate' ? 'Graduate' : 'Professional'} students are not eligible for Direct Subsidized Loans.`;
  }
  const step = stepOf(ctx, 'base.sub');
  const limit = required(step, 'subsidized_max');
  const requested = figureOf(step, 'subsidized_amount');
  const kind = ctx.prorated ? 'prorated subsidized limit' : 'annual subsidized limit';
  const start =
    requested === null
      ? 'No subsidized eligibility was given, so none is assumed'
      : requested.gt(limit)
        ? `The ${kind}, ${dollars(limit)} (the student’s subsidized eligibility of ${dollars(requested)} is higher)`
        : `The student’s subsidized eligibility, ${dollars(requested)} (${kind} ${dollars(limit)})`;
  return withCaps(start, capsOn(ctx, 'sub_base', base));
}

function unsubBasis(ctx: SummaryContext, base: Dec): string {
  const step = stepOf(ctx, 'base.unsub');
  const combined = required(step, 'combined_max');
  const sub = required(step, 'sub_base');
  const which = ctx.prorated ? 'prorated combined limit' : 'combined limit';
  const health = stepOf(ctx, 'base.health_professions') === undefined ? '' : ' (with the health professions increase)';
  const start = sub.isZero()
    ? `The ${which}, ${dollars(combined)}${health}`
    : `The ${which}${health}, ${dollars(combined)}, minus the subsidized starting amount, ${dollars(sub)}: ${dollars(combined.minus(sub))}`;
  return withCaps(start, capsOn(ctx, 'unsub_base', base));
}

function reducedLine(
  ctx: SummaryContext,
  loan: 'subsidized' | 'unsubsidized',
  base: Dec,
  pct: Dec,
  amount: number,
): Pick<SummaryAnnual, 'arithmetic' | 'citation'> {
  const { input } = ctx;
  const halved =
    input.policy.single_term_basis === 'half_annual' && input.terms.length === 1 && !ctx.prorated && !base.isZero();
  const exact = base.times(pct).dividedBy(halved ? HUNDRED.times(TWO) : HUNDRED);
  const rounded = roundHalfUp(exact);
  check(`the annual ${loan} amount`, rounded, amount);
  const times = `${dollars(base)} × ${pct.toFixed()}%${halved ? ' ÷ 2' : ''}`;
  const note = halved ? ' (one-term loan period on half the annual amount, by the school’s policy)' : '';
  return {
    arithmetic: `${times} ${roundedDollars(exact, rounded)}${note}`,
    citation: ctx.prorated ? CITATIONS.finalPeriod.short : CITATIONS.reduction.short,
  };
}

function noGradPlusReason(input: CalculationInput): string {
  if (input.plus_denied) return 'The student’s own Grad PLUS application was denied.';
  if (!input.is_legacy_borrower)
    return 'Grad PLUS is closed to graduate and professional borrowers without the interim (legacy) exception.';
  return 'Grad PLUS is sized from the cost of attendance, which was not given.';
}

function gradPlusLine(ctx: SummaryContext, pct: Dec): SummaryAnnual {
  const { input, result } = ctx;
  const amount = result.annual_basic_eligibility_grad_plus;
  const label = LOAN_LABELS.grad_plus;
  const sizing = stepOf(ctx, 'grad_plus.base');
  if (sizing === undefined) {
    check('the annual Grad PLUS amount', ZERO, amount);
    return {
      loan: 'grad_plus',
      label,
      base: 0,
      pct: toJsonNumber(pct),
      amount: 0,
      arithmetic: '$0',
      basis: noGradPlusReason(input),
      citation: CITATIONS.gradPlus.short,
    };
  }
  const base = required(stepOf(ctx, 'annual.grad_plus'), 'grad_plus_base');
  const coa = required(sizing, 'cost_of_attendance');
  const before = input.policy.grad_plus_gap === 'before_reduction';
  const subBase = required(stepOf(ctx, 'annual.sub'), 'sub_base');
  const unsubBase = required(stepOf(ctx, 'annual.unsub'), 'unsub_base');
  const [sub, unsub] = before
    ? [subBase, unsubBase]
    : [new Dec(result.annual_basic_eligibility_sub), new Dec(result.annual_basic_eligibility_unsub)];
  const gap = maxDec(ZERO, coa.minus(sub).minus(unsub));
  const which = before
    ? 'subsidized and unsubsidized starting amounts before the reduction (the school’s policy)'
    : 'reduced subsidized and unsubsidized amounts';
  const parts = [
    `Cost of attendance, ${dollars(coa)}, minus the ${which} (${dollars(sub)} + ${dollars(unsub)}): ${dollars(gap)}`,
  ];
  const totalLimit = figureOf(sizing, 'total_limit');
  if (!base.eq(gap) && totalLimit !== null) {
    parts.push(`limited to ${dollars(base)} by the institutional program limit of ${dollars(totalLimit)}`);
  }
  const exact = base.times(pct).dividedBy(HUNDRED);
  const rounded = minDec(roundHalfUp(exact), base.floor());
  check('the annual Grad PLUS amount', rounded, amount);
  const floorNote = rounded.lt(roundHalfUp(exact)) ? ' (never above the whole dollars of its base)' : '';
  return {
    loan: 'grad_plus',
    label,
    base: toJsonNumber(base),
    pct: toJsonNumber(pct),
    amount,
    arithmetic: `${dollars(base)} × ${pct.toFixed()}% ${roundedDollars(exact, rounded)}${floorNote}`,
    basis: `${parts.join(', ')}.`,
    citation: CITATIONS.reduction.short,
  };
}

/** Each annual amount: subsidized and unsubsidized, and Grad PLUS for graduate and professional students. */
export function annualSummary(ctx: SummaryContext, pct: Dec): SummaryAnnual[] {
  const { result, input } = ctx;
  const lines: SummaryAnnual[] = [];
  for (const [loan, id, baseName, amount, basis] of [
    ['subsidized', 'annual.sub', 'sub_base', result.annual_basic_eligibility_sub, subBasis],
    ['unsubsidized', 'annual.unsub', 'unsub_base', result.annual_basic_eligibility_unsub, unsubBasis],
  ] as const) {
    const base = required(stepOf(ctx, id), baseName);
    lines.push({
      loan,
      label: LOAN_LABELS[loan],
      base: toJsonNumber(base),
      pct: toJsonNumber(pct),
      amount,
      ...reducedLine(ctx, loan, base, pct, amount),
      basis: basis(ctx, base),
    });
  }
  if (input.degree_level !== 'undergraduate') lines.push(gradPlusLine(ctx, pct));
  return lines;
}
