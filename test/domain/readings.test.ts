/**
 * The readings parameter of the engine (src/domain/readings.ts): the service's readings are the default and change
 * nothing; each other reading gives the figures worked out by hand below from the published examples and the
 * reading's definition (architecture.md "Shadow check").
 */
import { describe, expect, it } from 'vitest';
import { calculate } from '../../src/domain/calculate.ts';
import { STATUTORY_LIMIT_TABLE } from '../../src/domain/limits.ts';
import { StudentFigures, figuresUnder } from '../../src/domain/figures.ts';
import { resolvePolicy } from '../../src/domain/policy.ts';
import {
  CHECK_REASONS,
  REASON_CHANGES,
  REASON_READINGS,
  readingsForReason,
  type Readings,
  SERVICE_READINGS,
  readingsForPolicy,
  readingsOver,
  readingsWith,
} from '../../src/domain/readings.ts';
import type { CalculationInput } from '../../src/domain/types.ts';
import { parseCalculationRequest } from '../../src/schema/request.ts';
import { EXAMPLES } from '../bulk/examples.ts';

function input(id: string, change: (r: Record<string, unknown>) => void = () => {}): CalculationInput {
  const request = structuredClone(EXAMPLES.find((e) => e.id === id)!.request) as Record<string, unknown>;
  change(request);
  const parsed = parseCalculationRequest(request);
  if (!parsed.ok) throw new Error(`invalid ${id}`);
  return parsed.value;
}

const under = (i: CalculationInput, changes: Partial<Readings>) =>
  calculate(i, STATUTORY_LIMIT_TABLE, readingsWith(changes));
const equalSubs = (r: ReturnType<typeof calculate>) => r.terms.map((t) => t.equal.subsidized);

describe('the service readings', () => {
  it('are the default, and an equal copy of them gives the same result for every example', () => {
    for (const ex of EXAMPLES) {
      const i = input(ex.id);
      const plain = calculate(i);
      // An example with a school policy calculates under that policy's readings (rules.md §10).
      const policyReadings = readingsForPolicy(i.policy);
      expect(calculate(i, STATUTORY_LIMIT_TABLE, policyReadings), ex.id).toEqual(plain);
      expect(calculate(i, STATUTORY_LIMIT_TABLE, readingsOver(policyReadings, {})), ex.id).toEqual(plain); // general path
      expect(plain.reduced_annual_pct, ex.id).toBe(ex.expected.reduced_annual_pct);
    }
  });
});

