/**
 * rules.md §1 Numbers: exact decimals, half-up percent and dollar rounding, the largest-remainder split, decimal
 * strings equivalent to numbers, prior disbursements rounded before use. Expected values are hand-computed.
 */

import { describe, expect, it } from 'vitest';
import { calculate } from '../../src/domain/calculate.ts';
import { Dec } from '../../src/domain/decimal.ts';
import { toJsonNumber } from '../../src/domain/output.ts';
import { percentHalfUp, roundDollars, roundHalfUp, roundHalfUpDiv } from '../../src/domain/rounding.ts';
import { splitByWeights, splitEqual } from '../../src/domain/split.ts';
import { student, term, toInput } from './support/input.ts';

const d = (v: string | number) => new Dec(v);
const nums = (values: Dec[]) => values.map((v) => v.toNumber());

describe('§1 percent rounding: half up to a whole percent', () => {
  it('62.5 → 63, 87.5 → 88, 83.33 → 83 (the rules.md examples)', () => {
    expect(roundHalfUp(d('62.5')).toNumber()).toBe(63);
    expect(roundHalfUp(d('87.5')).toNumber()).toBe(88);
    expect(roundHalfUp(d('83.33')).toNumber()).toBe(83);
  });

  it('computes 100 × a ÷ b exactly before rounding', () => {
    expect(percentHalfUp(d(15), d(24)).toNumber()).toBe(63); // 1500/24 = 62.5 → 63
    expect(percentHalfUp(d(21), d(24)).toNumber()).toBe(88); // 2100/24 = 87.5 → 88
    expect(percentHalfUp(d('10.5').plus(d('10.5')), d(24)).toNumber()).toBe(88); // 2100/24 = 87.5 → 88
    expect(percentHalfUp(d(30), d(36)).toNumber()).toBe(83); // 3000/36 = 83.33 → 83
    expect(percentHalfUp(d(33), d(36)).toNumber()).toBe(92); // 3300/36 = 91.67 → 92
    expect(percentHalfUp(d('5.99'), d(12)).toNumber()).toBe(50); // 599/12 = 49.92 → 50
    expect(percentHalfUp(d(1), d(3)).toNumber()).toBe(33); // 33.33 → 33
    expect(percentHalfUp(d(2), d(3)).toNumber()).toBe(67); // 66.67 → 67
  });

  it('rounds the exact rational, however close it is to a half', () => {
    // 100 × (2·10^20 + 1)/(4·10^20) = 50.000…025 → 50; 100 × (2·10^20 + 2)/(4·10^20) → 50 too (still < 50.5).
    expect(percentHalfUp(d('2e20').plus(1), d('4e20')).toNumber()).toBe(50);
    // 100 × (101·10^18 − 1)/(2·10^20) = 50.4999…995 → 50; 100 × 101·10^18/(2·10^20) = 50.5 → 51.
    expect(percentHalfUp(d('101e18').minus(1), d('2e20')).toNumber()).toBe(50);
    expect(percentHalfUp(d('101e18'), d('2e20')).toNumber()).toBe(51);
    // (10^29 + 1) / (2 × 10^29) = 0.5 + 5·10^-30 → 1, and (10^29 − 1) / (2 × 10^29) = 0.5 − 5·10^-30 → 0.
    expect(roundHalfUpDiv(d('1e29').plus(1), d('2e29')).toNumber()).toBe(1);
    expect(roundHalfUpDiv(d('1e29').minus(1), d('2e29')).toNumber()).toBe(0);
    // 1/3 of a dollar: (2·1 + 3) div 6 = 0; 2/3: (4 + 3) div 6 = 1.
    expect(roundHalfUpDiv(d(1), d(3)).toNumber()).toBe(0);
    expect(roundHalfUpDiv(d(2), d(3)).toNumber()).toBe(1);
  });
});

describe('§1 dollar rounding: half up to a whole dollar', () => {
  it('501.5 → 502, 501.49 → 501, 0.5 → 1, 0.49 → 0', () => {
    expect(roundDollars(d('501.5')).toNumber()).toBe(502);
    expect(roundDollars(d('501.49')).toNumber()).toBe(501);
    expect(roundDollars(d('0.5')).toNumber()).toBe(1);
    expect(roundDollars(d('0.49')).toNumber()).toBe(0);
  });
});

