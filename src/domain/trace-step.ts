/**
 * One step of the worksheet (architecture.md, "The aid officer's page and the worksheet"): what was computed,
 * under which rule (rules.md section) and legal citation, the formula in words and figures, the named inputs and
 * the result fields it produces. `output` maps JSON paths of the CalculationResult (`terms[0].proportional.
 * subsidized`, `reduced_annual_pct`) to the values found there, with the same JSON types; every value of a result
 * is the output of exactly one step.
 */

import { type Dec } from './decimal.ts';
import { dec } from './decimal-read.ts';
import { toJsonNumber } from './output.ts';
import type { LoanType } from './types.ts';

export type StepScalar = number | string | boolean | null;
export type StepInput = StepScalar | StepScalar[];

export interface TraceStep {
  /** Stable id: "base.sub", "percentage", "annual.sub", "term[0].eligibility", "term[0].proportional.sub". */
  id: string;
  /** The rules.md section: "§3", "§2.2". */
  section: string;
  title: string;
  /** The legal citation, from the limit table or the citation data (src/domain/citations.ts). */
  citation: string;
  /** The formula in words, then in figures: "… = 2205 × 6 ÷ 15 = 882". */
  formula: string;
  inputs: Record<string, StepInput>;
  /** JSON path in the CalculationResult → the value there. Empty for intermediate steps. */
  output: Record<string, StepScalar>;
}

/** The result's names of a loan type: in an option, the annual amount, the adjustment. */
export const LOAN_FIELDS: Readonly<Record<LoanType, { option: string; annual: string; adjustment: string }>> = {
  sub: { option: 'subsidized', annual: 'annual_basic_eligibility_sub', adjustment: 'adjustment_sub' },
  unsub: { option: 'unsubsidized', annual: 'annual_basic_eligibility_unsub', adjustment: 'adjustment_unsub' },
  grad_plus: { option: 'grad_plus', annual: 'annual_basic_eligibility_grad_plus', adjustment: 'adjustment_grad_plus' },
};

/** A decimal as a JSON number of a step (exact, as the result's numbers). */
export function num(x: Dec): number {
  return toJsonNumber(x);
}

/** A decimal as written in a formula: plain notation, exact (2205, 10.5, 2000.25). */
export function figure(x: Dec): string {
  return x.toFixed();
}

/** A request decimal string (canonical) as a JSON number, or null. */
export function numOrNull(value: string | null): number | null {
  return value === null ? null : toJsonNumber(dec(value));
}

const EXACT_PLACES = 6;

/** a ÷ b written out: exact when it terminates within 6 places ("62.5"), else "≈ 83.3333". */
export function quotient(a: Dec, b: Dec): string {
  const q = a.dividedBy(b);
  const short = q.toDecimalPlaces(EXACT_PLACES);
  return short.eq(q) ? short.toFixed() : `≈ ${q.toDecimalPlaces(4).toFixed()}`;
}

/** "6 + 9" (or the single value). */
export function sumText(values: readonly Dec[]): string {
  return values.map(figure).join(' + ');
}
