/**
 * The shape of the worksheet's summary (summary.ts): page 1 of every worksheet, the `summary` of the JSON
 * worksheet, and what the assistant's tools return. Plain data; every text in an aid office's words.
 */

import type { PolicyOptionName } from './policy.ts';
import type { SummaryLoan } from './summary-words.ts';
import type { DisbursementOption } from './types.ts';

export type { SummaryLoan } from './summary-words.ts';

/** Who the worksheet is for (the worksheet request's optional `student`); never stored or logged. */
export interface SummaryStudent {
  name: string | null;
  id: string | null;
}

export interface SummaryPolicyOption {
  option: PolicyOptionName;
  /** The option in words: "Final-period proration fraction". */
  label: string;
  /** The value in force, as the API spells it. */
  value: string;
  /** The value in force in words: "the exact fraction". */
  value_label: string;
  is_default: boolean;
  /** The service's default value in words. */
  default_label: string;
  /** One sentence: the value in force, and the default when the school chose another. */
  text: string;
}

/** A limit prorated for a final period shorter than an academic year. */
export interface SummaryProratedLimit {
  /** `subsidized`, or `combined` (subsidized and unsubsidized together). */
  limit: 'subsidized' | 'combined';
  label: string;
  statutory: number;
  prorated: number;
  /** The limit times the fraction: "$1,200 × 8 ÷ 24 = $400", or with a rounding "≈ $1,833.33 → $1,833". */
  arithmetic: string;
}

export interface SummaryPercentage {
  /** The academic-year percentage (100 when the final-period proration replaces the reduction). */
  pct: number;
  /** `reduction`: below 100%; `full_time`: 100%, no reduction; `final_period`: the limits are prorated instead. */
  kind: 'reduction' | 'full_time' | 'final_period';
  /** "(6 + 9) ÷ 24 = 62.5% → 63%", or for a final period the fraction: "8 ÷ 24 ≈ 0.3333 (the exact fraction)". */
  arithmetic: string;
  /** What the figure means for this student, in sentences. */
  text: string;
  /** The short legal citation. */
  citation: string;
  /** The prorated limits of a final period (empty otherwise). */
  limits: SummaryProratedLimit[];
}

export interface SummaryAnnual {
  loan: SummaryLoan;
  label: string;
  /** The starting amount the percentage applies to (after the limits and caps). */
  base: number;
  pct: number;
  amount: number;
  /** "$2,000 × 92% = $1,840" (FSA example 3). */
  arithmetic: string;
  /** Where the starting amount comes from: the eligibility, the limit, the caps that lowered it. */
  basis: string;
  citation: string;
}

export interface SummaryTerm {
  label: string;
  /** "Half time". */
  status: string;
  intensity_pct: number;
  /** "6 of 12 credits", "6 of 12 credits (final; enrolled 9)". */
  credits: string;
  /** True when money was paid for the term: its amounts are what was paid, kept in both options. */
  paid_before: boolean;
  equal: DisbursementOption;
  /** Null when the proportional option is not offered. */
  proportional: DisbursementOption | null;
  /** What else to know about the term ("" when nothing). */
  note: string;
}

export interface WorksheetSummary {
  /** Null when the request named no student. */
  student: SummaryStudent | null;
  award_year: string;
  rule_set: string;
  /** Every option of the school policy, in the policy table's order. */
  policy: SummaryPolicyOption[];
  percentage: SummaryPercentage;
  /** Subsidized and unsubsidized; Grad PLUS for graduate and professional students. */
  annual: SummaryAnnual[];
  /** Which disbursement options the school may use, and why. */
  options: string;
  schedule: SummaryTerm[];
  totals: { equal: DisbursementOption; proportional: DisbursementOption | null };
  /** "Spring: …", one per adjusted term. */
  adjustments: string[];
  warnings: string[];
}
