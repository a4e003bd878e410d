/**
 * rules.md §6: recalculation after disbursements. Closed terms, remaining, over-disbursement, unscheduled
 * money, the baseline, adjustments and their source index, final_term_overdisbursement.
 * Every case is a dependent first-year with total_limit 3,500 so only the subsidized loan moves (sub 3,500).
 */

import { describe, expect, it } from 'vitest';
import { calculate } from '../../src/domain/calculate.ts';
import { adjustmentSourceIndex } from '../../src/domain/recalculation.ts';
import { type WireTerm, student, term, toInput } from './support/input.ts';

const subOnly = (terms: WireTerm[]) => calculate(toInput(student(terms, { total_limit: 3500 })));
const subs = (r: ReturnType<typeof subOnly>, option: 'equal' | 'proportional' = 'equal') =>
  r.terms.map((t) => (option === 'equal' ? t.equal.subsidized : t.proportional?.subsidized));

describe('§6 FSA example 4: a drop after a disbursement', () => {
  // Sub 2,000 (need-limited). Revision: 6 + 12 + 12 = 30/36 = 83.33% → 83%; 2,000 × 83% = 1,660.
  // Remaining 1,660 − 502 = 1,158 → 579 + 579. Baseline: 9 + 12 + 12 = 33/36 → 92% → 1,840 − 502 = 1,338 →
  // 669 + 669. Adjustments 579 − 669 = −90 on Spring and Summer, source index 0.
  const r = calculate(
    toInput(
      student(
        [
          term('Fall', 12, 9, { actual_final_credits: 6, prior_disbursement_sub: 502 }),
          term('Spring', 12, 12),
          term('Summer', 12, 12),
        ],
        { subsidized_amount: 2000, total_limit: 2000 },
      ),
    ),
  );

  it('keeps the closed term and spreads what is left', () => {
    expect(r.reduced_annual_pct).toBe(83);
    expect(r.annual_basic_eligibility_sub).toBe(1660);
    expect(subs(r)).toEqual([502, 579, 579]);
    expect(subs(r, 'proportional')).toEqual([502, 579, 579]);
    expect(r.total_equal.subsidized).toBe(1660);
  });

  it('reports −90 adjustments against the baseline with source index 0 and an explanation', () => {
    expect(r.terms.map((t) => t.adjustment_sub)).toEqual([0, -90, -90]);
    expect(r.terms.map((t) => t.adjustment_source_index)).toEqual([null, 0, 0]);
    expect(r.terms[0]!.adjustment_explanation).toBe('');
    const text = r.terms[1]!.adjustment_explanation;
    expect(text).toMatch(/Fall from 9 to 6 credits/);
    expect(text).toMatch(/92% to 83%/);
    expect(text).toMatch(/\$1,840 to \$1,660/);
    expect(text).toMatch(/-\$90 subsidized/);
  });
});

describe('§6 EDSCN-2: an overload in an unpaid term raises its disbursement', () => {
  // Fall 6 paid 875 (closed); Spring enrolled 12, final 18 (open): 24/24 = 100% → 3,500 − 875 = 2,625.
  // Baseline 6 + 12 = 18/24 = 75% → 2,625 − 875 = 1,750. Adjustment +875, source index 1.
  const r = subOnly([
    term('Fall', 12, 6, { actual_final_credits: 6, prior_disbursement_sub: 875 }),
    term('Spring', 12, 12, { actual_final_credits: 18 }),
  ]);

  it('final credits alone do not close a term', () => {
    expect(subs(r)).toEqual([875, 2625]);
    expect(r.terms[1]!.adjustment_sub).toBe(875);
    expect(r.terms[1]!.adjustment_source_index).toBe(1);
    expect(r.terms[1]!.adjustment_explanation).toMatch(/\+\$875 subsidized/);
    // Fall's final credits equal its enrolled credits: not a change.
    expect(r.terms[0]!.adjustment_source_index).toBeNull();
  });
});

describe('§6 closed terms', () => {
  it('any prior disbursement > 0 closes a term; it keeps exactly its priors in both options and gets nothing new', () => {
    // 9 + 9 of 24 = 75%: sub 2,625, unsub 2,000 × 75% = 1,500. Fall paid 100 unsub only (closed):
    // Fall keeps sub 0 and unsub 100; Spring gets sub 2,625 and unsub 1,400.
    const r = calculate(
      toInput(student([term('Fall', 12, 9, { prior_disbursement_unsub: 100 }), term('Spring', 12, 9)], {})),
    );
    expect(r.terms[0]!.equal).toEqual({ subsidized: 0, unsubsidized: 100, grad_plus: 0 });
    expect(r.terms[0]!.proportional).toEqual({ subsidized: 0, unsubsidized: 100, grad_plus: 0 });
    expect(r.terms[1]!.equal).toEqual({ subsidized: 2625, unsubsidized: 1400, grad_plus: 0 });
    expect(r.total_equal).toEqual({ subsidized: 2625, unsubsidized: 1500, grad_plus: 0 });
  });

  it('an actual credit value equal to the enrolled value is not a change ("12" vs "12.00")', () => {
    const r = subOnly([term('Fall', 12, 12, { actual_final_credits: '12.00' }), term('Spring', 12, 6)]);
    expect(r.terms.map((t) => t.adjustment_source_index)).toEqual([null, null]);
    expect(r.terms.map((t) => t.adjustment_explanation)).toEqual(['', '']);
  });
});

