/**
 * rules.md §2: the statutory limit table (every row), the starting amounts and the caps in their order
 * (statutory subsidized max, then total_limit, then cost of attendance on Sub + Unsub: unsubsidized →
 * subsidized), legacy Grad PLUS sized after the reduction = max(0, COA − reduced sub − reduced unsub), capped by
 * total_limit − sub − unsub and reduced once, and the warnings of each binding cap. Full-time students
 * (100%) show the starting amounts directly as annual amounts; the arithmetic is in the comments.
 */

import { healthProfessionsIncrease } from '../../src/domain/health-professions.ts';
import { describe, expect, it } from 'vitest';
import { startingAmounts } from '../../src/domain/bases.ts';
import { calculate } from '../../src/domain/calculate.ts';
import { STATUTORY_LIMITS, lookupStatutoryLimit } from '../../src/domain/limits.ts';
import type { GradeLevel } from '../../src/domain/types.ts';
import { type WireRequest, student, term, toInput } from './support/input.ts';

const fullTimeYear = [term('Fall', 12, 12), term('Spring', 12, 12)];

function annual(request: WireRequest) {
  const r = calculate(toInput(request));
  return {
    sub: r.annual_basic_eligibility_sub,
    unsub: r.annual_basic_eligibility_unsub,
    gradPlus: r.annual_basic_eligibility_grad_plus,
    // Full-time years always add the "proportional not offered (100%)" sentence; §5 tests cover it.
    warnings: r.warnings.filter((w) => !w.startsWith('Proportional disbursement is not offered')),
  };
}

