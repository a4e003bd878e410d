/**
 * rules.md §3: the academic-year percentage and the annual amounts. Hand-computed in the comments.
 */

import { describe, expect, it } from 'vitest';
import { calculate } from '../../src/domain/calculate.ts';
import { Dec } from '../../src/domain/decimal.ts';
import {
  annualBasicEligibility,
  annualFullTimeCredits,
  reducedAnnualPercent,
  termCredits,
} from '../../src/domain/percentage.ts';
import { student, term, toInput } from './support/input.ts';

const d = (v: string | number) => new Dec(v);

describe('§3 credits of a term', () => {
  it('uses actual_final_credits when present, else credits_enrolled', () => {
    expect(termCredits('9', '6').toNumber()).toBe(6);
    expect(termCredits('9', null).toNumber()).toBe(9);
    expect(termCredits('9', '0').toNumber()).toBe(0);
  });
});

describe('§3 annual_ft_credits = Σ full_time_credits', () => {
  it('12 + 12 = 24; three 12-credit quarters = 36; 7.5 + 7.5 = 15', () => {
    expect(annualFullTimeCredits([d(12), d(12)]).toNumber()).toBe(24);
    expect(annualFullTimeCredits([d(12), d(12), d(12)]).toNumber()).toBe(36);
    const r = calculate(toInput(student([term('A', '7.5', 6), term('B', '7.5', 6)])));
    expect(r.annual_ft_credits).toBe(15);
    // 12/15 = 80%.
    expect(r.reduced_annual_pct).toBe(80);
  });
});

describe('§3 reduced_annual_pct = min(100, round_half_up(100 × Σ credits ÷ annual_ft_credits))', () => {
  const pct = (credits: number[], annualFt: number) =>
    reducedAnnualPercent(
      credits.map((c) => d(c)),
      d(annualFt),
    ).toNumber();

  it('15/24 = 62.5% → 63; 33/36 = 91.67% → 92; 30/36 = 83.33% → 83; 21/24 = 87.5% → 88', () => {
    expect(pct([6, 9], 24)).toBe(63);
    expect(pct([9, 12, 12], 36)).toBe(92);
    expect(pct([6, 12, 12], 36)).toBe(83);
    expect(pct([12, 9], 24)).toBe(88);
  });

  it('over-loaded terms count in full; only the total is capped: 15 + 6 → 88%, 15 + 15 → 100%', () => {
    expect(pct([15, 6], 24)).toBe(88); // 21/24 = 87.5 → 88
    expect(pct([15, 15], 24)).toBe(100); // 125 → capped
    expect(pct([18, 6], 24)).toBe(100); // exactly 100
  });

  it('credits below half time still count: 12 + 3 of 24 = 62.5% → 63%', () => {
    const r = calculate(toInput(student([term('Fall', 12, 12), term('Spring', 12, 3)], { total_limit: 3500 })));
    expect(r.reduced_annual_pct).toBe(63);
    // 3,500 × 63% = 2,205, all to Fall (Spring is below half time and gets 0).
    expect(r.annual_basic_eligibility_sub).toBe(2205);
    expect(r.terms.map((t) => t.equal.subsidized)).toEqual([2205, 0]);
  });

  it('final credits replace enrolled credits in the sum: 12 + 12 enrolled, Fall final 6 → 18/24 = 75%', () => {
    const r = calculate(
      toInput(
        student([term('Fall', 12, 12, { actual_final_credits: 6 }), term('Spring', 12, 12)], { total_limit: 3500 }),
      ),
    );
    expect(r.reduced_annual_pct).toBe(75);
    expect(r.annual_basic_eligibility_sub).toBe(2625); // 3,500 × 75%
  });

  it('zero credits everywhere give 0% and $0', () => {
    const r = calculate(toInput(student([term('Fall', 12, 0), term('Spring', 12, 0)])));
    expect(r.reduced_annual_pct).toBe(0);
    expect([r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub]).toEqual([0, 0]);
    expect(r.total_equal).toEqual({ subsidized: 0, unsubsidized: 0, grad_plus: 0 });
  });
});

describe('§3 a loan period shorter than the academic year', () => {
  it('one term of a two-term year, 9 of 12 → 75% of the full annual amount (FSA example 2), with a warning', () => {
    const r = calculate(
      toInput(student([term('Spring', 12, 9)], { academic_year_terms: 2, subsidized_amount: 3500, total_limit: 3500 })),
    );
    expect(r.annual_ft_credits).toBe(12);
    expect(r.reduced_annual_pct).toBe(75);
    expect(r.annual_basic_eligibility_sub).toBe(2625); // 3,500 × 75%
    expect(r.warnings.join(' ')).toMatch(/loan period has 1 term but the academic year has 2/);
  });

  it('two terms of a three-term year: the same formula over the supplied terms, with a warning', () => {
    // 9 + 12 of 24 = 87.5% → 88%; 3,500 × 88% = 3,080.
    const r = calculate(
      toInput(student([term('Fall', 12, 9), term('Winter', 12, 12)], { academic_year_terms: 3, total_limit: 3500 })),
    );
    expect(r.reduced_annual_pct).toBe(88);
    expect(r.annual_basic_eligibility_sub).toBe(3080);
    expect(r.warnings.join(' ')).toMatch(/2 terms but the academic year has 3/);
  });

  it('no warning when the terms make up the academic year or academic_year_terms is null', () => {
    for (const academicYearTerms of [2, null]) {
      const r = calculate(
        toInput(student([term('Fall', 12, 9), term('Spring', 12, 9)], { academic_year_terms: academicYearTerms })),
      );
      expect(r.warnings.some((w) => w.includes('shorter than the academic year'))).toBe(false);
    }
  });
});

describe('§3 annual_basic_eligibility_X = round_half_up(X_base × pct ÷ 100)', () => {
  it('3,500 × 63% = 2,205; 2,000 × 63% = 1,260; 1,001 × 50% = 500.5 → 501; 1,000.98 × 50% = 500.49 → 500', () => {
    expect(annualBasicEligibility(d(3500), d(63)).toNumber()).toBe(2205);
    expect(annualBasicEligibility(d(2000), d(63)).toNumber()).toBe(1260);
    expect(annualBasicEligibility(d(1001), d(50)).toNumber()).toBe(501);
    expect(annualBasicEligibility(d('1000.98'), d(50)).toNumber()).toBe(500);
  });
});