describe('§1 largest-remainder split', () => {
  it('reproduces the four published splits', () => {
    // 7875/2 = 3937.5 each: floors 3937 + 3937, 1 dollar left, tie → earlier term.
    expect(nums(splitEqual(d(7875), 2))).toEqual([3938, 3937]);
    // 1100/3 = 366.67 each: floors 366 × 3 = 1098, 2 dollars left → first two terms.
    expect(nums(splitEqual(d(1100), 3))).toEqual([367, 367, 366]);
    // 1840 × 9/33 = 501.82, × 12/33 = 669.09 (twice): floors 501 + 669 + 669 = 1839; largest remainder .82 → Fall.
    expect(nums(splitByWeights(d(1840), [d(9), d(12), d(12)]))).toEqual([502, 669, 669]);
    // 2625/2 = 1312.5 each → 1313 + 1312.
    expect(nums(splitEqual(d(2625), 2))).toEqual([1313, 1312]);
  });

  it('gives the leftover to the largest remainder, not to the first or the last term', () => {
    // 100 × 1/3 = 33.33, × 2/3 = 66.67: floors 33 + 66, the .67 remainder takes the dollar.
    expect(nums(splitByWeights(d(100), [d(1), d(2)]))).toEqual([33, 67]);
    // 2205 × 6/15 = 882, × 9/15 = 1323: exact, no leftover (FSA example 1).
    expect(nums(splitByWeights(d(2205), [d(6), d(9)]))).toEqual([882, 1323]);
    // 10 × (2, 1, 2)/5 = 4, 2, 4: exact.
    expect(nums(splitByWeights(d(10), [d(2), d(1), d(2)]))).toEqual([4, 2, 4]);
    // 11 × (1, 1, 1, 1)/4 = 2.75 each: floors 8, 3 left → first three (ties to the earlier terms).
    expect(nums(splitByWeights(d(11), [d(1), d(1), d(1), d(1)]))).toEqual([3, 3, 3, 2]);
    // 7 × (1.5, 4.5)/6 = 1.75, 5.25: floors 1 + 5, the .75 remainder → first.
    expect(nums(splitByWeights(d(7), [d('1.5'), d('4.5')]))).toEqual([2, 5]);
  });

  it('breaks a tie of remainders between unequal weights toward the earlier term', () => {
    // 3 × (1, 1, 4)/6 = 0.5, 0.5, 2: floors 0 + 0 + 2, 1 dollar left, the two .5 remainders tie → the first term.
    expect(nums(splitByWeights(d(3), [d(1), d(1), d(4)]))).toEqual([1, 0, 2]);
    // 5 × (4, 1, 1)/6 = 3.33, 0.83, 0.83: floors 3 + 0 + 0, 2 left → .83 and .83, the later terms, in order.
    expect(nums(splitByWeights(d(5), [d(4), d(1), d(1)]))).toEqual([3, 1, 1]);
    // 7 × (2, 3, 1, 3)/9 = 1.56, 2.33, 0.78, 2.33: floors 1 + 2 + 0 + 2, 2 left → .78 then .56.
    expect(nums(splitByWeights(d(7), [d(2), d(3), d(1), d(3)]))).toEqual([2, 2, 1, 2]);
    // 4 × (1, 2, 1, 2)/6 = 0.67, 1.33, 0.67, 1.33: floors 0 + 1 + 0 + 1, 2 left → the two .67 remainders.
    expect(nums(splitByWeights(d(4), [d(1), d(2), d(1), d(2)]))).toEqual([1, 1, 1, 1]);
    // 5 × (1, 2, 1, 2)/6 = 0.83, 1.67, 0.83, 1.67: floors 0 + 1 + 0 + 1, 3 left → .83, .83 (a tie: both), then the
    // first of the tied .67s.
    expect(nums(splitByWeights(d(5), [d(1), d(2), d(1), d(2)]))).toEqual([1, 2, 1, 1]);
  });

  it('equal split is the weighted split with equal weights', () => {
    for (const amount of [0, 1, 2, 3, 1099, 1100, 1101, 7875]) {
      for (const count of [1, 2, 3, 4]) {
        expect(nums(splitEqual(d(amount), count))).toEqual(
          nums(
            splitByWeights(
              d(amount),
              Array.from({ length: count }, () => d(1)),
            ),
          ),
        );
      }
    }
  });

  it('splits 0 into zeros and refuses fractional, negative or unweighted amounts', () => {
    expect(nums(splitByWeights(d(0), [d(1), d(2)]))).toEqual([0, 0]);
    expect(nums(splitEqual(d(0), 3))).toEqual([0, 0, 0]);
    expect(() => splitEqual(d('10.5'), 2)).toThrow();
    expect(() => splitEqual(d(-10), 2)).toThrow();
    expect(() => splitByWeights(d(10), [d(0), d(0)])).toThrow();
    expect(() => splitByWeights(d(10), [])).toThrow();
  });
});