describe('§2.1 the statutory limit table', () => {
  it('holds one cited row per kind of student, effective 2026-07-01', () => {
    expect(STATUTORY_LIMITS).toHaveLength(10);
    for (const row of STATUTORY_LIMITS) {
      expect(row.effective).toBe('2026-07-01');
      expect(row.awardYear).toBe('2026-27');
      expect(row.citation).toMatch(/HEA §455\(a\)/);
      expect(row.citation).toMatch(/34 CFR 685\.20[03]/);
    }
    // rules.md §0: the $20,500 / $50,000 figures cite HEA §455(a)(4) and 91 FR 23883, not the CFR paragraph whose
    // amendment the eCFR could not complete.
    for (const row of STATUTORY_LIMITS.filter((r) => r.degree !== 'undergraduate')) {
      expect(row.citation).toMatch(/HEA §455\(a\)\(4\)/);
      expect(row.citation).toMatch(/91 FR 23883/);
      expect(row.citation).not.toMatch(/685\.203\(b\)\(2\)\(iv\)/);
    }
    expect(new Set(STATUTORY_LIMITS.map((r) => r.id)).size).toBe(10);
  });

  const undergraduateRows: [string, 'dependent' | 'independent', boolean, GradeLevel, number, number][] = [
    ['dependent first year', 'dependent', false, 'first_year', 3500, 5500],
    ['dependent second year', 'dependent', false, 'second_year', 4500, 6500],
    ['dependent third year and beyond', 'dependent', false, 'third_year_and_beyond', 5500, 7500],
    ['independent first year', 'independent', false, 'first_year', 3500, 9500],
    ['independent second year', 'independent', false, 'second_year', 4500, 10500],
    ['independent third year and beyond', 'independent', false, 'third_year_and_beyond', 5500, 12500],
    ['dependent first year, parent denied PLUS', 'dependent', true, 'first_year', 3500, 9500],
    ['dependent second year, parent denied PLUS', 'dependent', true, 'second_year', 4500, 10500],
    ['dependent third year, parent denied PLUS', 'dependent', true, 'third_year_and_beyond', 5500, 12500],
  ];

  for (const [name, dependency, plusDenied, grade, subMax, combinedMax] of undergraduateRows) {
    it(`undergraduate ${name}: sub ${subMax}, combined ${combinedMax}`, () => {
      const row = lookupStatutoryLimit({
        awardYear: '2026-27',
        degree: 'undergraduate',
        dependency,
        plusDenied,
        grade,
        legacy: false,
      });
      expect([row.subsidizedMax, row.combinedMax, row.gradPlus]).toEqual([String(subMax), String(combinedMax), 'none']);
      // Full need at full time: sub = the max, unsub = combined − sub, no Grad PLUS.
      const a = annual(
        student(fullTimeYear, {
          dependency_status: dependency,
          plus_denied: plusDenied,
          grade_level: grade,
          subsidized_amount: subMax,
        }),
      );
      expect([a.sub, a.unsub, a.gradPlus]).toEqual([subMax, combinedMax - subMax, 0]);
      // An undergraduate's is_legacy_borrower changes nothing (and is warned about).
      const legacy = annual(
        student(fullTimeYear, {
          dependency_status: dependency,
          plus_denied: plusDenied,
          grade_level: grade,
          subsidized_amount: subMax,
          is_legacy_borrower: true,
        }),
      );
      expect([legacy.sub, legacy.unsub, legacy.gradPlus]).toEqual([a.sub, a.unsub, a.gradPlus]);
    });
  }

  it('graduate, not legacy: 0 sub, 20,500 unsub, no Grad PLUS', () => {
    const row = lookupStatutoryLimit({
      awardYear: '2026-27',
      degree: 'graduate',
      dependency: 'independent',
      plusDenied: false,
      grade: null,
      legacy: false,
    });
    expect([row.subsidizedMax, row.combinedMax, row.gradPlus]).toEqual(['0', '20500', 'none']);
    const a = annual(student(fullTimeYear, { degree_level: 'graduate', grade_level: null, subsidized_amount: 0 }));
    expect([a.sub, a.unsub, a.gradPlus]).toEqual([0, 20500, 0]);
  });

  it('professional, not legacy: 0 sub, 50,000 unsub, no Grad PLUS', () => {
    const row = lookupStatutoryLimit({
      awardYear: '2026-27',
      degree: 'professional',
      dependency: 'dependent',
      plusDenied: false,
      grade: null,
      legacy: false,
    });
    expect([row.subsidizedMax, row.combinedMax, row.gradPlus]).toEqual(['0', '50000', 'none']);
    const a = annual(student(fullTimeYear, { degree_level: 'professional', grade_level: null, subsidized_amount: 0 }));
    expect([a.sub, a.unsub, a.gradPlus]).toEqual([0, 50000, 0]);
  });

  for (const degree of ['graduate', 'professional'] as const) {
    it(`${degree}, legacy: 0 sub, 20,500 unsub, Grad PLUS up to cost of attendance`, () => {
      const row = lookupStatutoryLimit({
        awardYear: '2026-27',
        degree,
        dependency: 'independent',
        plusDenied: false,
        grade: null,
        legacy: true,
      });
      expect([row.subsidizedMax, row.combinedMax, row.gradPlus]).toEqual(['0', '20500', 'cost_of_attendance']);
      // Grad PLUS = 60,000 − 0 − 20,500 = 39,500.
      const a = annual(
        student(fullTimeYear, {
          degree_level: degree,
          grade_level: null,
          subsidized_amount: 0,
          is_legacy_borrower: true,
          cost_of_attendance: 60000,
        }),
      );
      expect([a.sub, a.unsub, a.gradPlus]).toEqual([0, 20500, 39500]);
    });
  }

  it('refuses an undergraduate without a grade level (the schema rejects it first)', () => {
    expect(() =>
      lookupStatutoryLimit({
        awardYear: '2026-27',
        degree: 'undergraduate',
        dependency: 'dependent',
        plusDenied: false,
        grade: null,
        legacy: false,
      }),
    ).toThrow();
  });
});

