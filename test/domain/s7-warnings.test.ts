/**
 * rules.md §7: a warning for every situation the rules list, in plain sentences with the amounts, deterministic.
 */

import { describe, expect, it } from 'vitest';
import { calculate } from '../../src/domain/calculate.ts';
import { Dec } from '../../src/domain/decimal.ts';
import { formatCredits, formatDollars, formatSignedDollars } from '../../src/domain/warnings.ts';
import { type WireRequest, student, term, toInput } from './support/input.ts';

const run = (request: WireRequest) => calculate(toInput(request));
const all = (request: WireRequest) => run(request).warnings.join('\n');
const reduced = [term('Fall', 12, 6), term('Spring', 12, 9)];
const fullTime = [term('Fall', 12, 12), term('Spring', 12, 12)];
const grad = {
  dependency_status: 'independent',
  degree_level: 'graduate',
  grade_level: null,
  subsidized_amount: 0,
} as const;

describe('§7 formatting', () => {
  it('writes dollars with separators and exact cents, credits as given', () => {
    expect(formatDollars(new Dec(1840))).toBe('$1,840');
    expect(formatDollars(new Dec(1234567))).toBe('$1,234,567');
    expect(formatDollars(new Dec(0))).toBe('$0');
    expect(formatDollars(new Dec('2000.5'))).toBe('$2,000.50');
    expect(formatDollars(new Dec('0.125'))).toBe('$0.125');
    expect(formatSignedDollars(new Dec(-90))).toBe('-$90');
    expect(formatSignedDollars(new Dec(875))).toBe('+$875');
    expect(formatCredits(new Dec('10.50'))).toBe('10.5');
    expect(formatCredits(new Dec('24.0'))).toBe('24');
  });
});