describe('§6 over-disbursement', () => {
  // Fall enrolled 12, paid 2,000, final 6; Spring 6. Revision: 12/24 = 50% → 1,750; remaining 1,750 − 2,000
  // = −250 → Spring 0 in both options, warning with $250. Baseline: 18/24 = 75% → 2,625 − 2,000 = 625 → Spring
  // 625; adjustment 0 − 625 = −625, source index 0.
  const r = subOnly([
    term('Fall', 12, 12, { actual_final_credits: 6, prior_disbursement_sub: 2000 }),
    term('Spring', 12, 6),
  ]);

  it('open terms get 0 and the excess is reported', () => {
    expect(r.annual_basic_eligibility_sub).toBe(1750);
    expect(subs(r)).toEqual([2000, 0]);
    expect(subs(r, 'proportional')).toEqual([2000, 0]);
    expect(r.total_equal.subsidized).toBe(2000);
    expect(r.warnings.join(' ')).toMatch(/\$2,000 was already disbursed.*\$1,750.*excess of \$250/);
    expect(r.terms[1]!.adjustment_sub).toBe(-625);
    expect(r.terms[1]!.adjustment_source_index).toBe(0);
    // The last term is open: not a final-term over-disbursement.
    expect(r.terms.map((t) => t.final_term_overdisbursement)).toEqual([false, false]);
  });
});

describe('§6 unscheduled money', () => {
  // Fall paid 875 (6 credits); Spring final 3 (below half time, open). Revision: 9/24 = 37.5% → 38% → 1,330;
  // remaining 1,330 − 875 = 455 and no open eligible term: unscheduled, totals 875. Baseline: Spring 12 →
  // 18/24 = 75% → 2,625 − 875 = 1,750 to Spring; adjustment 0 − 1,750 = −1,750, source index 1.
  const r = subOnly([
    term('Fall', 12, 6, { prior_disbursement_sub: 875 }),
    term('Spring', 12, 12, { actual_final_credits: 3 }),
  ]);

  it('totals fall short of the annual amount and a warning gives the amount', () => {
    expect(r.annual_basic_eligibility_sub).toBe(1330);
    expect(subs(r)).toEqual([875, 0]);
    expect(r.total_equal.subsidized).toBe(875);
    expect(r.warnings.join(' ')).toMatch(/\$455 of the \$1,330 subsidized annual amount is not scheduled/);
    expect(r.terms[1]!.adjustment_sub).toBe(-1750);
    expect(r.terms[1]!.adjustment_source_index).toBe(1);
  });
});

describe('§6 final_term_overdisbursement', () => {
  it('is true on the last term when it is closed and the priors exceed the revised annual amount', () => {
    // Both terms paid 1,750 (planned 12 + 12 → 100% → 3,500); Spring's final credits 6: 18/24 = 75% → 2,625.
    // Paid 3,500 > 2,625: excess 875, after the final disbursement.
    const r = subOnly([
      term('Fall', 12, 12, { prior_disbursement_sub: 1750 }),
      term('Spring', 12, 12, { actual_final_credits: 6, prior_disbursement_sub: 1750 }),
    ]);
    expect(r.annual_basic_eligibility_sub).toBe(2625);
    expect(subs(r)).toEqual([1750, 1750]);
    expect(r.terms.map((t) => t.final_term_overdisbursement)).toEqual([false, true]);
    const warning = r.terms[1]!.warning;
    expect(warning).toMatch(/\$3,500 subsidized disbursed against a revised annual amount of \$2,625 \(excess \$875\)/);
    expect(warning).toMatch(/no reduction is required/);
    expect(warning).toMatch(/may choose to return the excess/);
    expect(r.terms[0]!.warning).toBe('');
    // Closed terms carry no adjustments.
    expect(r.terms.map((t) => [t.adjustment_sub, t.adjustment_source_index])).toEqual([
      [0, null],
      [0, null],
    ]);
  });

  it('is false when the last term is closed but nothing is in excess', () => {
    const r = subOnly([
      term('Fall', 12, 12, { prior_disbursement_sub: 1750 }),
      term('Spring', 12, 12, { prior_disbursement_sub: 1750 }),
    ]);
    expect(r.terms.map((t) => t.final_term_overdisbursement)).toEqual([false, false]);
  });
});

