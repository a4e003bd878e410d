/**
 * rules.md §5: equal and proportional spreading, show_both_options, disbursement_pct, totals.
 */

import { describe, expect, it } from 'vitest';
import { calculate } from '../../src/domain/calculate.ts';
import { Dec } from '../../src/domain/decimal.ts';
import { disbursementPercents, showBothOptions, spreadRemaining } from '../../src/domain/distribution.ts';
import { student, term, toInput } from './support/input.ts';

const d = (v: string | number) => new Dec(v);
const nums = (values: Dec[]) => values.map((v) => v.toNumber());

describe('§5 equal and proportional options', () => {
  it('FSA example 1: 2,205 equal → 1,103 + 1,102; proportional 6/15, 9/15 → 882 + 1,323', () => {
    // 6 + 9 of 24 = 62.5% → 63%. Sub 3,500 × 63% = 2,205; unsub 2,000 × 63% = 1,260.
    // Unsub equal 630 + 630; proportional 1,260 × 6/15 = 504, × 9/15 = 756.
    const r = calculate(toInput(student([term('Fall', 12, 6), term('Spring', 12, 9)], { total_limit: 5500 })));
    expect(r.show_both_options).toBe(true);
    expect(r.terms.map((t) => t.equal)).toEqual([
      { subsidized: 1103, unsubsidized: 630, grad_plus: 0 },
      { subsidized: 1102, unsubsidized: 630, grad_plus: 0 },
    ]);
    expect(r.terms.map((t) => t.proportional)).toEqual([
      { subsidized: 882, unsubsidized: 504, grad_plus: 0 },
      { subsidized: 1323, unsubsidized: 756, grad_plus: 0 },
    ]);
    // disbursement_pct on the proportional weights: 6/15 = 40%, 9/15 = 60%.
    expect(r.terms.map((t) => t.disbursement_pct)).toEqual([40, 60]);
    expect(r.total_equal).toEqual({ subsidized: 2205, unsubsidized: 1260, grad_plus: 0 });
    expect(r.total_proportional).toEqual({ subsidized: 2205, unsubsidized: 1260, grad_plus: 0 });
  });

  it('four quarters with one below half time: the eligible three share; ineligible gets 0', () => {
    // ft 12 × 4 = 48; credits 12 + 9 + 6 + 3 = 30 → 62.5% → 63%. Sub 3,500 × 63% = 2,205.
    // Equal over 3 eligible: 735 each. Proportional 9/9/6… weights 12, 9, 6 (Σ 27):
    // 2,205 × 12/27 = 980, × 9/27 = 735, × 6/27 = 490.
    const r = calculate(
      toInput(
        student([term('Q1', 12, 12), term('Q2', 12, 9), term('Q3', 12, 6), term('Q4', 12, 3)], {
          total_limit: 3500,
        }),
      ),
    );
    expect(r.reduced_annual_pct).toBe(63);
    expect(r.terms.map((t) => t.equal.subsidized)).toEqual([735, 735, 735, 0]);
    expect(r.terms.map((t) => t.proportional?.subsidized)).toEqual([980, 735, 490, 0]);
    // disbursement_pct: 12/27 = 44.4 → 44, 9/27 = 33.3 → 33, 6/27 = 22.2 → 22, ineligible 0.
    expect(r.terms.map((t) => t.disbursement_pct)).toEqual([44, 33, 22, 0]);
    expect(r.terms[3]!.warning).toMatch(/below half time/);
  });

  it('the published 1,100/3 split: three full-time quarters, annual 1,100 → 367 + 367 + 366', () => {
    const r = calculate(
      toInput(
        student([term('Fall', 12, 12), term('Winter', 12, 12), term('Spring', 12, 12)], {
          subsidized_amount: 1100,
          total_limit: 1100,
        }),
      ),
    );
    expect(r.reduced_annual_pct).toBe(100);
    expect(r.terms.map((t) => t.equal.subsidized)).toEqual([367, 367, 366]);
    // Not reduced: equal weights for disbursement_pct, 100/3 = 33.3 → 33 each (need not sum to 100).
    expect(r.terms.map((t) => t.disbursement_pct)).toEqual([33, 33, 33]);
  });
});

