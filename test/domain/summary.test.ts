/**
 * The worksheet's summary (src/domain/summary.ts): for every worked example of shared/spec/examples.json the
 * percentage, the annual amounts, the schedule and the totals are the published figures; the arithmetic strings of
 * FSA examples 1 and 4, the Handbook's final-period example 5 and Metro State's proration read as rules.md computes
 * them; the other paths (no reduction, below half time, excluded credits, a one-term loan period on half the annual
 * amount, legacy Grad PLUS after the reduction) say what happened; and no text of the summary, for the examples and
 * for thousands of random requests, holds `null`, `JSON`, `§`, a rule-book reference or an API field name.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { CITATIONS } from '../../src/domain/citations.ts';
import { POLICY_OPTIONS } from '../../src/domain/policy.ts';
import { type WorksheetSummary, worksheetSummary } from '../../src/domain/summary.ts';
import { calculateWithTrace } from '../../src/domain/trace.ts';
import type { CalculationInput, CalculationResult } from '../../src/domain/types.ts';
import { WorksheetSummarySchema } from '../../src/schema/worksheet.ts';
import { inputArb } from './support/arbitraries.ts';
import { type WireRequest, toInput } from './support/input.ts';

function summaryOf(input: CalculationInput, student?: { name?: string; id?: string }): WorksheetSummary {
  const { result, steps } = calculateWithTrace(input);
  return worksheetSummary(input, result, steps, student);
}

function example(id: string): { input: CalculationInput; expected: CalculationResult } {
  const found = WORKED_EXAMPLES.find((e) => e.id === id);
  if (found === undefined) throw new Error(`no example ${id}`);
  return { input: toInput(found.request as WireRequest), expected: found.expected as unknown as CalculationResult };
}

const SHORT_CITATIONS = new Set(Object.values(CITATIONS).map((c) => c.short));
/** Fields that hold an identifier as the API spells it, or the request's own text, not words for a reader. */
const IDENTIFIERS = new Set(['option', 'value', 'loan', 'limit', 'kind', 'award_year', 'rule_set', 'student']);

/** Every text of a summary a person reads, with its path; citations apart (legal citations use §). */
function texts(value: unknown, path = '', out: [string, string][] = []): [string, string][] {
  if (typeof value === 'string') out.push([path, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => texts(v, `${path}[${i}]`, out));
  else if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (IDENTIFIERS.has(key) || key === 'citation') continue;
      texts(v, path === '' ? key : `${path}.${key}`, out);
    }
  }
  return out;
}

function citations(summary: WorksheetSummary): string[] {
  return [summary.percentage.citation, ...summary.annual.map((a) => a.citation)];
}