describe('§6 adjustment_source_index', () => {
  it('is the last change at or before j, else the first change after j', () => {
    expect(adjustmentSourceIndex([2], 0)).toBe(2);
    expect(adjustmentSourceIndex([2], 2)).toBe(2);
    expect(adjustmentSourceIndex([2], 3)).toBe(2);
    expect(adjustmentSourceIndex([0, 2], 1)).toBe(0);
    expect(adjustmentSourceIndex([0, 2], 3)).toBe(2);
    expect(adjustmentSourceIndex([1, 3], 0)).toBe(1);
    expect(adjustmentSourceIndex([], 1)).toBeNull();
  });

  it('a change in the last quarter moves every open term, each pointing at it', () => {
    // 12 + 12 + 6 (final; enrolled 12) of 36 = 83.33% → 83%: 3,500 × 83% = 2,905 → 969 + 968 + 968.
    // Baseline 100% → 3,500 → 1,167 + 1,167 + 1,166. Adjustments −198, −199, −198 (Σ −595 = 2,905 − 3,500).
    const r = subOnly([
      term('Fall', 12, 12),
      term('Winter', 12, 12),
      term('Spring', 12, 12, { actual_final_credits: 6 }),
    ]);
    expect(subs(r)).toEqual([969, 968, 968]);
    expect(r.terms.map((t) => t.adjustment_sub)).toEqual([-198, -199, -198]);
    expect(r.terms.map((t) => t.adjustment_source_index)).toEqual([2, 2, 2]);
  });

  it('with changes in terms 0 and 2, term 1 points at 0 and term 3 at 2', () => {
    // Enrolled 12 × 4 (100% → 3,500). Final: Q1 9, Q3 9 → 42/48 = 87.5% → 88% → 3,080 → 770 × 4.
    // Baseline 3,500 → 875 × 4. Adjustments −105 each.
    const r = subOnly([
      term('Q1', 12, 12, { actual_final_credits: 9 }),
      term('Q2', 12, 12),
      term('Q3', 12, 12, { actual_final_credits: 9 }),
      term('Q4', 12, 12),
    ]);
    expect(subs(r)).toEqual([770, 770, 770, 770]);
    expect(r.terms.map((t) => t.adjustment_sub)).toEqual([-105, -105, -105, -105]);
    expect(r.terms.map((t) => t.adjustment_source_index)).toEqual([0, 0, 2, 2]);
    expect(r.terms[1]!.adjustment_explanation).toMatch(/Q1 from 12 to 9 credits and Q3 from 12 to 9 credits/);
  });

  it('is null where the adjustments are all 0 even though a change exists', () => {
    // Fall paid 1,000 with final 6 (enrolled 9); Spring 12. Revision 18/24 = 75% → 2,625 − 1,000 = 1,625.
    // Baseline 21/24 = 87.5% → 88% → 3,080 − 1,000 = 2,080. Spring adjustment −455, source 0; Fall closed: null.
    const r = subOnly([
      term('Fall', 12, 9, { actual_final_credits: 6, prior_disbursement_sub: 1000 }),
      term('Spring', 12, 12),
    ]);
    expect(subs(r)).toEqual([1000, 1625]);
    expect(r.terms.map((t) => t.adjustment_sub)).toEqual([0, -455]);
    expect(r.terms.map((t) => t.adjustment_source_index)).toEqual([null, 0]);
    // A change that does not move the percentage: 12 + 12 + 12 enrolled, Fall final 12.4 → still 100%.
    const same = subOnly([term('Fall', 12, 12, { actual_final_credits: '12.4' }), term('Spring', 12, 12)]);
    expect(same.terms.map((t) => [t.adjustment_sub, t.adjustment_source_index])).toEqual([
      [0, null],
      [0, null],
    ]);
  });

  it('a change that keeps the percentage but drops a term below half time still moves the money', () => {
    // Revision 5.9 + 12 = 17.9/24 → 75% → 2,625, all to Spring (Fall 5.9 of 12 is below half time).
    // Baseline 6 + 12 = 18/24 = 75% → 2,625 = 1,313 + 1,312. Adjustments −1,313 and +1,313, both from term 0.
    const r = subOnly([term('Fall', 12, 6, { actual_final_credits: '5.9' }), term('Spring', 12, 12)]);
    expect(r.reduced_annual_pct).toBe(75);
    expect(subs(r)).toEqual([0, 2625]);
    expect(r.terms.map((t) => [t.adjustment_sub, t.adjustment_source_index])).toEqual([
      [-1313, 0],
      [1313, 0],
    ]);
    expect(r.terms[1]!.adjustment_explanation).toMatch(/the academic-year percentage stayed at 75%/);
  });
});