describe('§5 show_both_options', () => {
  it('is true only when pct < 100 and at least two terms are eligible', () => {
    expect(showBothOptions(d(99), 2)).toBe(true);
    expect(showBothOptions(d(100), 2)).toBe(false);
    expect(showBothOptions(d(50), 1)).toBe(false);
    expect(showBothOptions(d(0), 0)).toBe(false);
  });

  it('when false (no reduction): proportional null on every term, total_proportional = total_equal, warning', () => {
    // 15 + 15 of 24 → 100% (DER-CAP).
    const r = calculate(toInput(student([term('Fall', 12, 15), term('Spring', 12, 15)], { total_limit: 5500 })));
    expect(r.show_both_options).toBe(false);
    expect(r.terms.map((t) => t.proportional)).toEqual([null, null]);
    expect(r.total_proportional).toEqual(r.total_equal);
    expect(r.total_equal).toEqual({ subsidized: 3500, unsubsidized: 2000, grad_plus: 0 });
    expect(r.warnings.join(' ')).toMatch(/not offered because the academic-year percentage is 100%/);
  });

  it('when false (one eligible term): warning says why', () => {
    const r = calculate(toInput(student([term('Fall', 12, 9), term('Spring', 12, 4)])));
    expect(r.show_both_options).toBe(false);
    expect(r.warnings.join(' ')).toMatch(/not offered because only one term is at least half time/);
    // Equal weights over the one eligible term: 100%, ineligible 0.
    expect(r.terms.map((t) => t.disbursement_pct)).toEqual([100, 0]);
  });

  it('when false (no eligible term): warning says why', () => {
    const r = calculate(toInput(student([term('Fall', 12, 5), term('Spring', 12, 4)])));
    expect(r.show_both_options).toBe(false);
    expect(r.warnings.join(' ')).toMatch(/not offered because no term is at least half time/);
    expect(r.terms.map((t) => t.disbursement_pct)).toEqual([0, 0]);
  });

  it('counts closed eligible terms: one open + one closed eligible term still shows both', () => {
    // Fall 6 paid 500, Spring 9: 15/24 → 63% → 2,205 sub; remaining 1,705 goes to Spring in both options.
    const r = calculate(
      toInput(
        student([term('Fall', 12, 6, { prior_disbursement_sub: 500 }), term('Spring', 12, 9)], { total_limit: 3500 }),
      ),
    );
    expect(r.show_both_options).toBe(true);
    expect(r.terms.map((t) => t.equal.subsidized)).toEqual([500, 1705]);
    expect(r.terms.map((t) => t.proportional?.subsidized)).toEqual([500, 1705]);
    expect(r.terms.map((t) => t.disbursement_pct)).toEqual([40, 60]);
  });
});

describe('§5 building blocks', () => {
  it('spreadRemaining: closed terms keep priors, open eligible share, others 0', () => {
    const priors = [d(502), d(0), d(0), d(0)];
    const closed = [true, false, false, false];
    // 1,158 over open eligible terms 1 and 3: equal 579 + 579; by weights 12 and 6: 772 + 386.
    expect(nums(spreadRemaining(d(1158), priors, closed, [1, 3], null))).toEqual([502, 579, 0, 579]);
    expect(nums(spreadRemaining(d(1158), priors, closed, [1, 3], [d(9), d(12), d(3), d(6)]))).toEqual([
      502, 772, 0, 386,
    ]);
    // Negative or zero remaining: open terms get 0.
    expect(nums(spreadRemaining(d(-10), priors, closed, [1, 3], null))).toEqual([502, 0, 0, 0]);
    // No open eligible term: nothing to spread to.
    expect(nums(spreadRemaining(d(100), priors, closed, [], null))).toEqual([502, 0, 0, 0]);
  });

  it('disbursementPercents: rounded per term over the eligible terms', () => {
    expect(nums(disbursementPercents([true, true, true], null))).toEqual([33, 33, 33]);
    expect(nums(disbursementPercents([true, false, true], [d(9), d(3), d(12)]))).toEqual([43, 0, 57]); // 9/21, 12/21
    expect(nums(disbursementPercents([false, false], null))).toEqual([0, 0]);
    // 1/8 and 7/8: 12.5 → 13 and 87.5 → 88: the sum may exceed 100.
    expect(nums(disbursementPercents([true, true], [d(1), d(7)]))).toEqual([13, 88]);
  });
});