describe('§2.2 starting amounts', () => {
  it('need-limited subsidized: sub 2,000; the unused 1,500 shifts to unsub (5,500 − 2,000 = 3,500)', () => {
    const a = annual(student(fullTimeYear, { subsidized_amount: 2000 }));
    expect([a.sub, a.unsub]).toEqual([2000, 3500]);
    expect(a.warnings).toEqual([]);
  });

  it('subsidized_amount 0 (the default): everything is unsubsidized', () => {
    const a = annual(student(fullTimeYear, { subsidized_amount: 0 }));
    expect([a.sub, a.unsub]).toEqual([0, 5500]);
  });

  it('binding statutory subsidized max: 4,000 asked of a 3,500 max → sub 3,500, unsub 2,000, warning', () => {
    const a = annual(student(fullTimeYear, { subsidized_amount: 4000 }));
    expect([a.sub, a.unsub]).toEqual([3500, 2000]);
    expect(a.warnings.join(' ')).toMatch(/\$4,000 exceeds the statutory subsidized maximum of \$3,500/);
  });

  it('graduate subsidized_amount is ignored (sub 0) with a warning', () => {
    const a = annual(student(fullTimeYear, { degree_level: 'graduate', grade_level: null, subsidized_amount: 5000 }));
    expect([a.sub, a.unsub]).toEqual([0, 20500]);
    expect(a.warnings.join(' ')).toMatch(/subsidized_amount of \$5,000 was ignored/);
  });

  it('binding total_limit lowers unsubsidized before subsidized: 5,500 → 4,000 gives 3,500 + 500', () => {
    const a = annual(student(fullTimeYear, { total_limit: 4000 }));
    expect([a.sub, a.unsub]).toEqual([3500, 500]); // excess 1,500 taken from unsub 2,000
    expect(a.warnings.join(' ')).toMatch(/total_limit.*\$4,000.*\$5,500/);
  });

  it('a total_limit below the subsidized amount lowers subsidized too: 3,000 → 3,000 + 0', () => {
    const a = annual(student(fullTimeYear, { total_limit: 3000 }));
    expect([a.sub, a.unsub]).toEqual([3000, 0]); // excess 2,500: unsub 2,000 then sub 500
  });

  it('a total_limit at or above the statutory combined limit changes nothing and does not warn', () => {
    for (const limit of [5500, 9999999]) {
      const a = annual(student(fullTimeYear, { total_limit: limit }));
      expect([a.sub, a.unsub]).toEqual([3500, 2000]);
      expect(a.warnings).toEqual([]);
    }
  });

  it('total_limit caps the Grad PLUS base: legacy COA 40,000, limit 30,000 → Grad PLUS 9,500', () => {
    // Sub + Unsub 20,500 fit under 30,000. Full time (100%): Grad PLUS gap = 40,000 − 20,500 = 19,500, capped
    // at total_limit − sub − unsub = 30,000 − 20,500 = 9,500.
    const a = annual(
      student(fullTimeYear, {
        degree_level: 'graduate',
        grade_level: null,
        is_legacy_borrower: true,
        cost_of_attendance: 40000,
        total_limit: 30000,
      }),
    );
    expect([a.sub, a.unsub, a.gradPlus]).toEqual([0, 20500, 9500]);
    expect(a.warnings.join(' ')).toMatch(
      /total_limit.*\$30,000 leaves \$9,500 for Grad PLUS.*from \$19,500.*to \$9,500/,
    );
  });

  it('binding cost of attendance for an undergraduate: COA 4,000 → 3,500 + 500; COA 3,000 → 3,000 + 0', () => {
    const a = annual(student(fullTimeYear, { cost_of_attendance: 4000 }));
    expect([a.sub, a.unsub]).toEqual([3500, 500]);
    expect(a.warnings.join(' ')).toMatch(/cost of attendance.*\$4,000.*\$5,500/);
    const b = annual(student(fullTimeYear, { cost_of_attendance: 3000 }));
    expect([b.sub, b.unsub]).toEqual([3000, 0]);
  });

  it('cost of attendance binds a legacy borrower too: COA 15,000 → Grad PLUS 0, unsub 15,000', () => {
    // Grad PLUS = max(0, 15,000 − 0 − 20,500) = 0; then 20,500 > 15,000 lowers unsub to 15,000.
    const a = annual(
      student(fullTimeYear, {
        degree_level: 'professional',
        grade_level: null,
        is_legacy_borrower: true,
        cost_of_attendance: 15000,
      }),
    );
    expect([a.sub, a.unsub, a.gradPlus]).toEqual([0, 15000, 0]);
    expect(a.warnings.join(' ')).toMatch(/cost of attendance.*\$15,000.*\$20,500/);
  });

  it('total_limit applies before cost of attendance: limit 5,000 then COA 4,500 → 3,500 + 1,000', () => {
    // 5,500 → limit 5,000: unsub 1,500; → COA 4,500: unsub 1,000.
    const a = annual(student(fullTimeYear, { total_limit: 5000, cost_of_attendance: 4500 }));
    expect([a.sub, a.unsub]).toEqual([3500, 1000]);
    expect(a.warnings).toHaveLength(2);
  });

  it('Grad PLUS is 0 with a reason: plus_denied, no cost of attendance, or not a legacy borrower', () => {
    const grad = { degree_level: 'graduate', grade_level: null } as const;
    const denied = annual(
      student(fullTimeYear, { ...grad, is_legacy_borrower: true, plus_denied: true, cost_of_attendance: 60000 }),
    );
    expect(denied.gradPlus).toBe(0);
    expect(denied.warnings.join(' ')).toMatch(/Grad PLUS is \$0 because plus_denied/);

    const noCoa = annual(student(fullTimeYear, { ...grad, is_legacy_borrower: true }));
    expect(noCoa.gradPlus).toBe(0);
    expect(noCoa.warnings.join(' ')).toMatch(/Grad PLUS is \$0 because cost_of_attendance was not provided/);

    const notLegacy = annual(student(fullTimeYear, { ...grad, cost_of_attendance: 60000 }));
    expect([notLegacy.unsub, notLegacy.gradPlus]).toEqual([20500, 0]);
    expect(notLegacy.warnings.join(' ')).toMatch(/Grad PLUS is closed/);

    // Not legacy and no cost of attendance: Grad PLUS was never in play, no Grad PLUS sentence.
    const quiet = annual(student(fullTimeYear, { ...grad }));
    expect(quiet.warnings.some((w) => w.includes('Grad PLUS is'))).toBe(false);
  });

  it('keeps cents in the bases and rounds only the reduced annual amount', () => {
    // Two 6-of-12 terms: 12/24 = 50%. sub 1,001 → 500.5 → 501; unsub 5,500 − 1,001 = 4,499 → 2,249.5 → 2,250.
    const half = [term('Fall', 12, 6), term('Spring', 12, 6)];
    const a = annual(student(half, { subsidized_amount: 1001 }));
    expect([a.sub, a.unsub]).toEqual([501, 2250]);
    // sub 1,000.50 → 500.25 → 500; unsub 4,499.50 → 2,249.75 → 2,250.
    const b = annual(student(half, { subsidized_amount: '1000.50' }));
    expect([b.sub, b.unsub]).toEqual([500, 2250]);
  });

  it('startingAmounts reports the statutory row used', () => {
    const s = startingAmounts(
      toInput(student(fullTimeYear, { dependency_status: 'independent', grade_level: 'second_year' })),
    );
    expect(s.limit.id).toBe('ug-ind-2');
    expect([s.sub.toNumber(), s.unsub.toNumber(), s.gradPlus]).toEqual([3500, 7000, null]);
  });
});

