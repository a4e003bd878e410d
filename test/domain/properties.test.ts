/**
 * Property-based tests (fast-check) over generated valid inputs: 1–4 terms, credits 0–30 with up to 2
 * decimals, full time 1–20 with up to 1 decimal, money 0–100,000 with cents, every student kind.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculate } from '../../src/domain/calculate.ts';
import { Dec } from '../../src/domain/decimal.ts';
import { toJsonNumber } from '../../src/domain/output.ts';
import { readingsWith, reduceUnder, yearPercentUnder } from '../../src/domain/readings.ts';
import { splitByWeights, splitEqual } from '../../src/domain/split.ts';
import { quotient } from '../../src/domain/trace-step.ts';
import type { CalculationInput, CalculationResult, TermInput } from '../../src/domain/types.ts';
import { inputArb, scaled } from './support/arbitraries.ts';

const RUNS = { numRuns: 400 };

const LOANS = ['subsidized', 'unsubsidized', 'grad_plus'] as const;
const ANNUAL = {
  subsidized: 'annual_basic_eligibility_sub',
  unsubsidized: 'annual_basic_eligibility_unsub',
  grad_plus: 'annual_basic_eligibility_grad_plus',
} as const;
const ADJUSTMENT = {
  subsidized: 'adjustment_sub',
  unsubsidized: 'adjustment_unsub',
  grad_plus: 'adjustment_grad_plus',
} as const;
const PRIOR = {
  subsidized: 'prior_disbursement_sub',
  unsubsidized: 'prior_disbursement_unsub',
  grad_plus: 'prior_disbursement_grad_plus',
} as const;

const roundedPrior = (value: string | null) =>
  value === null ? 0 : new Dec(value).toDecimalPlaces(0, Dec.ROUND_HALF_UP).toNumber();
const isClosed = (t: TermInput) => LOANS.some((l) => roundedPrior(t[PRIOR[l]]) > 0);
const eligible = (creditsValue: string, ft: string) => new Dec(creditsValue).times(2).gte(new Dec(ft));
const withoutFinalCredits = (input: CalculationInput): CalculationInput => ({
  ...input,
  terms: input.terms.map((t) => ({ ...t, actual_final_credits: null })),
});

describe('properties of the split', () => {
  it('weighted parts sum exactly to the amount, are never negative and are within a dollar of the exact share', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 1, maxLength: 4 }),
        (amount, weightUnits) => {
          const weights = weightUnits.map((w) => new Dec(scaled(w, 2)));
          const total = weights.reduce((a, w) => a.plus(w), new Dec(0));
          const parts = splitByWeights(new Dec(amount), weights);
          expect(parts.reduce((a, p) => a.plus(p), new Dec(0)).toNumber()).toBe(amount);
          parts.forEach((p, i) => {
            expect(p.isInteger() && !p.isNegative()).toBe(true);
            // |part − amount × w ÷ Σw| < 1, i.e. |part × Σw − amount × w| < Σw
            expect(p.times(total).minus(weights[i]!.times(amount)).abs().lt(total)).toBe(true);
          });
        },
      ),
      RUNS,
    );
  });

  it('equal parts sum exactly, differ by at most a dollar and put the odd dollars first', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000 }), fc.integer({ min: 1, max: 4 }), (amount, count) => {
        const parts = splitEqual(new Dec(amount), count).map((p) => p.toNumber());
        expect(parts.reduce((a, b) => a + b, 0)).toBe(amount);
        expect(Math.max(...parts) - Math.min(...parts)).toBeLessThanOrEqual(1);
        expect([...parts].sort((a, b) => b - a)).toEqual(parts);
      }),
      RUNS,
    );
  });
});

describe('properties of calculate()', () => {
  it('never throws for a valid input and is deterministic (same input → deep-equal output)', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const first = calculate(input);
        const second = calculate(structuredClone(input));
        expect(second).toEqual(first);
        expect(JSON.stringify(second)).toBe(JSON.stringify(first));
      }),
      RUNS,
    );
  });

  it('percentages are whole numbers within 0–100; dollars are integers; shape rules hold', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const r = calculate(input);
        const percents = [
          r.reduced_annual_pct,
          ...r.terms.flatMap((t) => [t.enrollment_intensity_pct, t.disbursement_pct]),
        ];
        for (const p of percents) {
          expect(Number.isInteger(p)).toBe(true);
          expect(p).toBeGreaterThanOrEqual(0);
          expect(p).toBeLessThanOrEqual(100);
        }
        r.terms.forEach((t, i) => {
          expect(t.proportional === null).toBe(!r.show_both_options);
          for (const l of LOANS) {
            expect(Number.isInteger(t.equal[l]) && t.equal[l] >= 0).toBe(true);
            if (t.proportional !== null)
              expect(Number.isInteger(t.proportional[l]) && t.proportional[l] >= 0).toBe(true);
          }
          if (t.final_term_overdisbursement) expect(i).toBe(r.terms.length - 1);
          expect(t.adjustment_explanation === '').toBe(t.adjustment_source_index === null);
        });
      }),
      RUNS,
    );
  });

  it('equal and proportional totals agree, and each total is the sum over the terms', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const r = calculate(input);
        expect(r.total_proportional).toEqual(r.total_equal);
        for (const l of LOANS) {
          expect(r.terms.reduce((a, t) => a + t.equal[l], 0)).toBe(r.total_equal[l]);
          if (r.show_both_options)
            expect(r.terms.reduce((a, t) => a + t.proportional![l], 0)).toBe(r.total_proportional[l]);
        }
      }),
      RUNS,
    );
  });

  it('totals are the annual amount, unless over-disbursed (then the payments) or nothing is left to pay into', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const r = calculate(input);
        const openEligible = input.terms.some(
          (t) => !isClosed(t) && eligible(t.actual_final_credits ?? t.credits_enrolled, t.full_time_credits),
        );
        for (const l of LOANS) {
          const paid = input.terms.reduce((a, t) => a + roundedPrior(t[PRIOR[l]]), 0);
          const annual = r[ANNUAL[l]];
          const expected = paid > annual || !openEligible ? paid : annual;
          expect(r.total_equal[l]).toBe(expected);
        }
      }),
      RUNS,
    );
  });

  it('closed terms keep exactly their (rounded) payments in both options', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const r = calculate(input);
        input.terms.forEach((t, i) => {
          if (!isClosed(t)) return;
          const kept = { subsidized: 0, unsubsidized: 0, grad_plus: 0 };
          for (const l of LOANS) kept[l] = roundedPrior(t[PRIOR[l]]);
          expect(r.terms[i]!.equal).toEqual(kept);
          if (r.terms[i]!.proportional !== null) expect(r.terms[i]!.proportional).toEqual(kept);
          expect([r.terms[i]!.adjustment_sub, r.terms[i]!.adjustment_source_index]).toEqual([0, null]);
        });
      }),
      RUNS,
    );
  });

  it('decimal strings are equivalent however they are written ("10.5", "10.50", "10.500000")', () => {
    const padded = (value: string, zeros: number) => (value.includes('.') ? value : `${value}.`) + '0'.repeat(zeros);
    const pad = (value: string | null, zeros: number) => (value === null ? null : padded(value, zeros));
    fc.assert(
      fc.property(inputArb, fc.integer({ min: 1, max: 4 }), (input, zeros) => {
        const variant: CalculationInput = {
          ...input,
          cost_of_attendance: pad(input.cost_of_attendance, zeros),
          subsidized_amount: pad(input.subsidized_amount, zeros),
          total_limit: pad(input.total_limit, zeros),
          academic_year_credits: pad(input.academic_year_credits, zeros),
          terms: input.terms.map((t) => ({
            label: t.label,
            full_time_credits: padded(t.full_time_credits, zeros),
            credits_enrolled: padded(t.credits_enrolled, zeros),
            actual_final_credits: pad(t.actual_final_credits, zeros),
            prior_disbursement_sub: pad(t.prior_disbursement_sub, zeros),
            prior_disbursement_unsub: pad(t.prior_disbursement_unsub, zeros),
            prior_disbursement_grad_plus: pad(t.prior_disbursement_grad_plus, zeros),
          })),
        };
        expect(calculate(variant)).toEqual(calculate(input));
      }),
      RUNS,
    );
  });

  it('adjustments are equal(revision) − equal(baseline) on open terms, and add up to the annual change', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const revision: CalculationResult = calculate(input);
        const baseline = calculate(withoutFinalCredits(input));
        input.terms.forEach((t, j) => {
          if (isClosed(t)) return;
          for (const l of LOANS) {
            expect(revision.terms[j]![ADJUSTMENT[l]]).toBe(revision.terms[j]!.equal[l] - baseline.terms[j]!.equal[l]);
          }
        });
        const openEligibleIn = (creditsOf: (t: TermInput) => string) =>
          input.terms.some((t) => !isClosed(t) && eligible(creditsOf(t), t.full_time_credits));
        const bothOpen =
          openEligibleIn((t) => t.actual_final_credits ?? t.credits_enrolled) &&
          openEligibleIn((t) => t.credits_enrolled);
        for (const l of LOANS) {
          const paid = input.terms.reduce((a, t) => a + roundedPrior(t[PRIOR[l]]), 0);
          if (!bothOpen || revision[ANNUAL[l]] < paid || baseline[ANNUAL[l]] < paid) continue;
          const sum = revision.terms.reduce((a, t) => a + t[ADJUSTMENT[l]], 0);
          expect(sum).toBe(revision[ANNUAL[l]] - baseline[ANNUAL[l]]);
        }
      }),
      RUNS,
    );
  });

  it('without final credits there is nothing to adjust', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const r = calculate(withoutFinalCredits(input));
        for (const t of r.terms) {
          expect([t.adjustment_sub, t.adjustment_unsub, t.adjustment_grad_plus]).toEqual([0, 0, 0]);
          expect(t.adjustment_source_index).toBeNull();
        }
      }),
      RUNS,
    );
  });
});

/** Whole dollars for cost_of_attendance and subsidized_amount (cents are dropped). */
const wholeDollar = (value: string | null) => (value === null ? null : value.split('.')[0]!);