describe('other readings', () => {
  it('remainder on the last term: FSA-1 2,205 → 1,102 + 1,103; proportional floors 882 + 1,323 (exact)', () => {
    const r = under(input('FSA-1'), { remainder: 'last_term' });
    expect(equalSubs(r)).toEqual([1102, 1103]);
    expect(r.terms.map((t) => t.proportional!.subsidized)).toEqual([882, 1323]);
    // FSA-3 proportional 1,840 × (9, 12, 12) / 33 = 501.8, 669.1, 669.1 → 501 + 669 + 670
    expect(under(input('FSA-3'), { remainder: 'last_term' }).terms.map((t) => t.proportional!.subsidized)).toEqual([
      501, 669, 670,
    ]);
  });

  it('below-half-time credits excluded: FSA-3 with Fall at 5 → 24/36 = 67% → 1,340 (counted: 29/36 → 81%)', () => {
    const i = input('FSA-3', (r) => ((r.terms as Record<string, unknown>[])[0]!.credits_enrolled = 5));
    expect([calculate(i).reduced_annual_pct, calculate(i).annual_basic_eligibility_sub]).toEqual([81, 1620]);
    const r = under(i, { belowHalfTimeCredits: 'excluded' });
    expect([r.reduced_annual_pct, r.annual_basic_eligibility_sub, ...equalSubs(r)]).toEqual([67, 1340, 0, 670, 670]);
  });

  it('percent unrounded (62.5% → 2,188 and 1,250) and rounded down (FSA-3: 91% → 1,820)', () => {
    const r = under(input('FSA-1'), { percentRounding: 'none' });
    expect([r.reduced_annual_pct, r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub]).toEqual([
      62.5, 2188, 1250,
    ]);
    // 33/36 = 91.6666…% shown to 6 decimals; 2,000 × 33 / 36 = 1,833.33 → 1,833
    const u = under(input('FSA-3'), { percentRounding: 'none' });
    expect([u.reduced_annual_pct, u.annual_basic_eligibility_sub]).toEqual([91.666667, 1833]);
    const d = under(input('FSA-3'), { percentRounding: 'down' });
    expect([d.reduced_annual_pct, d.annual_basic_eligibility_sub, ...equalSubs(d)]).toEqual([91, 1820, 607, 607, 606]);
  });

  it('binary floating point: 2,250 × 0.69 → 1,552 (the rules: 1,552.5 → 1,553)', () => {
    const i = input('FSA-1', (r) => {
      r.subsidized_amount = 2250;
      r.total_limit = 2250;
      (r.terms as Record<string, unknown>[])[0]!.credits_enrolled = 7.5;
    });
    expect(calculate(i).annual_basic_eligibility_sub).toBe(1553);
    const r = under(i, { arithmetic: 'binary_float' });
    expect([r.reduced_annual_pct, r.annual_basic_eligibility_sub, ...equalSubs(r)]).toEqual([69, 1552, 776, 776]);
  });

  it('Grad PLUS gap before the reduction: (35,000 − 20,500) × 78% = 11,310 (the published old reading)', () => {
    const r = under(input('REF-GP-AFTER-REDUCTION'), { gradPlusBase: 'before_reduction' });
    expect([r.annual_basic_eligibility_unsub, r.annual_basic_eligibility_grad_plus]).toEqual([15990, 11310]);
    expect(r.terms.map((t) => t.equal.grad_plus)).toEqual([5655, 5655]);
  });

  it('closed terms recomputed: FSA-4 1,660 over three eligible terms → 554 + 553 + 553', () => {
    const r = under(input('FSA-4'), { closedTerms: 'recomputed' });
    expect([r.annual_basic_eligibility_sub, ...equalSubs(r)]).toEqual([1660, 554, 553, 553]);
    // proportional 1,660 × (6, 12, 12) / 30 = 332 + 664 + 664
    expect(r.terms.map((t) => t.proportional!.subsidized)).toEqual([332, 664, 664]);
  });
});

