/** The worksheet's `summary` as the page reads it (src/schema/worksheet-summary.ts is the schema; test/web/wire-types.test.ts holds the two together). */
import type { LoanAmounts } from './result-types.ts';

export interface WorksheetSummary {
  student: { name: string | null; id: string | null } | null;
  award_year: string;
  rule_set: string;
  policy: { option: string; label: string; value: string; value_label: string; is_default: boolean; text: string }[];
  percentage: {
    pct: number;
    kind: 'reduction' | 'full_time' | 'final_period';
    arithmetic: string;
    text: string;
    citation: string;
    limits: { limit: string; label: string; statutory: number; prorated: number; arithmetic: string }[];
  };
  annual: {
    loan: string;
    label: string;
    base: number;
    pct: number;
    amount: number;
    arithmetic: string;
    basis: string;
    citation: string;
  }[];
  /** Which disbursement options the school may use, and why. */
  options: string;
  schedule: {
    label: string;
    status: string;
    intensity_pct: number;
    credits: string;
    paid_before: boolean;
    equal: LoanAmounts;
    proportional: LoanAmounts | null;
    note: string;
  }[];
  totals: { equal: LoanAmounts; proportional: LoanAmounts | null };
  adjustments: string[];
  warnings: string[];
}
