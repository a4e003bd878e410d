/**
 * Test helper: turns a wire-style request (numbers or decimal strings, optional fields missing) into the
 * domain's CalculationInput the way the schema layer does (defaults applied, decimals as canonical strings).
 * Deliberately tiny and independent of src/schema: it only has to handle the valid requests tests write.
 */

import type { CalculationInput, TermInput } from '../../../src/domain/types.ts';
import type { HealthProfessionsProgram } from '../../../src/domain/health-professions.ts';
import { DEFAULT_POLICY, type PolicyChoices, resolvePolicy } from '../../../src/domain/policy.ts';

type Num = number | string;

export interface WireTerm {
  label: string;
  full_time_credits: Num;
  credits_enrolled: Num;
  actual_final_credits?: Num | null;
  prior_disbursement_sub?: Num | null;
  prior_disbursement_unsub?: Num | null;
  prior_disbursement_grad_plus?: Num | null;
}

export interface WireRequest {
  dependency_status: 'dependent' | 'independent';
  terms: WireTerm[];
  degree_level?: 'undergraduate' | 'graduate' | 'professional';
  grade_level?: 'first_year' | 'second_year' | 'third_year_and_beyond' | null;
  academic_year_terms?: number | null;
  cost_of_attendance?: Num | null;
  is_legacy_borrower?: boolean;
  plus_denied?: boolean;
  subsidized_amount?: Num;
  total_limit?: Num | null;
  final_period_of_program?: boolean;
  academic_year_credits?: Num | null;
  health_professions_program?: HealthProfessionsProgram | null;
  academic_year_months?: number | null;
  policy?: PolicyChoices;
  award_year?: string;
}

/** Canonical decimal string: no exponent, no '+', no leading zeros, no trailing fractional zeros. */
export function canonical(value: Num): string {
  let text = typeof value === 'number' ? numberToPlain(value) : value;
  let sign = '';
  if (text.startsWith('+') || text.startsWith('-')) {
    sign = text[0] === '-' ? '-' : '';
    text = text.slice(1);
  }
  let [whole = '', fraction = ''] = text.split('.');
  whole = whole.replace(/^0+(?=\d)/, '') || '0';
  fraction = fraction.replace(/0+$/, '');
  const body = fraction === '' ? whole : `${whole}.${fraction}`;
  return body === '0' ? '0' : sign + body;
}

function numberToPlain(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`not finite: ${n}`);
  const text = String(n);
  if (!/e/i.test(text)) return text;
  // Small exponents only (tests never need more): expand through toFixed with enough places.
  return n.toFixed(20);
}

function optional(value: Num | null | undefined): string | null {
  return value === undefined || value === null ? null : canonical(value);
}

export function toInput(request: WireRequest): CalculationInput {
  return {
    dependency_status: request.dependency_status,
    degree_level: request.degree_level ?? 'undergraduate',
    grade_level: request.grade_level ?? null,
    academic_year_terms: request.academic_year_terms ?? null,
    cost_of_attendance: optional(request.cost_of_attendance),
    is_legacy_borrower: request.is_legacy_borrower ?? false,
    plus_denied: request.plus_denied ?? false,
    // Left out stays null (not "0"): the domain warns an undergraduate that no subsidized eligibility was assumed.
    subsidized_amount: request.subsidized_amount === undefined ? null : canonical(request.subsidized_amount),
    total_limit: optional(request.total_limit),
    final_period_of_program: request.final_period_of_program ?? false,
    academic_year_credits: optional(request.academic_year_credits),
    health_professions_program: request.health_professions_program ?? null,
    academic_year_months: request.academic_year_months ?? null,
    policy: resolvePolicy(request.policy, DEFAULT_POLICY),
    // The figures of rules.md §2.1 are the 2026-27 limits; tests name another award year explicitly.
    award_year: request.award_year ?? '2026-27',
    terms: request.terms.map((t): TermInput => ({
      label: t.label,
      full_time_credits: canonical(t.full_time_credits),
      credits_enrolled: canonical(t.credits_enrolled),
      actual_final_credits: optional(t.actual_final_credits),
      prior_disbursement_sub: optional(t.prior_disbursement_sub),
      prior_disbursement_unsub: optional(t.prior_disbursement_unsub),
      prior_disbursement_grad_plus: optional(t.prior_disbursement_grad_plus),
    })),
  };
}

/** A term for hand-written cases: `term('Fall', 12, 9, { actual_final_credits: 6 })`. */
export function term(label: string, fullTime: Num, enrolled: Num, extra: Partial<WireTerm> = {}): WireTerm {
  return { label, full_time_credits: fullTime, credits_enrolled: enrolled, ...extra };
}

/**
 * A dependent first-year undergraduate with the given terms; `overrides` changes any student-level field.
 * subsidized_amount defaults to 3500 (full need) here, unlike the wire default of 0, because most cases start
 * from a need-eligible student.
 */
export function student(terms: WireTerm[], overrides: Partial<WireRequest> = {}): WireRequest {
  return {
    dependency_status: 'dependent',
    degree_level: 'undergraduate',
    grade_level: 'first_year',
    subsidized_amount: 3500,
    ...overrides,
    terms,
  };
}
