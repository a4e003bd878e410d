/**
 * fast-check generators of valid domain inputs (CalculationInput), shared by the property tests: 1–4 terms,
 * credits 0–30 with up to 2 decimals, full time 1–20 with up to 1 decimal, money 0–100,000 with cents, every
 * student kind, health professions programs and months, and random school policies (rules.md §10).
 */

import fc from 'fast-check';
import { HEALTH_PROFESSIONS_PROGRAMS } from '../../../src/domain/health-professions.ts';
import { DEFAULT_POLICY, POLICY_OPTIONS, type PolicyChoices, resolvePolicy } from '../../../src/domain/policy.ts';
import type { CalculationInput, TermInput } from '../../../src/domain/types.ts';

/** Canonical decimal string of `units / 10^places` (units ≥ 0), built without floating point. */
export function scaled(units: number, places: number): string {
  if (places === 0) return String(units);
  const text = String(units).padStart(places + 1, '0');
  const whole = text.slice(0, -places);
  const fraction = text.slice(-places).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

const credits = fc.integer({ min: 0, max: 3000 }).map((n) => scaled(n, 2)); // 0–30, 2 decimals
const fullTime = fc.integer({ min: 10, max: 200 }).map((n) => scaled(n, 1)); // 1–20, 1 decimal
const money = fc.integer({ min: 0, max: 10_000_000 }).map((n) => scaled(n, 2)); // $0–$100,000.00
const smallMoney = fc.integer({ min: 0, max: 400_000 }).map((n) => scaled(n, 2)); // $0–$4,000.00
const positiveMoney = fc.integer({ min: 1, max: 10_000_000 }).map((n) => scaled(n, 2));
const academicYearCredits = fc.integer({ min: 10, max: 800 }).map((n) => scaled(n, 1)); // 1–80, 1 decimal
const prior = fc.option(fc.oneof(fc.constant('0'), smallMoney, money), { nil: null, freq: 2 });

export const termArb: fc.Arbitrary<TermInput> = fc.record({
  label: fc.constantFrom('Fall', 'Winter', 'Spring', 'Summer', 'Term "x"'),
  full_time_credits: fullTime,
  credits_enrolled: credits,
  actual_final_credits: fc.option(credits, { nil: null, freq: 2 }),
  prior_disbursement_sub: prior,
  prior_disbursement_unsub: prior,
  prior_disbursement_grad_plus: prior,
});

/** Any subset of the school-policy options (rules.md §10), each at any of its values; often none. */
export const policyChoicesArb: fc.Arbitrary<PolicyChoices> = fc.record(
  Object.fromEntries(POLICY_OPTIONS.map((o) => [o.name, fc.constantFrom(...o.values)])) as {
    [K in keyof PolicyChoices]-?: fc.Arbitrary<NonNullable<PolicyChoices[K]>>;
  },
  { requiredKeys: [] },
);

export const inputArb: fc.Arbitrary<CalculationInput> = fc
  .record({
    dependency_status: fc.constantFrom('dependent' as const, 'independent' as const),
    degree_level: fc.constantFrom('undergraduate' as const, 'graduate' as const, 'professional' as const),
    grade: fc.constantFrom('first_year' as const, 'second_year' as const, 'third_year_and_beyond' as const),
    gradeForGraduate: fc.boolean(),
    academicYearExtra: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
    cost_of_attendance: fc.option(money, { nil: null }),
    is_legacy_borrower: fc.boolean(),
    plus_denied: fc.boolean(),
    subsidized_amount: fc.option(fc.oneof(money, smallMoney), { nil: null, freq: 4 }),
    total_limit: fc.option(positiveMoney, { nil: null }),
    final_period_of_program: fc.boolean(),
    academic_year_credits: fc.option(academicYearCredits, { nil: null, freq: 3 }),
    terms: fc.array(termArb, { minLength: 1, maxLength: 4 }),
    health_professions_program: fc.option(fc.constantFrom(...HEALTH_PROFESSIONS_PROGRAMS), { nil: null, freq: 3 }),
    academic_year_months: fc.option(fc.integer({ min: 9, max: 12 }), { nil: null, freq: 2 }),
    policy: fc.option(policyChoicesArb, { nil: undefined, freq: 2 }),
  })
  .map((r) => {
    const n = r.terms.length;
    const academicYearTerms = r.academicYearExtra === null ? null : Math.min(4, Math.max(2, n + r.academicYearExtra));
    return {
      dependency_status: r.dependency_status,
      degree_level: r.degree_level,
      grade_level: r.degree_level === 'undergraduate' || r.gradeForGraduate ? r.grade : null,
      academic_year_terms: academicYearTerms !== null && academicYearTerms >= n ? academicYearTerms : null,
      cost_of_attendance: r.cost_of_attendance,
      is_legacy_borrower: r.is_legacy_borrower,
      plus_denied: r.plus_denied,
      subsidized_amount: r.subsidized_amount,
      total_limit: r.total_limit,
      final_period_of_program: r.final_period_of_program,
      // Required (rules.md §8) for an undergraduate's final period: the schema would reject null there.
      academic_year_credits:
        r.academic_year_credits ?? (r.final_period_of_program && r.degree_level === 'undergraduate' ? '24' : null),
      health_professions_program: r.health_professions_program,
      academic_year_months: r.academic_year_months,
      policy: r.policy === undefined ? DEFAULT_POLICY : resolvePolicy(r.policy),
      award_year: '2026-27',
      terms: r.terms,
    };
  });