describe('§2.2 reduction applies to each loan type separately', () => {
  it('legacy graduate at 75%: unsub 20,500 → 15,375 and Grad PLUS (50,000 − 15,375) → 25,969, each split on its own', () => {
    // Terms of 6 full-time credits, 6 + 3 enrolled: 9/12 = 75%. Unsub 20,500 × 75% = 15,375.
    // Grad PLUS after the reduction: base = 50,000 − 0 − 15,375 = 34,625 → 34,625 × 75% = 25,968.75 → 25,969.
    const r = calculate(
      toInput(
        student([term('Term 1', 6, 6), term('Term 2', 6, 3)], {
          dependency_status: 'independent',
          degree_level: 'graduate',
          grade_level: null,
          subsidized_amount: 0,
          is_legacy_borrower: true,
          cost_of_attendance: 50000,
        }),
      ),
    );
    expect(r.reduced_annual_pct).toBe(75);
    expect([r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub]).toEqual([0, 15375]);
    expect(r.annual_basic_eligibility_grad_plus).toBe(25969);
    // Equal: 15,375/2 = 7,687.5 → 7,688 + 7,687; 25,969/2 = 12,984.5 → 12,985 + 12,984.
    expect(r.terms.map((t) => t.equal)).toEqual([
      { subsidized: 0, unsubsidized: 7688, grad_plus: 12985 },
      { subsidized: 0, unsubsidized: 7687, grad_plus: 12984 },
    ]);
    // Proportional 6/9 and 3/9: 15,375 → 10,250 + 5,125; 25,969 → 17,312.67 + 8,656.33: floors 17,312 + 8,656,
    // the missing dollar to the larger remainder (.67) → 17,313 + 8,656.
    expect(r.terms.map((t) => t.proportional)).toEqual([
      { subsidized: 0, unsubsidized: 10250, grad_plus: 17313 },
      { subsidized: 0, unsubsidized: 5125, grad_plus: 8656 },
    ]);
    expect(r.total_equal).toEqual({ subsidized: 0, unsubsidized: 15375, grad_plus: 25969 });
    expect(r.warnings.join(' ')).toMatch(/does not exempt.*75%/);
  });
});

