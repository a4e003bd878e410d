/** The CalculationResult as the page reads it (the interface's response; src/schema/response.ts is the schema). */

export interface LoanAmounts {
  subsidized: number;
  unsubsidized: number;
  grad_plus: number;
}

export interface TermResult {
  label: string;
  enrollment_status: string;
  enrollment_intensity_pct: number;
  disbursement_pct: number;
  equal: LoanAmounts;
  proportional: LoanAmounts | null;
  adjustment_sub: number;
  adjustment_unsub: number;
  adjustment_grad_plus: number;
  adjustment_explanation: string;
  final_term_overdisbursement: boolean;
  warning: string;
}

export interface CalculationResult {
  annual_ft_credits: number;
  reduced_annual_pct: number;
  annual_basic_eligibility_sub: number;
  annual_basic_eligibility_unsub: number;
  annual_basic_eligibility_grad_plus: number;
  show_both_options: boolean;
  terms: TermResult[];
  total_equal: LoanAmounts;
  total_proportional: LoanAmounts | null;
  warnings: string[];
}

export type Loan = keyof LoanAmounts;

/** The loan types in the order every table shows them, with their names. */
export const LOANS: readonly (readonly [Loan, string])[] = [
  ['subsidized', 'Subsidized'],
  ['unsubsidized', 'Unsubsidized'],
  ['grad_plus', 'Grad PLUS'],
];

/** The result's annual amount and adjustment fields per loan type. */
export const ANNUAL_FIELD: Readonly<Record<Loan, keyof CalculationResult>> = {
  subsidized: 'annual_basic_eligibility_sub',
  unsubsidized: 'annual_basic_eligibility_unsub',
  grad_plus: 'annual_basic_eligibility_grad_plus',
};
export const ADJUSTMENT_FIELD: Readonly<Record<Loan, keyof TermResult>> = {
  subsidized: 'adjustment_sub',
  unsubsidized: 'adjustment_unsub',
  grad_plus: 'adjustment_grad_plus',
};

/** True when the result has Grad PLUS dollars anywhere (else its columns are left out: all zero). */
export function hasGradPlus(r: CalculationResult): boolean {
  return (
    r.annual_basic_eligibility_grad_plus !== 0 ||
    r.total_equal.grad_plus !== 0 ||
    (r.total_proportional?.grad_plus ?? 0) !== 0 ||
    r.terms.some((t) => t.adjustment_grad_plus !== 0)
  );
}

/** True when some term has a change from its final credits (else the change columns are left out). */
export function hasAdjustments(r: CalculationResult): boolean {
  return r.terms.some((t) => t.adjustment_sub !== 0 || t.adjustment_unsub !== 0 || t.adjustment_grad_plus !== 0);
}
