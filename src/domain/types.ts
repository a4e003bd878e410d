/**
 * Plain data that crosses the domain boundary. The schema layer (src/schema) turns a wire request into a
 * `CalculationInput`; `calculate()` (src/domain/calculate.ts) turns that into a `CalculationResult`.
 *
 * Every decimal quantity in the input is a canonical decimal string (no exponent, no leading '+', as produced
 * by src/schema): the domain never sees a binary floating-point number. Outputs are JSON numbers: whole
 * dollars and percentages are integers; credit counts are exact decimals of at most 6 places.
 */

import type { HealthProfessionsProgram } from './health-professions-programs.ts';
import type { SchoolPolicy } from './policy.ts';

export type DecimalString = string;

export type DependencyStatus = 'dependent' | 'independent';
export type DegreeLevel = 'undergraduate' | 'graduate' | 'professional';
export type GradeLevel = 'first_year' | 'second_year' | 'third_year_and_beyond';
export type LoanType = 'sub' | 'unsub' | 'grad_plus';

export type EnrollmentStatus =
  'full_time' | 'three_quarter_time' | 'half_time' | 'less_than_half_time' | 'not_enrolled';

export interface TermInput {
  label: string;
  full_time_credits: DecimalString;
  credits_enrolled: DecimalString;
  actual_final_credits: DecimalString | null;
  prior_disbursement_sub: DecimalString | null;
  prior_disbursement_unsub: DecimalString | null;
  prior_disbursement_grad_plus: DecimalString | null;
}

export interface CalculationInput {
  dependency_status: DependencyStatus;
  degree_level: DegreeLevel;
  grade_level: GradeLevel | null;
  academic_year_terms: number | null;
  cost_of_attendance: DecimalString | null;
  is_legacy_borrower: boolean;
  plus_denied: boolean;
  /** Null when the request leaves it out: 0 (no subsidized eligibility), with a warning for undergraduates. */
  subsidized_amount: DecimalString | null;
  total_limit: DecimalString | null;
  /** rules.md §2.3: the loan period is the final period of an undergraduate program. */
  final_period_of_program: boolean;
  /** rules.md §2.3: credits in the school's academic year; required when final_period_of_program applies. */
  academic_year_credits: DecimalString | null;
  /** rules.md §2.1: the health professions program of a legacy graduate/professional student (null: none). */
  health_professions_program: HealthProfessionsProgram | null;
  /** rules.md §2.1: months the program's academic year covers, 9 to 12 (null: 9). */
  academic_year_months: number | null;
  /** rules.md §10: the school policy in force, every option resolved (src/domain/policy.ts). */
  policy: SchoolPolicy;
  /**
   * The award year the calculation is for ("2026-27"), one the limit table holds (src/domain/limits.ts). The
   * schema resolves a request without one to the award year in force on the day it is received.
   */
  award_year: string;
  terms: TermInput[];
}

export interface DisbursementOption {
  subsidized: number;
  unsubsidized: number;
  grad_plus: number;
}

export interface TermResult {
  label: string;
  enrollment_status: EnrollmentStatus;
  enrollment_intensity_pct: number;
  disbursement_pct: number;
  adjustment_sub: number;
  adjustment_unsub: number;
  adjustment_grad_plus: number;
  adjustment_explanation: string;
  adjustment_source_index: number | null;
  credits_enrolled: number;
  full_time_credits: number;
  equal: DisbursementOption;
  proportional: DisbursementOption | null;
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
  total_equal: DisbursementOption;
  total_proportional: DisbursementOption;
  warnings: string[];
}