describe('§2.3 final period of an undergraduate program (traditional proration, no reduction on top)', () => {
  const finalFall = (enrolled: number, extra: Partial<WireRequest> = {}) =>
    student([term('Fall', 12, enrolled)], { final_period_of_program: true, academic_year_credits: 24, ...extra });

  it("Metro State's example: independent senior, 8 of 12, academic year 24 → 1,833 sub / 2,334 unsub, 100%", () => {
    // fraction 8/24 = 1/3: S'max = round(5,500 / 3) = round(1,833.33) = 1,833; C'max = round(12,500 / 3) =
    // round(4,166.67) = 4,167 (each prorated directly, rules.md §2.3 2026-27.3). sub = min(5,500, 1,833) = 1,833;
    // unsub = 4,167 − 1,833 = 2,334. No reduction on top.
    const r = calculate(
      toInput(
        finalFall(8, {
          dependency_status: 'independent',
          grade_level: 'third_year_and_beyond',
          subsidized_amount: 5500,
        }),
      ),
    );
    expect(r.reduced_annual_pct).toBe(100);
    expect([r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub]).toEqual([1833, 2334]);
    expect(r.show_both_options).toBe(false);
    expect(r.total_equal).toEqual({ subsidized: 1833, unsubsidized: 2334, grad_plus: 0 });
    expect(r.warnings).toContain(
      "Final period of the program, shorter than an academic year (the period's 12 full-time credits are fewer than the academic year's 24): the annual loan limits are prorated (8 of 24 academic-year credits) to $1,833 subsidized and $4,167 combined (34 CFR 685.203(a)(4)–(6), (d); FSA Handbook Vol. 8 ch. 5), and the less-than-full-time reduction is not applied on top.",
    );
    expect(r.warnings.join(' ')).toMatch(/\$5,500 exceeds the prorated subsidized maximum of \$1,833/);
    expect(r.warnings.join(' ')).toMatch(/Proportional disbursement is not offered because the final-period proration/);
    // Without the flag the reduction alone would give 8/12 = 67%: 3,685 / 4,690 (more than the prorated limit).
    const reduced = calculate(
      toInput(
        student([term('Fall', 12, 8)], {
          dependency_status: 'independent',
          grade_level: 'third_year_and_beyond',
          subsidized_amount: 5500,
        }),
      ),
    );
    expect([reduced.annual_basic_eligibility_sub, reduced.annual_basic_eligibility_unsub]).toEqual([3685, 4690]);
  });

  it('rounds each prorated part half up: 9 of 24 → 3,500 × 3/8 = 1,312.5 → 1,313; 2,000 × 3/8 = 750', () => {
    const r = calculate(toInput(finalFall(9)));
    expect([r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub]).toEqual([1313, 750]);
  });

  it('two quarters in a 36-credit year: 12 + 6 of 36 → 1/2 of the limits, split over both terms', () => {
    // 3,500 / 2 = 1,750 and 2,000 / 2 = 1,000; equal split 875 + 875 and 500 + 500; proportional not offered.
    const r = calculate(
      toInput(
        student([term('Winter', 12, 12), term('Spring', 12, 6)], {
          final_period_of_program: true,
          academic_year_credits: 36,
        }),
      ),
    );
    expect([r.reduced_annual_pct, r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub]).toEqual([
      100, 1750, 1000,
    ]);
    expect(r.terms.map((t) => [t.equal.subsidized, t.equal.unsubsidized, t.proportional])).toEqual([
      [875, 500, null],
      [875, 500, null],
    ]);
  });

  it('need, total_limit and cost of attendance still cap the prorated limits', () => {
    // 8 of 24: S'max 1,167 (3,500/3 = 1,166.67), C'max 1,833 (5,500/3 = 1,833.33): need 1,000 → unsub 833.
    const need = calculate(toInput(finalFall(8, { subsidized_amount: 1000 })));
    expect([need.annual_basic_eligibility_sub, need.annual_basic_eligibility_unsub]).toEqual([1000, 833]);
    const limited = calculate(toInput(finalFall(8, { total_limit: 1500 })));
    expect([limited.annual_basic_eligibility_sub, limited.annual_basic_eligibility_unsub]).toEqual([1167, 333]);
    const coa = calculate(toInput(finalFall(8, { cost_of_attendance: 1000 })));
    expect([coa.annual_basic_eligibility_sub, coa.annual_basic_eligibility_unsub]).toEqual([1000, 0]);
  });

  it('an overload never raises a limit: 30 credits of a 24-credit year keeps the statutory 3,500 / 5,500', () => {
    const r = calculate(toInput(finalFall(30)));
    expect([r.reduced_annual_pct, r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub]).toEqual([
      100, 3500, 2000,
    ]);
  });

  it('a period not shorter than the academic year: the normal reduction, with a warning', () => {
    // Σ full time 24 is not < 24: 9 + 9 of 24 = 75% → 2,625 / 1,500.
    const r = calculate(
      toInput(
        student([term('Fall', 12, 9), term('Spring', 12, 9)], {
          final_period_of_program: true,
          academic_year_credits: 24,
        }),
      ),
    );
    expect([r.reduced_annual_pct, r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub]).toEqual([
      75, 2625, 1500,
    ]);
    expect(r.warnings.join(' ')).toMatch(/not shorter than an academic year; no traditional proration/);
  });

  it('a graduate student: ignored with a warning', () => {
    const r = calculate(
      toInput(
        student([term('Fall', 9, 9)], {
          degree_level: 'graduate',
          grade_level: null,
          subsidized_amount: 0,
          final_period_of_program: true,
          academic_year_credits: 18,
        }),
      ),
    );
    expect([r.reduced_annual_pct, r.annual_basic_eligibility_unsub]).toEqual([100, 20500]);
    expect(r.warnings.join(' ')).toMatch(/final_period_of_program and academic_year_credits were ignored .* graduate/);
  });

  it('fixed at origination: final credits 6 instead of 9 do not re-prorate, and a warning says so', () => {
    // credits_enrolled 9 of 24: S'max = 3,500 × 9/24 = 1,312.5 → 1,313; C'max = 5,500 × 9/24 = 2,062.5 → 2,063;
    // sub 1,313, unsub 750. The final 6 credits are still half time (6 ≥ 12 ÷ 2), so Fall is paid as before.
    const r = calculate(toInput(student([term('Fall', 12, 9, { actual_final_credits: 6 })], finalFall(9))));
    expect([r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub]).toEqual([1313, 750]);
    const fall = r.terms[0]!;
    expect([fall.adjustment_sub, fall.adjustment_unsub, fall.adjustment_source_index]).toEqual([0, 0, null]);
    expect(r.warnings.join(' ')).toMatch(/Fall from 9 to 6 credits\), but the final-period proration was not redone/);
  });

  it('fixed at origination: a term whose final credits fall below half time is not paid, the limits stay', () => {
    // Winter 12 + Spring 12 of 36 (24 < 36): P = 24 → S'max 3,500 × 2/3 = 2,333.33 → 2,333; C'max 5,500 × 2/3 =
    // 3,666.67 → 3,667; sub 2,333, unsub 1,334. Spring's final 3 credits are below half time: Spring gets nothing,
    // the limits are not re-prorated; the equal split moves Spring's share to Winter (adjustment +1,166 / +667).
    const r = calculate(
      toInput(
        student([term('Winter', 12, 12), term('Spring', 12, 12, { actual_final_credits: 3 })], {
          final_period_of_program: true,
          academic_year_credits: 36,
        }),
      ),
    );
    expect([r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub]).toEqual([2333, 1334]);
    expect(r.terms.map((t) => [t.equal.subsidized, t.equal.unsubsidized])).toEqual([
      [2333, 1334],
      [0, 0],
    ]);
    expect([r.terms[0]!.adjustment_sub, r.terms[0]!.adjustment_unsub]).toEqual([1166, 667]);
    expect(r.warnings.join(' ')).toMatch(
      /Spring from 12 to 3 credits\), but the final-period proration was not redone/,
    );
  });

  it('Handbook ch. 5 example 5 (exact): fall 12 of 12 + winter 3 of 12, year 36 → only fall counts: 1,833 / 667', () => {
    // Period fall + winter: Σ full time 24 < 36. Winter 3 < 6 is below half time: P = 12. fraction 12/36 = 1/3.
    // S'max = 5,500 / 3 = 1,833.33 → 1,833; C'max = 7,500 / 3 = 2,500; unsub 2,500 − 1,833 = 667. Winter gets 0.
    const r = calculate(
      toInput(
        student([term('Fall', 12, 12), term('Winter', 12, 3)], {
          grade_level: 'third_year_and_beyond',
          subsidized_amount: 5500,
          final_period_of_program: true,
          academic_year_credits: 36,
        }),
      ),
    );
    expect([r.reduced_annual_pct, r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub]).toEqual([
      100, 1833, 667,
    ]);
    expect(r.terms.map((t) => t.equal.subsidized)).toEqual([1833, 0]);
    expect(r.warnings.join(' ')).toMatch(/Winter, below half time, receives no loan and its credits are not counted/);
  });

  it('Handbook ch. 5 example 6 (exact): a 0-credit winter between fall and spring is not in the period: 3,667 / 4,666', () => {
    // Period fall + spring (winter credits_enrolled 0): Σ full time 24 < 36; P = 24; 24/36 = 2/3.
    // S'max = 5,500 × 2/3 = 3,666.67 → 3,667; C'max = 12,500 × 2/3 = 8,333.33 → 8,333; unsub 8,333 − 3,667 = 4,666.
    const r = calculate(
      toInput(
        student([term('Fall', 12, 12), term('Winter', 12, 0), term('Spring', 12, 12)], {
          dependency_status: 'independent',
          grade_level: 'third_year_and_beyond',
          subsidized_amount: 5500,
          final_period_of_program: true,
          academic_year_credits: 36,
        }),
      ),
    );
    expect([r.reduced_annual_pct, r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub]).toEqual([
      100, 3667, 4666,
    ]);
    // The same with the 2-decimal fraction (school policy, rules.md §10): 0.67 → 3,685 / 8,375 − 3,685 = 4,690;
    // truncated 0.66 → 5,500 × 0.66 = 3,630, 12,500 × 0.66 = 8,250 → unsub 4,620.
    const policy = (proration_fraction: 'decimal_rounded' | 'decimal_truncated') =>
      calculate(
        toInput(
          student([term('Fall', 12, 12), term('Winter', 12, 0), term('Spring', 12, 12)], {
            dependency_status: 'independent',
            grade_level: 'third_year_and_beyond',
            subsidized_amount: 5500,
            final_period_of_program: true,
            academic_year_credits: 36,
            policy: { proration_fraction },
          }),
        ),
      );
    const rounded = policy('decimal_rounded');
    expect([rounded.annual_basic_eligibility_sub, rounded.annual_basic_eligibility_unsub]).toEqual([3685, 4690]);
    expect(rounded.warnings[0]).toBe('School policy in force: proration_fraction=decimal_rounded.');
    expect(rounded.warnings.join(' ')).toMatch(/as the decimal 0\.67, rounded to 2 places by school policy/);
    const truncated = policy('decimal_truncated');
    expect([truncated.annual_basic_eligibility_sub, truncated.annual_basic_eligibility_unsub]).toEqual([3630, 4620]);
  });

  it('Handbook ch. 5 example 5 with the decimal 0.33: 5,500 × 0.33 = 1,815, 7,500 × 0.33 = 2,475 → unsub 660', () => {
    const r = calculate(
      toInput(
        student([term('Fall', 12, 12), term('Winter', 12, 3)], {
          grade_level: 'third_year_and_beyond',
          subsidized_amount: 5500,
          final_period_of_program: true,
          academic_year_credits: 36,
          policy: { proration_fraction: 'decimal_rounded' },
        }),
      ),
    );
    expect([r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub]).toEqual([1815, 660]);
  });

  it('every enrolled term below half time: P = 0, the limits are $0', () => {
    // Fall 3 of 12 is the only enrolled term and it is below half time: P = 0 → S'max = C'max = 0.
    const r = calculate(toInput(finalFall(3)));
    expect([r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub]).toEqual([0, 0]);
  });

  it('the §3 "fewer terms" warning is replaced by the proration warning', () => {
    const r = calculate(toInput(finalFall(8, { academic_year_terms: 2 })));
    expect(r.warnings.join(' ')).not.toMatch(/shorter than the academic year, so the percentage/);
    expect(r.warnings.join(' ')).toMatch(/Final period of the program, shorter than an academic year/);
  });
});