describe('§1 decimal strings and numbers give the same result', () => {
  const terms = (fall: string | number, spring: string | number) => [
    term('Fall', 12, fall),
    term('Spring', 12, spring),
  ];

  it('"10.5", 10.5, "10.50" and "10.500000" are the same credits (DER-FRAC: 21/24 = 87.5% → 88%)', () => {
    const results = [
      calculate(toInput(student(terms('10.5', '10.5'), { total_limit: 5500 }))),
      calculate(toInput(student(terms(10.5, 10.5), { total_limit: 5500 }))),
      calculate(toInput(student(terms('10.50', '10.500000'), { total_limit: 5500 }))),
    ];
    for (const r of results) {
      expect(r.reduced_annual_pct).toBe(88);
      expect(r.annual_basic_eligibility_sub).toBe(3080); // 3500 × 88% = 3080
      expect(r.terms[0]!.credits_enrolled).toBe(10.5);
    }
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
  });

  it('normalises credit outputs: "24.0"-style inputs come out as 24, 10.50 as 10.5', () => {
    const r = calculate(toInput(student([term('Fall', '12.000', '10.50'), term('Spring', '12.0', '6')])));
    expect(r.annual_ft_credits).toBe(24);
    expect(r.terms[0]!.full_time_credits).toBe(12);
    expect(r.terms[0]!.credits_enrolled).toBe(10.5);
    expect(JSON.stringify(r.terms[0]!.credits_enrolled)).toBe('10.5');
  });

  it('converts exactly to JSON numbers and refuses what a double cannot hold', () => {
    expect(toJsonNumber(d('10.5'))).toBe(10.5);
    expect(toJsonNumber(d('0.000001'))).toBe(0.000001);
    expect(toJsonNumber(d('-90'))).toBe(-90);
    expect(toJsonNumber(d('12345678'))).toBe(12345678);
    expect(Object.is(toJsonNumber(d('-0')), 0)).toBe(true);
    expect(() => toJsonNumber(d('1234567890.1234567'))).toThrow();
  });
});

describe('§1 prior disbursements are rounded half up to whole dollars before any use', () => {
  it('a prior of 0.49 rounds to 0: the term stays open', () => {
    const r = calculate(
      toInput(
        student([term('Fall', 12, 6, { prior_disbursement_sub: '0.49' }), term('Spring', 12, 6)], {
          total_limit: 3500,
        }),
      ),
    );
    // 12/24 = 50% → 1750 sub, nothing paid → 875 + 875.
    expect(r.terms.map((t) => t.equal.subsidized)).toEqual([875, 875]);
  });

  it('a prior of 0.5 rounds to 1: the term is closed and keeps exactly $1', () => {
    const r = calculate(
      toInput(
        student([term('Fall', 12, 6, { prior_disbursement_sub: '0.5' }), term('Spring', 12, 6)], { total_limit: 3500 }),
      ),
    );
    // 1750 − 1 = 1749 left for Spring.
    expect(r.terms.map((t) => t.equal.subsidized)).toEqual([1, 1749]);
    expect(r.total_equal.subsidized).toBe(1750);
  });

  it('a prior of 874.5 is 875', () => {
    const r = calculate(
      toInput(
        student([term('Fall', 12, 6, { prior_disbursement_sub: 874.5 }), term('Spring', 12, 6)], { total_limit: 3500 }),
      ),
    );
    expect(r.terms.map((t) => t.equal.subsidized)).toEqual([875, 875]);
  });
});