/** rules.md §2.1 for undergraduates, written out here (not read from src/domain/limits.ts): [S_max, C_max]. */
const UNDERGRADUATE_LIMITS = {
  dependent: { first_year: [3500, 5500], second_year: [4500, 6500], third_year_and_beyond: [5500, 7500] },
  independent: { first_year: [3500, 9500], second_year: [4500, 10500], third_year_and_beyond: [5500, 12500] },
} as const;

/** Undergraduates in the final period of the program, shorter than an academic year (rules.md §2.3 applies). */
const finalPeriodArb: fc.Arbitrary<CalculationInput> = fc
  .tuple(
    inputArb,
    fc.integer({ min: 1, max: 400 }),
    fc.constantFrom('first_year', 'second_year', 'third_year_and_beyond'),
  )
  .map(([input, extraTenths, grade]) => {
    const fullTime = input.terms.reduce((a, t) => a.plus(t.full_time_credits), new Dec(0));
    return {
      ...input,
      // Whole dollars: a subsidized_amount of x.50 makes unsub_base = C'_max − x.50, and rules.md §3 rounds both
      // halves up, so Sub + Unsub may exceed C'_max by $1 by the rules themselves (the same holds for C_max
      // without proration); the closing note raises this with the rules' owners.
      subsidized_amount: wholeDollar(input.subsidized_amount),
      degree_level: 'undergraduate',
      grade_level: grade,
      final_period_of_program: true,
      academic_year_credits: fullTime.plus(new Dec(extraTenths).dividedBy(10)).toFixed(),
    };
  });

