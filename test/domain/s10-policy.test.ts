/**
 * rules.md §10 (school policy, revision 2026-27.3) in the engine, and the §7 rule that every $0 Grad PLUS of a legacy
 * graduate/professional student with a cost of attendance is explained. Expected dollars are worked out by hand from
 * rules.md (the arithmetic is in each comment); the random requests come from test/domain/support/arbitraries.ts.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculate } from '../../src/domain/calculate.ts';
import { DEFAULT_POLICY, POLICY_OPTIONS, type SchoolPolicy, resolvePolicy } from '../../src/domain/policy.ts';
import { calculateWithTrace } from '../../src/domain/trace.ts';
import type { CalculationInput } from '../../src/domain/types.ts';
import { inputArb } from './support/arbitraries.ts';
import { type WireRequest, student, term, toInput } from './support/input.ts';

const run = (request: WireRequest) => calculate(toInput(request));
const equalSubs = (r: ReturnType<typeof calculate>) => r.terms.map((t) => t.equal.subsidized);

const ALL_DEFAULTS = Object.fromEntries(POLICY_OPTIONS.map((o) => [o.name, o.values[0]])) as SchoolPolicy;

describe('§10 a policy with every option at its default is no policy', () => {
  it('resolvePolicy of every default is DEFAULT_POLICY', () => {
    expect(resolvePolicy(ALL_DEFAULTS)).toBe(DEFAULT_POLICY);
    expect(resolvePolicy({})).toBe(DEFAULT_POLICY);
    expect(resolvePolicy(undefined)).toBe(DEFAULT_POLICY);
  });

  it('random requests: no policy, every default resolved, and a distinct all-default object give identical answers', () => {
    const distinct = Object.freeze({ ...ALL_DEFAULTS }) as SchoolPolicy;
    fc.assert(
      fc.property(inputArb, (generated) => {
        const plain: CalculationInput = { ...generated, policy: DEFAULT_POLICY };
        const expected = calculate(plain);
        expect(calculate({ ...plain, policy: resolvePolicy(ALL_DEFAULTS) })).toEqual(expected);
        expect(calculate({ ...plain, policy: distinct })).toEqual(expected);
        expect(calculateWithTrace({ ...plain, policy: distinct })).toEqual(calculateWithTrace(plain));
        expect(expected.warnings.some((w) => w.startsWith('School policy in force'))).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('§10 the warning that names the options in force', () => {
  it('one sentence, exactly, first; several options comma-separated in the table’s order', () => {
    const reduced = [term('Fall', 12, 6), term('Spring', 12, 9)];
    const one = run(student(reduced, { policy: { proration_fraction: 'decimal_rounded' } }));
    expect(one.warnings[0]).toBe('School policy in force: proration_fraction=decimal_rounded.');
    expect(one.warnings.filter((w) => w.startsWith('School policy')).length).toBe(1);
    const two = run(
      student(reduced, { policy: { grad_plus_gap: 'before_reduction', remainder_placement: 'last_term' } }),
    );
    expect(two.warnings[0]).toBe(
      'School policy in force: remainder_placement=last_term, grad_plus_gap=before_reduction.',
    );
  });
});

describe('§10 each option in the engine', () => {
  it('single_term_basis half_annual: spring only 9 of 12, Sub 3,500 → round(3,500 × 75 ÷ 200) = 1,313', () => {
    // project-sor V56/V57. Unsub base 5,500 − 3,500 = 2,000 → round(2,000 × 75 ÷ 200) = 750.
    const one = [term('Spring', 12, 9)];
    const half = run(student(one, { policy: { single_term_basis: 'half_annual' } }));
    expect([half.reduced_annual_pct, half.annual_basic_eligibility_sub, half.annual_basic_eligibility_unsub]).toEqual([
      75, 1313, 750,
    ]);
    expect(half.total_equal).toEqual({ subsidized: 1313, unsubsidized: 750, grad_plus: 0 });
    // full_annual (FSA example 2): 2,625 / 1,500.
    const full = run(student(one));
    expect([full.annual_basic_eligibility_sub, full.annual_basic_eligibility_unsub]).toEqual([2625, 1500]);
    // Two terms: the option does not apply (6 + 9 of 24 → 63%: 2,205).
    const two = run(
      student([term('Fall', 12, 6), term('Spring', 12, 9)], { policy: { single_term_basis: 'half_annual' } }),
    );
    expect(two.annual_basic_eligibility_sub).toBe(2205);
  });

  it('single_term_basis half_annual does not halve Grad PLUS, and does not apply under the §2.3 proration', () => {
    // Legacy graduate, one term 6 of 12 → 50%. Unsub round(20,500 × 50 ÷ 200) = 5,125; Grad PLUS base
    // 30,000 − 5,125 = 24,875 → round(24,875 × 50 ÷ 100) = 12,437.5 → 12,438 (not halved).
    const grad = run(
      student([term('Fall', 12, 6)], {
        degree_level: 'graduate',
        grade_level: null,
        subsidized_amount: 0,
        is_legacy_borrower: true,
        cost_of_attendance: 30000,
        policy: { single_term_basis: 'half_annual' },
      }),
    );
    expect([grad.annual_basic_eligibility_unsub, grad.annual_basic_eligibility_grad_plus]).toEqual([5125, 12438]);
    // Metro State (one term, final period): 1,833 / 2,334 either way.
    const metro = run(
      student([term('Fall', 12, 8)], {
        dependency_status: 'independent',
        grade_level: 'third_year_and_beyond',
        subsidized_amount: 5500,
        final_period_of_program: true,
        academic_year_credits: 24,
        policy: { single_term_basis: 'half_annual' },
      }),
    );
    expect([metro.annual_basic_eligibility_sub, metro.annual_basic_eligibility_unsub]).toEqual([1833, 2334]);
  });

  it('remainder_placement last_term: FSA-1 2,205 → 1,102 + 1,103; in the revision and the baseline', () => {
    const fsa1 = run(
      student([term('Fall', 12, 6), term('Spring', 12, 9)], {
        total_limit: 5500,
        policy: { remainder_placement: 'last_term' },
      }),
    );
    expect(equalSubs(fsa1)).toEqual([1102, 1103]);
    // proportional 2,205 × 6/15 = 882, × 9/15 = 1,323: exact, unchanged.
    expect(fsa1.terms.map((t) => t.proportional!.subsidized)).toEqual([882, 1323]);
    // FSA-4 with need 2,001: revision 30/36 → 83% → 2,001 × 0.83 = 1,660.83 → 1,661; 1,661 − 502 = 1,159 →
    // floors 579, 579, the dollar on Summer: 579 + 580. Baseline 92% → 1,840.92 → 1,841; − 502 = 1,339 → 669 + 670.
    // Adjustments 579 − 669 = −90 and 580 − 670 = −90.
    const fsa4 = run(
      student(
        [
          term('Fall', 12, 9, { actual_final_credits: 6, prior_disbursement_sub: 502 }),
          term('Spring', 12, 12),
          term('Summer', 12, 12),
        ],
        { subsidized_amount: 2001, total_limit: 2001, policy: { remainder_placement: 'last_term' } },
      ),
    );
    expect(equalSubs(fsa4)).toEqual([502, 579, 580]);
    expect(fsa4.terms.map((t) => t.adjustment_sub)).toEqual([0, -90, -90]);
    // largest remainder (the default): 580 + 579.
    const lr = run(
      student(
        [
          term('Fall', 12, 9, { actual_final_credits: 6, prior_disbursement_sub: 502 }),
          term('Spring', 12, 12),
          term('Summer', 12, 12),
        ],
        { subsidized_amount: 2001, total_limit: 2001 },
      ),
    );
    expect(equalSubs(lr)).toEqual([502, 580, 579]);
  });

  it('below_half_time_credits excluded: FSA-3 with Fall at 5 → 24/36 = 66.67% → 67% → 1,340 (counted: 81%)', () => {
    const terms = [term('Fall', 12, 5), term('Spring', 12, 12), term('Summer', 12, 12)];
    const counted = run(student(terms, { subsidized_amount: 2000, total_limit: 2000 }));
    expect([counted.reduced_annual_pct, counted.annual_basic_eligibility_sub]).toEqual([81, 1620]);
    const excluded = run(
      student(terms, { subsidized_amount: 2000, total_limit: 2000, policy: { below_half_time_credits: 'excluded' } }),
    );
    // 2,000 × 67% = 1,340 → 670 + 670 over Spring and Summer; annual_ft_credits unchanged (36).
    expect([excluded.annual_ft_credits, excluded.reduced_annual_pct, ...equalSubs(excluded)]).toEqual([
      36, 67, 0, 670, 670,
    ]);
  });

  it('grad_plus_gap before_reduction: (35,000 − 20,500) × 78% = 11,310 (after: (35,000 − 15,990) × 78% = 14,828)', () => {
    const request = (gap?: 'before_reduction') =>
      student([term('Fall', 9, 9), term('Spring', 9, 5)], {
        dependency_status: 'independent',
        degree_level: 'graduate',
        grade_level: null,
        subsidized_amount: 0,
        is_legacy_borrower: true,
        academic_year_terms: 2,
        cost_of_attendance: 35000,
        ...(gap === undefined ? {} : { policy: { grad_plus_gap: gap } }),
      });
    expect(run(request()).annual_basic_eligibility_grad_plus).toBe(14828);
    expect(run(request('before_reduction')).annual_basic_eligibility_grad_plus).toBe(11310);
  });
});

describe('§7 every $0 Grad PLUS of a legacy graduate/professional student with a cost of attendance is explained', () => {
  const legacyArb = inputArb.map((i): CalculationInput => ({
    ...i,
    degree_level: i.degree_level === 'undergraduate' ? 'graduate' : i.degree_level,
    grade_level: null,
    is_legacy_borrower: true,
    plus_denied: false,
    cost_of_attendance: i.cost_of_attendance ?? '30000',
    final_period_of_program: false,
    academic_year_credits: null,
  }));

  it('random requests (any policy): a $0 annual Grad PLUS always has a "Grad PLUS is $0 because" sentence', () => {
    let zeros = 0;
    fc.assert(
      fc.property(legacyArb, (input) => {
        const r = calculate(input);
        if (r.annual_basic_eligibility_grad_plus !== 0) return;
        zeros++;
        expect(r.warnings.some((w) => w.startsWith('Grad PLUS is $0 because'))).toBe(true);
      }),
      { numRuns: 20_000 },
    );
    expect(zeros).toBeGreaterThan(100); // the generator reaches the cases
  });

  it('the cost of attendance equal to the reduced Sub and Unsub: COA 15,000 full time → Grad PLUS $0, with the amounts', () => {
    // COA caps the unsub base at 15,000; 12 + 12 of 24 → 100% → 15,000; gap 15,000 − 15,000 = 0.
    const r = run(
      student([term('Fall', 12, 12), term('Spring', 12, 12)], {
        degree_level: 'graduate',
        grade_level: null,
        subsidized_amount: 0,
        is_legacy_borrower: true,
        cost_of_attendance: 15000,
      }),
    );
    expect(r.annual_basic_eligibility_grad_plus).toBe(0);
    expect(r.warnings).toContain(
      'Grad PLUS is $0 because the cost of attendance of $15,000 does not exceed the reduced subsidized and unsubsidized amounts ($0 + $15,000 = $15,000): nothing is left for Grad PLUS.',
    );
  });

  it('total_limit used up by Sub and Unsub: limit 20,500, COA 40,000 → Grad PLUS $0 (gap 40,000 − 20,500 = 19,500)', () => {
    const r = run(
      student([term('Fall', 12, 12), term('Spring', 12, 12)], {
        degree_level: 'graduate',
        grade_level: null,
        subsidized_amount: 0,
        is_legacy_borrower: true,
        cost_of_attendance: 40000,
        total_limit: 20500,
      }),
    );
    expect(r.annual_basic_eligibility_grad_plus).toBe(0);
    expect(r.warnings).toContain(
      'Grad PLUS is $0 because the institutional program limit (total_limit, 34 CFR 685.203(m)(2)) of $20,500 is used up by the subsidized and unsubsidized starting amounts ($0 + $20,500), so it leaves $0 for Grad PLUS instead of the $19,500 of cost of attendance minus the reduced Direct Loans.',
    );
  });

  it('a base under a dollar: COA 20,500.40, full time → gap $0.40 → floor 0 → $0, explained', () => {
    const r = run(
      student([term('Fall', 12, 12), term('Spring', 12, 12)], {
        degree_level: 'graduate',
        grade_level: null,
        subsidized_amount: 0,
        is_legacy_borrower: true,
        cost_of_attendance: '20500.40',
      }),
    );
    expect(r.annual_basic_eligibility_grad_plus).toBe(0);
    expect(r.warnings.join(' ')).toMatch(/Grad PLUS is \$0 because its base of \$0\.40/);
  });
});