describe('§7 each listed situation has a warning', () => {
  it('term below half time: on the term and in the result', () => {
    const r = run(student([term('Fall', 12, 12), term('Spring', 12, 4)]));
    expect(r.terms[1]!.warning).toBe(
      'Term 2 ("Spring") is below half time (4 of 12 credits) and receives no disbursement, but its credits still count toward the academic-year percentage.',
    );
    expect(r.warnings).toContain(r.terms[1]!.warning);
  });

  it('proportional not offered and why', () => {
    expect(all(student(fullTime))).toContain(
      'Proportional disbursement is not offered because the academic-year percentage is 100%: the student is not subject to the reduction, so only equal disbursements apply.',
    );
    expect(all(student([term('Fall', 12, 9)]))).toContain(
      'Proportional disbursement is not offered because only one term is at least half time: with fewer than two eligible terms the proportional and equal options are the same.',
    );
    expect(all(student(reduced))).not.toContain('Proportional disbursement is not offered');
  });

  it('loan period shorter than the academic year', () => {
    expect(all(student([term('Spring', 12, 9)], { academic_year_terms: 2 }))).toContain(
      'The loan period has 1 term but the academic year has 2: the loan period is shorter than the academic year, so the percentage is computed over the supplied terms only (9 of 12 credits = 75% of the annual amounts).',
    );
  });

  it('legacy borrowers are still reduced (only when there is a reduction)', () => {
    const legacy = { ...grad, is_legacy_borrower: true, cost_of_attendance: 50000 };
    expect(all(student(reduced, legacy))).toContain(
      'Legacy borrower status (the interim exception) does not exempt the student from the less-than-full-time reduction, so the annual amounts are reduced to 63%.',
    );
    expect(all(student(fullTime, legacy))).not.toContain('does not exempt');
  });

  it('Grad PLUS unavailable: not legacy, plus_denied, or no cost of attendance', () => {
    expect(all(student(reduced, { ...grad, cost_of_attendance: 50000 }))).toContain(
      'Grad PLUS is $0 because Grad PLUS is closed to graduate and professional borrowers without the interim (legacy) exception from July 1, 2026 (34 CFR 685.200(b)(2)).',
    );
    expect(
      all(student(reduced, { ...grad, is_legacy_borrower: true, plus_denied: true, cost_of_attendance: 1 })),
    ).toContain("Grad PLUS is $0 because plus_denied says the student's own Grad PLUS application was denied.");
    expect(all(student(reduced, { ...grad, is_legacy_borrower: true }))).toContain(
      "Grad PLUS is $0 because cost_of_attendance was not provided: a legacy borrower's Grad PLUS eligibility is the cost of attendance minus other aid and the other loans.",
    );
  });

  it('each binding cap, naming the cap and the amounts', () => {
    expect(all(student(reduced, { subsidized_amount: 4000 }))).toContain(
      'The subsidized amount of $4,000 exceeds the statutory subsidized maximum of $3,500 for a first-year undergraduate, so the subsidized starting amount is capped at $3,500.',
    );
    expect(all(student(reduced, { total_limit: 4000 }))).toContain(
      'The institutional program limit (total_limit, 34 CFR 685.203(m)(2)) of $4,000 is below the starting amounts of $5,500 ($3,500 subsidized and $2,000 unsubsidized), so they were lowered (unsubsidized first, then subsidized) to $3,500 subsidized and $500 unsubsidized.',
    );
    expect(all(student(reduced, { cost_of_attendance: '4000.50' }))).toContain(
      'The cost of attendance minus other aid (cost_of_attendance, 34 CFR 685.203(j)(1)) of $4,000.50 is below the starting amounts of $5,500 ($3,500 subsidized and $2,000 unsubsidized), so they were lowered (unsubsidized first, then subsidized) to $3,500 subsidized and $500.50 unsubsidized.',
    );
  });

  it('over-disbursement, with the amounts', () => {
    const request = student(
      [term('Fall', 12, 12, { actual_final_credits: 6, prior_disbursement_sub: 2000 }), term('Spring', 12, 6)],
      { total_limit: 3500 },
    );
    expect(all(request)).toContain(
      'Subsidized over-disbursement: $2,000 was already disbursed but the revised annual amount is $1,750, an excess of $250, so no further subsidized disbursement is scheduled.',
    );
  });

  it('money left unscheduled, with the amount', () => {
    const request = student(
      [term('Fall', 12, 6, { prior_disbursement_sub: 875 }), term('Spring', 12, 12, { actual_final_credits: 3 })],
      { total_limit: 3500 },
    );
    expect(all(request)).toContain(
      '$455 of the $1,330 subsidized annual amount is not scheduled because no unpaid term is at least half time, so the totals fall short of the annual amount.',
    );
  });

  it('final-term over-disbursement, on the last term', () => {
    const r = run(
      student(
        [
          term('Fall', 12, 12, { prior_disbursement_sub: 1750 }),
          term('Spring', 12, 12, { actual_final_credits: 6, prior_disbursement_sub: 1750 }),
        ],
        { total_limit: 3500 },
      ),
    );
    expect(r.terms[1]!.warning).toBe(
      'Over-disbursement after the final disbursement: $3,500 subsidized disbursed against a revised annual amount of $2,625 (excess $875); no reduction is required for an enrollment drop after the final disbursement, and the school may choose to return the excess.',
    );
  });

  it('subsidized amount ignored for graduate students', () => {
    expect(all(student(reduced, { ...grad, subsidized_amount: 5000 }))).toContain(
      'subsidized_amount of $5,000 was ignored because graduate students are not eligible for Direct Subsidized Loans; the subsidized amount is $0.',
    );
  });

  it('grade_level for a graduate student and is_legacy_borrower for an undergraduate are ignored', () => {
    expect(all(student(reduced, { ...grad, degree_level: 'professional', grade_level: 'second_year' }))).toContain(
      'grade_level "second_year" was ignored because the student is a professional student: grade levels apply only to undergraduate loan limits.',
    );
    expect(all(student(reduced, { is_legacy_borrower: true }))).toContain(
      'is_legacy_borrower was ignored because the student is an undergraduate: the legacy (interim) exception applies only to graduate and professional students.',
    );
  });

  it('an undergraduate without subsidized_amount: no subsidized eligibility was assumed (not for an explicit 0)', () => {
    const sentence =
      "subsidized_amount was not provided, so no subsidized eligibility was assumed: the whole combined limit of $5,500 is unsubsidized. Send the student's need-based subsidized eligibility if the student has any (0 for a student without need).";
    const { subsidized_amount: _left, ...rest } = student(reduced, { total_limit: 5500 });
    const absent = run(rest);
    expect(absent.warnings).toEqual([sentence]);
    // 15/24 = 63%: 5,500 all unsubsidized → 3,465.
    expect([absent.annual_basic_eligibility_sub, absent.annual_basic_eligibility_unsub]).toEqual([0, 3465]);
    expect(run(student(reduced, { total_limit: 5500, subsidized_amount: 0 })).warnings).toEqual([]);
    // Graduate and professional students have no subsidized loans: no such sentence.
    const { subsidized_amount: _g, ...graduate } = student(reduced, { ...grad });
    expect(all(graduate)).not.toMatch(/subsidized_amount was not provided/);
  });

  it('final period: proration applied, not shorter than a year, ignored for a graduate, or without the flag', () => {
    const finalPeriod = { final_period_of_program: true, academic_year_credits: 24 } as const;
    expect(all(student([term('Fall', 12, 8)], finalPeriod))).toContain(
      // 8/24 of 3,500 = 1,166.67 → 1,167; 8/24 of 5,500 = 1,833.33 → 1,833 (each prorated directly).
      "Final period of the program, shorter than an academic year (the period's 12 full-time credits are fewer than the academic year's 24): the annual loan limits are prorated (8 of 24 academic-year credits) to $1,167 subsidized and $1,833 combined (34 CFR 685.203(a)(4)–(6), (d); FSA Handbook Vol. 8 ch. 5), and the less-than-full-time reduction is not applied on top.",
    );
    expect(all(student(reduced, finalPeriod))).toContain(
      "final_period_of_program does not change the amounts: the period's 24 full-time credits are not fewer than the academic year's 24, so the period is not shorter than an academic year; no traditional proration, the normal reduction applies.",
    );
    expect(all(student(reduced, { ...grad, ...finalPeriod }))).toContain(
      'final_period_of_program and academic_year_credits were ignored because the student is a graduate student: the proration of a final period shorter than an academic year is an undergraduate rule.',
    );
    expect(all(student(reduced, { academic_year_credits: 24 }))).toContain(
      'academic_year_credits was ignored because final_period_of_program is false: it is used only for the final period of an undergraduate program.',
    );
  });

  it('a plain reduced year has no warnings at all', () => {
    const r = run(student(reduced, { total_limit: 5500 }));
    expect(r.warnings).toEqual([]);
    expect(r.terms.map((t) => t.warning)).toEqual(['', '']);
  });

  it('warnings are deterministic and ordered', () => {
    const request = student([term('Spring', 12, 4)], {
      academic_year_terms: 3,
      subsidized_amount: 9000,
      total_limit: 1000,
      is_legacy_borrower: true,
    });
    const first = run(request).warnings;
    expect(run(request).warnings).toEqual(first);
    expect(first.map((w) => w.slice(0, 24))).toEqual([
      'is_legacy_borrower was i',
      'The subsidized amount of',
      'The institutional progra',
      'The loan period has 1 te',
      'Proportional disbursemen',
      'Term 1 ("Spring") is bel',
      '$330 of the $330 subsidi', // 4/12 = 33% of the 1,000 total_limit; no eligible term to pay it
    ]);
    for (const w of first) expect(w).toMatch(/^[^\n]+[.)]$/);
  });
});

