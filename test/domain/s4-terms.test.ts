/**
 * rules.md §4: enrollment status, Direct Loan Enrollment Intensity and eligibility, all on the exact ratio.
 */

import { describe, expect, it } from 'vitest';
import { calculate } from '../../src/domain/calculate.ts';
import { Dec } from '../../src/domain/decimal.ts';
import {
  enrollmentIntensityPercent,
  enrollmentStatus,
  isAtLeastHalfTime,
  isEligibleForDisbursement,
} from '../../src/domain/terms.ts';
import { student, term, toInput } from './support/input.ts';

const d = (v: string | number) => new Dec(v);

describe('§4 status, intensity and eligibility of one term (full time 12)', () => {
  const cases: [string, string, number, boolean][] = [
    // credits, status, intensity = min(100, round_half_up(100 × c / 12)), eligible = c ≥ 6
    ['13', 'full_time', 100, true], // 108.3 → capped at 100
    ['12', 'full_time', 100, true],
    ['11.99', 'three_quarter_time', 100, true], // 99.92 → 100, but the status uses the exact ratio
    ['9', 'three_quarter_time', 75, true],
    ['8.99', 'half_time', 75, true], // 74.92 → 75, ratio 0.749 < 0.75
    ['6', 'half_time', 50, true],
    ['5.99', 'less_than_half_time', 50, false], // 49.92 → 50, but 5.99 < 6: below half time
    ['3', 'less_than_half_time', 25, false],
    ['0.000001', 'less_than_half_time', 0, false],
    ['0', 'not_enrolled', 0, false],
  ];
  for (const [credits, status, intensity, eligible] of cases) {
    it(`${credits} of 12: ${status}, intensity ${intensity}, ${eligible ? 'eligible' : 'not eligible'}`, () => {
      expect(enrollmentStatus(d(credits), d(12))).toBe(status);
      expect(enrollmentIntensityPercent(d(credits), d(12)).toNumber()).toBe(intensity);
      expect(isEligibleForDisbursement(d(credits), d(12))).toBe(eligible);
      expect(isAtLeastHalfTime(enrollmentStatus(d(credits), d(12)))).toBe(eligible);
    });
  }

  it('works with fractional full-time loads: 3.75 of 7.5 is exactly half time', () => {
    expect(enrollmentStatus(d('3.75'), d('7.5'))).toBe('half_time');
    expect(isEligibleForDisbursement(d('3.749999'), d('7.5'))).toBe(false);
  });
});

describe('§4 through calculate()', () => {
  it('5.99 of 12 is below half time: 0 in both options and a warning, though its intensity reads 50', () => {
    // 12 + 5.99 = 17.99 of 24 = 74.96% → 75%; 3,500 × 75% = 2,625, all to Fall (the only eligible term).
    const r = calculate(toInput(student([term('Fall', 12, 12), term('Spring', 12, '5.99')], { total_limit: 3500 })));
    const spring = r.terms[1]!;
    expect(r.reduced_annual_pct).toBe(75);
    expect(spring.enrollment_status).toBe('less_than_half_time');
    expect(spring.enrollment_intensity_pct).toBe(50);
    expect(spring.disbursement_pct).toBe(0);
    expect(spring.equal).toEqual({ subsidized: 0, unsubsidized: 0, grad_plus: 0 });
    expect(spring.warning).toMatch(/below half time \(5\.99 of 12 credits\)/);
    expect(r.terms[0]!.equal.subsidized).toBe(2625);
    expect(r.terms[0]!.warning).toBe('');
    // One eligible term: proportional is not offered.
    expect(r.show_both_options).toBe(false);
    expect(spring.proportional).toBeNull();
  });

  it('status and intensity use the final credits; credits_enrolled echoes the request', () => {
    const r = calculate(
      toInput(
        student([term('Fall', 12, 9, { actual_final_credits: 6 }), term('Spring', 12, 12)], { total_limit: 3500 }),
      ),
    );
    const fall = r.terms[0]!;
    expect(fall.credits_enrolled).toBe(9);
    expect(fall.full_time_credits).toBe(12);
    expect(fall.enrollment_status).toBe('half_time');
    expect(fall.enrollment_intensity_pct).toBe(50);
  });

  it('a closed term below half time keeps its prior disbursement, with a warning', () => {
    // Fall paid 875, final credits 3: 3 + 12 = 15/24 = 62.5% → 63% → 2,205; Spring gets 2,205 − 875 = 1,330.
    const r = calculate(
      toInput(
        student(
          [term('Fall', 12, 6, { actual_final_credits: 3, prior_disbursement_sub: 875 }), term('Spring', 12, 12)],
          { total_limit: 3500 },
        ),
      ),
    );
    const fall = r.terms[0]!;
    expect(fall.enrollment_status).toBe('less_than_half_time');
    expect(fall.equal.subsidized).toBe(875);
    expect(fall.disbursement_pct).toBe(0);
    expect(fall.warning).toMatch(/keeps the disbursements already made/);
    expect(r.terms[1]!.equal.subsidized).toBe(1330);
    expect(r.total_equal.subsidized).toBe(2205);
  });
});
