/**
 * The readings parameter of the engine (src/domain/readings.ts): the service's readings are the default and change
 * nothing; each other reading gives the figures worked out by hand below from the published examples and the
 * reading's definition (architecture.md "Shadow check").
 */
import { describe, expect, it } from 'vitest';
import { calculate } from '../../src/domain/calculate.ts';
import { STATUTORY_LIMIT_TABLE } from '../../src/domain/limits.ts';
import { StudentFigures, figuresUnder } from '../../src/domain/figures.ts';
import {
  REASON_READINGS,
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