describe('§7 a below-half-time term says how its credits are used', () => {
  const finalPeriod = (terms: ReturnType<typeof term>[], extra: Partial<WireRequest> = {}) =>
    calculate(
      toInput(
        student(terms, {
          dependency_status: 'independent',
          grade_level: 'third_year_and_beyond',
          subsidized_amount: 5500,
          final_period_of_program: true,
          academic_year_credits: 36,
          ...extra,
        }),
      ),
    );

  it('under the final-period proration a not-enrolled term is outside the period (Handbook ch. 5, example 6)', () => {
    const r = finalPeriod([term('Fall', 12, 12), term('Winter', 12, 0), term('Spring', 12, 12)]);
    expect(r.terms[1]!.warning).toBe(
      'Term 2 ("Winter") is not enrolled (0 of 12 credits) and receives no disbursement; it is not part of the final period.',
    );
    expect(r.warnings.join(' ')).not.toContain('academic-year percentage');
  });

  it('and a below-half-time term of the period has its credits left out of the proration (example 5)', () => {
    const r = finalPeriod([term('Fall', 12, 12), term('Winter', 12, 3)], { dependency_status: 'dependent' });
    expect(r.terms[1]!.warning).toBe(
      'Term 2 ("Winter") is below half time (3 of 12 credits) and receives no disbursement; its credits are left out of the final-period proration.',
    );
  });

  it('under the school policy below_half_time_credits=excluded its credits are left out of the percentage', () => {
    const r = calculate(
      toInput(
        student([term('Fall', 12, 12), term('Spring', 12, 3)], { policy: { below_half_time_credits: 'excluded' } }),
      ),
    );
    // 12 of 24 credits (the 3 left out) → 50%.
    expect(r.reduced_annual_pct).toBe(50);
    expect(r.terms[1]!.warning).toBe(
      'Term 2 ("Spring") is below half time (3 of 12 credits) and receives no disbursement; its credits are left out of the academic-year percentage (school policy below_half_time_credits=excluded).',
    );
  });

  it('by default its credits still count (§3)', () => {
    const r = calculate(toInput(student([term('Fall', 12, 12), term('Spring', 12, 3)])));
    // (12 + 3) of 24 = 62.5% → 63%.
    expect(r.reduced_annual_pct).toBe(63);
    expect(r.terms[1]!.warning).toBe(
      'Term 2 ("Spring") is below half time (3 of 12 credits) and receives no disbursement, but its credits still count toward the academic-year percentage.',
    );
  });
});