describe('§2.1 increased unsubsidized amounts for health professions (2026-27.3)', () => {
  const fullYear = [term('Fall', 12, 12), term('Spring', 12, 12)];
  const legacy = (extra: Partial<WireRequest>) =>
    student(extra.terms ?? fullYear, {
      dependency_status: 'independent',
      degree_level: 'professional',
      grade_level: null,
      subsidized_amount: 0,
      is_legacy_borrower: true,
      ...extra,
    });
  const unsub = (request: WireRequest) => calculate(toInput(request)).annual_basic_eligibility_unsub;

  it('table 3A, 9 months (and null months = 9): dentistry 20,500 + 20,000 = 40,500', () => {
    expect(unsub(legacy({ health_professions_program: 'dentistry', academic_year_months: 9 }))).toBe(40500);
    expect(unsub(legacy({ health_professions_program: 'dentistry' }))).toBe(40500);
  });

  it('12 months takes the 12-month column: medicine 20,500 + 26,667 = 47,167; public health 20,500 + 16,667 = 37,167', () => {
    expect(unsub(legacy({ health_professions_program: 'medicine', academic_year_months: 12 }))).toBe(47167);
    expect(unsub(legacy({ health_professions_program: 'public_health', academic_year_months: 12 }))).toBe(37167);
  });

  it('10 or 11 months: the 9-month amount ÷ 9 × months, rounded half up', () => {
    // 20,000 ÷ 9 × 11 = 24,444.44 → 24,444 → 44,944 (Handbook ch. 4); 12,500 ÷ 9 × 10 = 13,888.89 → 13,889 → 34,389.
    expect(unsub(legacy({ health_professions_program: 'dentistry', academic_year_months: 11 }))).toBe(44944);
    expect(unsub(legacy({ health_professions_program: 'chiropractic', academic_year_months: 10 }))).toBe(34389);
  });

  it('everything after is unchanged: the reduction applies to the increased limit (9 + 9 of 24 → 75% of 40,500)', () => {
    // 40,500 × 0.75 = 30,375.
    const r = calculate(
      toInput(
        legacy({
          health_professions_program: 'veterinary_medicine',
          terms: [term('Fall', 12, 9), term('Spring', 12, 9)],
        }),
      ),
    );
    expect([r.reduced_annual_pct, r.annual_basic_eligibility_unsub]).toEqual([75, 30375]);
  });

  it('a warning names the increase used: program, months, amount', () => {
    const r = calculate(toInput(legacy({ health_professions_program: 'dentistry', academic_year_months: 11 })));
    expect(r.warnings.join(' ')).toMatch(
      /Increased unsubsidized amount for health professions \(dentistry, 11-month academic year\): \$24,444 .* becomes \$44,944/,
    );
  });

  it('ignored with a warning for a non-legacy graduate, an undergraduate, or months without a program', () => {
    const notLegacy = calculate(
      toInput(legacy({ is_legacy_borrower: false, degree_level: 'graduate', health_professions_program: 'medicine' })),
    );
    expect(notLegacy.annual_basic_eligibility_unsub).toBe(20500);
    expect(notLegacy.warnings.join(' ')).toMatch(/were ignored because the graduate student is not a legacy borrower/);
    const undergraduate = calculate(
      toInput(student(fullYear, { health_professions_program: 'medicine', academic_year_months: 12 })),
    );
    expect(undergraduate.annual_basic_eligibility_unsub).toBe(2000);
    expect(undergraduate.warnings.join(' ')).toMatch(/never applied to undergraduates/);
    const noProgram = calculate(toInput(legacy({ academic_year_months: 11 })));
    expect(noProgram.annual_basic_eligibility_unsub).toBe(20500);
    expect(noProgram.warnings.join(' ')).toMatch(
      /academic_year_months was ignored because no health_professions_program/,
    );
    // Neither field given: no sentence at all.
    expect(calculate(toInput(legacy({}))).warnings.join(' ')).not.toMatch(/health/);
  });

  it('award-year aware: a table row not yet effective in the award year gives no increase, with a warning', () => {
    expect(healthProfessionsIncrease('dentistry', 9, '2025-26')).toBeNull();
    expect(healthProfessionsIncrease('dentistry', 11, '2026-27')!.additional.toFixed()).toBe('24444');
  });
});