/** What a person must never read on page 1: the problems of one summary (empty when it reads right). */
function wordingProblems(summary: WorksheetSummary): string[] {
  const problems: string[] = [];
  for (const [path, text] of texts(summary)) {
    const bad = [
      /\bnull\b/i,
      /JSON/,
      /§/,
      /rules\.md/i,
      /\b[a-z]+(?:_[a-z]+)+\b/, // an API field or value: total_limit, decimal_rounded
      /\w\[\d+\]/, // a path: terms[1]
      /\b[a-z]+=[a-z]/, // option=value
      /undefined|NaN|\[object/,
    ].find((re) => re.test(text));
    if (bad !== undefined) problems.push(`${path}: ${bad} in "${text}"`);
  }
  for (const citation of citations(summary)) {
    if (!SHORT_CITATIONS.has(citation)) problems.push(`citation not from the citation data: ${citation}`);
    if (/rules\.md/.test(citation)) problems.push(`citation names the rule book: ${citation}`);
  }
  return problems;
}

describe('the published figures, for every worked example', () => {
  for (const e of WORKED_EXAMPLES) {
    it(e.id, () => {
      const { input, expected } = example(e.id);
      const summary = summaryOf(input);
      expect(WorksheetSummarySchema.parse(summary)).toEqual(summary);
      expect(summary.percentage.pct).toBe(expected.reduced_annual_pct);
      const amounts = Object.fromEntries(summary.annual.map((a) => [a.loan, a.amount]));
      expect(amounts.subsidized).toBe(expected.annual_basic_eligibility_sub);
      expect(amounts.unsubsidized).toBe(expected.annual_basic_eligibility_unsub);
      expect(amounts.grad_plus ?? 0).toBe(expected.annual_basic_eligibility_grad_plus);
      expect(summary.schedule.map((t) => t.equal)).toEqual(expected.terms.map((t) => t.equal));
      expect(summary.schedule.map((t) => t.proportional)).toEqual(expected.terms.map((t) => t.proportional));
      expect(summary.schedule.map((t) => t.intensity_pct)).toEqual(
        expected.terms.map((t) => t.enrollment_intensity_pct),
      );
      expect(summary.totals.equal).toEqual(expected.total_equal);
      expect(summary.totals.proportional).toEqual(expected.show_both_options ? expected.total_proportional : null);
      expect(summary.award_year).toBe('2026-27');
      expect(summary.rule_set).toBe('2026-27.3');
      expect(summary.policy.map((p) => p.option)).toEqual(POLICY_OPTIONS.map((o) => o.name));
      expect(wordingProblems(summary)).toEqual([]);
    });
  }
});

describe('the arithmetic, as rules.md writes it', () => {
  it('FSA example 1: (6 + 9) ÷ 24 = 62.5% → 63%; $3,500 × 63% = $2,205; $2,000 × 63% = $1,260', () => {
    const s = summaryOf(example('FSA-1').input);
    expect(s.percentage).toMatchObject({ pct: 63, kind: 'reduction', arithmetic: '(6 + 9) ÷ 24 = 62.5% → 63%' });
    expect(s.percentage.citation).toBe('HEA §455(a); 34 CFR 685.203(m)(1)');
    expect(s.annual.map((a) => [a.label, a.base, a.pct, a.amount, a.arithmetic, a.citation])).toEqual([
      ['Direct Subsidized', 3500, 63, 2205, '$3,500 × 63% = $2,205', CITATIONS.reduction.short],
      ['Direct Unsubsidized', 2000, 63, 1260, '$2,000 × 63% = $1,260', CITATIONS.reduction.short],
    ]);
    // FSA-1's starting amounts: the subsidized eligibility, and the $5,500 limit minus it.
    expect(s.annual[1]!.basis).toContain('$5,500');
    expect(s.annual[1]!.basis).toContain('$3,500');
    expect(s.schedule.map((t) => [t.label, t.status, t.credits])).toEqual([
      ['Fall', 'Half time', '6 of 12 credits'],
      ['Spring', 'Three-quarter time', '9 of 12 credits'],
    ]);
    expect(s.schedule.map((t) => t.proportional?.subsidized)).toEqual([882, 1323]);
    expect(s.adjustments).toEqual([]);
    expect(s.warnings).toEqual([]);
    expect(s.student).toBeNull();
  });

  it('FSA example 4: final credits 6 of Fall: (6 + 12 + 12) ÷ 36 ≈ 83.33% → 83%; $2,000 × 83% = $1,660; −$90', () => {
    const s = summaryOf(example('FSA-4').input);
    expect(s.percentage.arithmetic).toBe('(6 + 12 + 12) ÷ 36 ≈ 83.33% → 83%');
    expect(s.percentage.text).toContain('Fall 6 (enrolled 9)');
    expect(s.annual[0]!.arithmetic).toBe('$2,000 × 83% = $1,660');
    // The $2,000 program limit leaves no unsubsidized amount (5,500 − 2,000 = 3,500 lowered to 0).
    expect(s.annual[1]!.basis).toContain('lowered to $0 by the institutional program limit of $2,000');
    expect(s.schedule[0]).toMatchObject({ paid_before: true, credits: '6 of 12 credits (final; enrolled 9)' });
    expect(s.schedule[0]!.equal.subsidized).toBe(502);
    expect(s.adjustments).toHaveLength(2);
    expect(s.adjustments[0]).toMatch(/^Spring: .*from 92% to 83%.*\$1,840 to \$1,660.*-\$90 subsidized\.$/);
    expect(s.adjustments[1]).toMatch(/^Summer: .*-\$90 subsidized\.$/);
  });

  it('Handbook ch. 5 example 5 (decimal_rounded): 12 ÷ 36 → 0.33; $5,500 × 0.33 = $1,815; $7,500 × 0.33 = $2,475', () => {
    const s = summaryOf(example('HB-CH5-EX5').input);
    expect(s.percentage).toMatchObject({
      pct: 100,
      kind: 'final_period',
      arithmetic: '12 ÷ 36 ≈ 0.3333 → 0.33 (rounded to 2 places)',
      citation: CITATIONS.finalPeriod.short,
    });
    expect(s.percentage.limits).toEqual([
      {
        limit: 'subsidized',
        label: 'Subsidized limit',
        statutory: 5500,
        prorated: 1815,
        arithmetic: '$5,500 × 0.33 = $1,815',
      },
      {
        limit: 'combined',
        label: 'Combined subsidized and unsubsidized limit',
        statutory: 7500,
        prorated: 2475,
        arithmetic: '$7,500 × 0.33 = $2,475',
      },
    ]);
    expect(s.percentage.text).toContain('Winter, below half time, receives no loan');
    expect(s.percentage.text).toContain('No less-than-full-time reduction on top');
    expect(s.annual.map((a) => a.amount)).toEqual([1815, 660]);
    expect(s.annual[1]!.basis).toContain('prorated combined limit, $2,475');
    expect(s.schedule[1]!.note).toBe('Below half time: no disbursement.');
    expect(s.options).toMatch(/^Equal amounts only: the final-period proration replaces the reduction/);
    const policy = s.policy.find((p) => p.option === 'proration_fraction')!;
    expect(policy).toMatchObject({ value: 'decimal_rounded', is_default: false });
    expect(policy.text).toContain('the exact fraction'); // the default, named beside the school's choice
  });

  it('Metro State (exact fraction): 8 ÷ 24; $5,500 × 8 ÷ 24 ≈ $1,833.33 → $1,833; $12,500 → $4,167', () => {
    const s = summaryOf(example('REF-FINAL-PERIOD-METRO').input);
    expect(s.percentage.arithmetic).toBe('8 ÷ 24 ≈ 0.3333 (used as the exact fraction)');
    expect(s.percentage.limits.map((l) => l.arithmetic)).toEqual([
      '$5,500 × 8 ÷ 24 ≈ $1,833.33 → $1,833',
      '$12,500 × 8 ÷ 24 ≈ $4,166.67 → $4,167',
    ]);
    expect(s.annual.map((a) => a.arithmetic)).toEqual(['$1,833 × 100% = $1,833', '$2,334 × 100% = $2,334']);
  });
});

describe('the other paths, each said as it is', () => {
  const twoTerms = (fall: number, spring: number, extra: Partial<WireRequest> = {}): CalculationInput =>
    toInput({
      dependency_status: 'dependent',
      grade_level: 'first_year',
      subsidized_amount: 3500,
      terms: [
        { label: 'Fall', full_time_credits: 12, credits_enrolled: fall },
        { label: 'Spring', full_time_credits: 12, credits_enrolled: spring },
      ],
      ...extra,
    });

  it('no reduction: 15 + 15 of 24 → 125%, never above 100%', () => {
    const s = summaryOf(example('DER-CAP').input);
    expect(s.percentage).toMatchObject({
      pct: 100,
      kind: 'full_time',
      arithmetic: '(15 + 15) ÷ 24 = 125% → 100% (never above 100%)',
    });
    expect(s.options).toBe('Equal amounts only: the student is not subject to the reduction.');
    expect(s.totals.proportional).toBeNull();
  });

  it('a term below half time is counted by default and left out under the excluded policy (12 + 3 of 24)', () => {
    // Counted: 15 ÷ 24 = 62.5% → 63%. Excluded (rules.md §10): only Fall's 12 → 12 ÷ 24 = 50%.
    const counted = summaryOf(twoTerms(12, 3));
    expect(counted.percentage.arithmetic).toBe('(12 + 3) ÷ 24 = 62.5% → 63%');
    expect(counted.schedule[1]!.note).toBe('Below half time: no disbursement.');
    const excluded = summaryOf(twoTerms(12, 3, { policy: { below_half_time_credits: 'excluded' } }));
    expect(excluded.percentage.arithmetic).toBe('12 ÷ 24 = 50%');
    expect(excluded.percentage.text).toContain('By the school’s policy the credits of Spring, below half time');
    expect(excluded.annual[0]!.arithmetic).toBe('$3,500 × 50% = $1,750');
  });

  it('a one-term loan period on half the annual amount (rules.md §10): $3,500 × 75% ÷ 2 → $1,313', () => {
    const input = toInput({
      dependency_status: 'dependent',
      grade_level: 'first_year',
      subsidized_amount: 3500,
      total_limit: 3500,
      academic_year_terms: 2,
      policy: { single_term_basis: 'half_annual' },
      terms: [{ label: 'Spring', full_time_credits: 12, credits_enrolled: 9 }],
    });
    const s = summaryOf(input);
    expect(s.percentage.arithmetic).toBe('9 ÷ 12 = 75%');
    expect(s.percentage.text).toContain('1 of the academic year’s 2 terms');
    expect(s.annual[0]!.amount).toBe(1313);
    expect(s.annual[0]!.arithmetic).toBe(
      '$3,500 × 75% ÷ 2 = $1,312.50 → $1,313 (one-term loan period on half the annual amount, by the school’s policy)',
    );
  });

  it('legacy Grad PLUS after the reduction: ($35,000 − $15,990) × 78% = $14,827.80 → $14,828', () => {
    const s = summaryOf(example('REF-GP-AFTER-REDUCTION').input);
    expect(s.percentage.arithmetic).toBe('(9 + 5) ÷ 18 ≈ 77.78% → 78%');
    const gp = s.annual.find((a) => a.loan === 'grad_plus')!;
    expect(gp).toMatchObject({ base: 19010, pct: 78, amount: 14828 });
    expect(gp.arithmetic).toBe('$19,010 × 78% = $14,827.80 → $14,828');
    expect(gp.basis).toBe(
      'Cost of attendance, $35,000, minus the reduced subsidized and unsubsidized amounts ($0 + $15,990): $19,010.',
    );
    expect(s.annual[0]!.basis).toBe('Graduate students are not eligible for Direct Subsidized Loans.');
  });

  it('no Grad PLUS for a graduate student without the interim exception says why', () => {
    const s = summaryOf(example('SCH-APUS-3').input);
    expect(s.annual.find((a) => a.loan === 'grad_plus')).toMatchObject({ amount: 0, arithmetic: '$0' });
    expect(s.annual.find((a) => a.loan === 'grad_plus')!.basis).toContain('interim (legacy) exception');
  });

  it('the warnings are the result’s, in words: a field name becomes what the office calls it', () => {
    const s = summaryOf(example('FSA-3').input);
    const { result } = calculateWithTrace(example('FSA-3').input);
    expect(result.warnings[0]).toContain('(total_limit, 34 CFR 685.203(m)(2))');
    expect(s.warnings[0]).toBe(result.warnings[0]!.replace('(total_limit, ', '('));
  });

  it('the student, when named', () => {
    expect(summaryOf(example('FSA-1').input, { name: 'Ana Díaz', id: 'A00123456' }).student).toEqual({
      name: 'Ana Díaz',
      id: 'A00123456',
    });
    expect(summaryOf(example('FSA-1').input, { id: 'A00123456' }).student).toEqual({ name: null, id: 'A00123456' });
    expect(summaryOf(example('FSA-1').input, {}).student).toBeNull();
  });
});

describe('words for an aid office, whatever the request', () => {
  it('3,000 random valid requests: the summary is built, agrees with the result and reads in words', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const { result, steps } = calculateWithTrace(input);
        const s = worksheetSummary(input, result, steps);
        expect(wordingProblems(s)).toEqual([]);
        expect(s.percentage.pct).toBe(result.reduced_annual_pct);
        expect(s.annual.map((a) => a.amount)).toEqual(
          [result.annual_basic_eligibility_sub, result.annual_basic_eligibility_unsub].concat(
            input.degree_level === 'undergraduate' ? [] : [result.annual_basic_eligibility_grad_plus],
          ),
        );
      }),
      { numRuns: 3000 },
    );
  }, 120_000);

  it('the check notices a field name, a null and a section sign', () => {
    const s = summaryOf(example('FSA-1').input);
    expect(wordingProblems({ ...s, warnings: ['lowered by total_limit'] })).toHaveLength(1);
    expect(wordingProblems({ ...s, options: 'none: null' })).toHaveLength(1);
    expect(wordingProblems({ ...s, adjustments: ['see rules.md §6'] })).toHaveLength(1);
    expect(wordingProblems({ ...s, percentage: { ...s.percentage, citation: 'rules.md §3' } })).toHaveLength(2);
  });
});