describe('properties of the 2026-27.2 rules (Grad PLUS after the reduction, §2.3 final period)', () => {
  it('Σ reduced annual amounts (sub + unsub + Grad PLUS) never exceed the cost of attendance', () => {
    // Whole-dollar cost of attendance and subsidized_amount: with cents, rules.md §3 rounds a base of x.50 up,
    // so a cents-only excess over a cents cost of attendance follows from the rules themselves.
    fc.assert(
      fc.property(fc.oneof(inputArb, finalPeriodArb), (generated) => {
        const input: CalculationInput = {
          ...generated,
          cost_of_attendance: wholeDollar(generated.cost_of_attendance),
          subsidized_amount: wholeDollar(generated.subsidized_amount),
        };
        fc.pre(input.cost_of_attendance !== null);
        const r = calculate(input);
        const sum =
          r.annual_basic_eligibility_sub + r.annual_basic_eligibility_unsub + r.annual_basic_eligibility_grad_plus;
        expect(sum).toBeLessThanOrEqual(Number(input.cost_of_attendance));
      }),
      RUNS,
    );
  });

  it("a final-period student's amounts never exceed the prorated limits, and the reduction is not applied", () => {
    fc.assert(
      fc.property(finalPeriodArb, (input) => {
        const r = calculate(input);
        const dependency = input.dependency_status === 'independent' || input.plus_denied ? 'independent' : 'dependent';
        const [sMax, cMax] = UNDERGRADUATE_LIMITS[dependency][input.grade_level!];
        // rules.md §2.3 (2026-27.3): P = Σ credits_enrolled (at origination, never the final credits) of the terms
        // scheduled at least half time; C'max and S'max each prorated directly.
        const credits = input.terms.reduce(
          (a, t) =>
            new Dec(t.credits_enrolled).times(2).gte(new Dec(t.full_time_credits)) ? a.plus(t.credits_enrolled) : a,
          new Dec(0),
        );
        const ayc = new Dec(input.academic_year_credits!);
        // fraction = num ÷ den, kept as a ratio: the bounds below are compared multiplied by den, exactly (a
        // quotient such as 1/3 rounded to a working precision would make a bound met exactly look exceeded).
        // Under a 2-decimal school policy (rules.md §10) the fraction is P ÷ Y as hundredths, rounded or truncated.
        const method = input.policy.proration_fraction;
        const hundredths = credits.times(100).dividedBy(ayc);
        const [num, den] = credits.gte(ayc)
          ? [new Dec(1), new Dec(1)]
          : method === 'exact'
            ? [credits, ayc]
            : [
                hundredths.toDecimalPlaces(0, method === 'decimal_rounded' ? Dec.ROUND_HALF_UP : Dec.ROUND_DOWN),
                new Dec(100),
              ];
        // The exact prorated limits (before whole-dollar rounding) plus at most half a dollar of rounding each.
        const subLimit = num.times(sMax).plus(den.times(0.5));
        const combinedLimit = num.times(cMax).plus(den.times(0.5));
        expect(r.reduced_annual_pct).toBe(100);
        expect(r.show_both_options).toBe(false);
        expect(new Dec(r.annual_basic_eligibility_sub).times(den).lte(subLimit)).toBe(true);
        expect(
          new Dec(r.annual_basic_eligibility_sub + r.annual_basic_eligibility_unsub).times(den).lte(combinedLimit),
        ).toBe(true);
        expect(r.annual_basic_eligibility_grad_plus).toBe(0);
        // What is newly scheduled on open terms never exceeds the annual amounts either.
        for (const l of ['subsidized', 'unsubsidized'] as const) {
          const open = r.terms.reduce((a, t, i) => (isClosed(input.terms[i]!) ? a : a + t.equal[l]), 0);
          expect(open).toBeLessThanOrEqual(r[ANNUAL[l]]);
        }
      }),
      RUNS,
    );
  });

  it('the §2.3 case is idempotent under a re-run with actual_final_credits equal to credits_enrolled', () => {
    fc.assert(
      fc.property(finalPeriodArb, (generated) => {
        const input = withoutFinalCredits(generated);
        const rerun: CalculationInput = {
          ...input,
          terms: input.terms.map((t) => ({ ...t, actual_final_credits: t.credits_enrolled })),
        };
        expect(calculate(rerun)).toEqual(calculate(input));
      }),
      RUNS,
    );
  });
});