describe('the readings of 2026-27.3 (architecture.md "Shadow check", rules.md §2.3 and §10)', () => {
  it('proration parts rounded: Metro State 1,833 + round(7,000 × 8 ÷ 24) = 1,833 + 2,333 (the rules: 2,334)', () => {
    const i = input('REF-FINAL-PERIOD-METRO');
    expect(calculate(i).annual_basic_eligibility_unsub).toBe(2334);
    const r = under(i, { prorationLimits: 'parts_rounded' });
    expect([r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub]).toEqual([1833, 2333]);
  });

  it('proration decimal: Metro State 8/24 = 0.333… → 0.33: 5,500 × 0.33 = 1,815, 12,500 × 0.33 = 4,125 → 2,310', () => {
    const i = input('REF-FINAL-PERIOD-METRO');
    for (const fraction of ['decimal_rounded', 'decimal_truncated'] as const) {
      const r = under(i, { prorationFraction: fraction });
      expect([r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub], fraction).toEqual([1815, 2310]);
    }
  });

  it('single term on half the annual amount: FSA-2 9 of 12 → round(3,500 × 75 ÷ 200) = 1,313 (the rules: 2,625)', () => {
    const r = under(input('FSA-2'), { singleTermBasis: 'half_annual' });
    expect([r.reduced_annual_pct, r.annual_basic_eligibility_sub, ...equalSubs(r)]).toEqual([75, 1313, 1313]);
  });

  it('below-half-time term dropped: fall 12/12 + spring 3/12 → 12/12 = 100% (the rules: 15/24 = 63%)', () => {
    const i = input('FSA-1', (r) => {
      const terms = r.terms as Record<string, unknown>[];
      terms[0]!.credits_enrolled = 12;
      terms[1]!.credits_enrolled = 3;
    });
    expect(calculate(i).reduced_annual_pct).toBe(63);
    const r = under(i, { belowHalfTimeTerms: 'dropped' });
    // 3,500 at 100% → all of it on fall; total_limit 5,500 − 3,500 = 2,000 unsub likewise.
    expect([r.reduced_annual_pct, r.annual_basic_eligibility_sub, ...equalSubs(r)]).toEqual([100, 3500, 3500, 0]);
    // a 0-credit term is not enrolled, not below half time: kept (12 of 24 → 50%)
    const notEnrolled = input('FSA-1', (r) => {
      const terms = r.terms as Record<string, unknown>[];
      terms[0]!.credits_enrolled = 12;
      terms[1]!.credits_enrolled = 0;
    });
    expect(under(notEnrolled, { belowHalfTimeTerms: 'dropped' }).reduced_annual_pct).toBe(50);
  });

  it('the reasons in the architecture table’s order, each a change on top of any base readings', () => {
    expect(CHECK_REASONS).toEqual([
      'option_mismatch',
      'remainder_placement',
      'below_half_time_excluded',
      'percent_not_rounded',
      'binary_float',
      'grad_plus_gap_before_reduction',
      'paid_term_recomputed',
      'proration_parts_rounded',
      'proration_decimal',
      'single_term_half_annual',
      'below_half_time_term_dropped',
      'unexplained',
    ]);
    expect(Object.keys(REASON_CHANGES)).toEqual(CHECK_REASONS.slice(1, -1));
    for (const [reason, changes] of Object.entries(REASON_CHANGES)) {
      // Over the service's readings: every change but one it already is (the exact fraction of proration_decimal).
      const tried = changes.filter((c) => !(reason === 'proration_decimal' && c.prorationFraction === 'exact'));
      expect(REASON_READINGS[reason as keyof typeof REASON_READINGS]).toEqual(tried.map((c) => readingsWith(c)));
      expect(readingsForReason(SERVICE_READINGS, reason as keyof typeof REASON_CHANGES)).toBe(
        REASON_READINGS[reason as keyof typeof REASON_READINGS],
      );
    }
    // Over a policy's readings: a change the policy already has is left out (the reason is skipped when none is left).
    const policy = readingsForPolicy(
      resolvePolicy({ proration_fraction: 'decimal_rounded', remainder_placement: 'last_term' }),
    );
    expect(readingsForReason(policy, 'remainder_placement')).toEqual([]);
    // proration_decimal: the fraction in the forms the policy does not use (the other decimal, then exact).
    expect(readingsForReason(policy, 'proration_decimal')).toEqual([
      readingsOver(policy, { prorationFraction: 'decimal_truncated' }),
      readingsOver(policy, { prorationFraction: 'exact' }),
    ]);
    expect(readingsForReason(policy, 'binary_float')).toEqual([readingsOver(policy, { arithmetic: 'binary_float' })]);
    expect(readingsForReason(policy, 'binary_float')).toBe(readingsForReason(policy, 'binary_float')); // cached
  });
});

describe('figuresUnder', () => {
  it('gives calculate()’s percentage and term amounts for every example under every reading', () => {
    const all = [SERVICE_READINGS, ...Object.values(REASON_READINGS).flat()];
    const variants = EXAMPLES.flatMap((ex) => [
      input(ex.id),
      // the same students with a below-half-time first term and a payment on it (closed)
      input(ex.id, (r) => {
        const first = (r.terms as Record<string, unknown>[])[0]!;
        first.credits_enrolled = Number(first.full_time_credits) / 4;
        first.prior_disbursement_unsub = 1000;
      }),
    ]);
    for (const i of variants) {
      for (const readings of all) {
        const full = calculate(i, STATUTORY_LIMIT_TABLE, readings);
        expect(figuresUnder(i, readings)).toEqual({
          reduced_annual_pct: full.reduced_annual_pct,
          equal: full.terms.map((t) => t.equal),
          proportional: full.show_both_options ? full.terms.map((t) => t.proportional) : null,
        });
        if (readings === SERVICE_READINGS) continue;
        const quick = new StudentFigures(i).annualsUnder(readings);
        expect([quick.percent, ...quick.annual]).toEqual([
          full.reduced_annual_pct,
          full.annual_basic_eligibility_sub,
          full.annual_basic_eligibility_unsub,
          full.annual_basic_eligibility_grad_plus,
        ]);
        if (quick.allOpen && quick.anyEligible) {
          // every dollar of the year is spread over the terms, in both options
          const sum = (k: 'subsidized' | 'unsubsidized' | 'grad_plus') =>
            full.terms.reduce((a, t) => a + t.equal[k], 0);
          expect([sum('subsidized'), sum('unsubsidized'), sum('grad_plus')]).toEqual(quick.annual);
        }
      }
    }
  });
});