describe('properties of the JSON conversion', () => {
  it('turns every integer produced by decimal arithmetic into the same JSON number', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -100_000_000, max: 100_000_000 }),
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: -100_000_000, max: 100_000_000 }),
        (a, b, c) => {
          const value = new Dec(a).times(b).minus(c);
          expect(toJsonNumber(value)).toBe(Number(BigInt(a) * BigInt(b) - BigInt(c)));
          expect(toJsonNumber(new Dec(scaled(Math.abs(a), 6)))).toBe(Number(scaled(Math.abs(a), 6)));
        },
      ),
      RUNS,
    );
  });
});

/** Credits with up to 6 decimals, 0 – 1,000 (rules.md §8's bounds for a credit count). */
const creditsArb = fc.integer({ min: 0, max: 1_000_000_000 }).map((units) => new Dec(scaled(units, 6)));
const positiveCreditsArb = fc.integer({ min: 1, max: 1_000_000_000 }).map((units) => new Dec(scaled(units, 6)));

describe('properties of the divisions (the quotients that do not end)', () => {
  const NONE = readingsWith({ percentRounding: 'none' });

  it("the `percentRounding: 'none'` percentage is min(Σ, den) × 100 ÷ den half up to 6 places, and reduces exactly", () => {
    fc.assert(
      fc.property(
        fc.array(creditsArb, { minLength: 1, maxLength: 4 }),
        positiveCreditsArb,
        fc.integer({ min: 0, max: 100_000_000 }),
        (credits, den, baseDollars) => {
          const year = yearPercentUnder(
            credits,
            credits.map(() => true),
            den,
            NONE,
          );
          const sum = credits.reduce((a, c) => a.plus(c), new Dec(0));
          const num = sum.lt(den) ? sum : den;
          expect(year.exact!.num.eq(num) && year.exact!.den.eq(den)).toBe(true);
          const p = year.percent;
          expect(p.toDecimalPlaces(6).eq(p) && p.gte(0) && p.lte(100)).toBe(true);
          // half up (a tie goes up): p × den − num × 100 lies in (−den/2, den/2] millionths of a percent
          const error = p.times(den).minus(num.times(100)).times(1_000_000);
          const half = den.times('0.5');
          expect(error.gt(half.negated()) && error.lte(half), `${num} ÷ ${den} → ${p}`).toBe(true);
          // the amount is reduced by the exact ratio, rounded half up to a whole dollar
          const base = new Dec(baseDollars);
          const reduced = reduceUnder(base, year);
          const gap = reduced.times(den).minus(base.times(num));
          expect(reduced.toDecimalPlaces(0).eq(reduced) && gap.gt(half.negated()) && gap.lte(half)).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it('the worksheet writes a ÷ b exactly when it ends within 6 places, else ≈ to 4 places', () => {
    fc.assert(
      fc.property(creditsArb, positiveCreditsArb, (a, b) => {
        const text = quotient(a, b);
        const ends = a.times(1_000_000).mod(b).isZero();
        if (ends) {
          expect(new Dec(text).times(b).eq(a), `${a} ÷ ${b} = ${text}`).toBe(true);
        } else {
          expect(text.startsWith('≈ '), `${a} ÷ ${b} = ${text}`).toBe(true);
          const shown = new Dec(text.slice(2));
          // within half of the 4th place: |shown × b − a| ≤ b / 20,000
          const error = shown.times(b).minus(a).abs().times(20_000);
          expect(error.lte(b), `${a} ÷ ${b} ≈ ${shown}`).toBe(true);
        }
      }),
      RUNS,
    );
  });
});
