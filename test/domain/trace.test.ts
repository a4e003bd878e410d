/**
 * The worksheet's trace (src/domain/trace.ts): every value of a CalculationResult is the output of exactly one
 * step, with the same path and value, and no step claims a value the result does not hold; recording does not
 * change the result. Proved for every worked example of shared/spec/examples.json and for 10,000 random valid
 * requests. The figures checked by hand come from rules.md and examples.json (FSA examples 1 and 4).
 */

import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { calculate } from '../../src/domain/calculate.ts';
import { CITATIONS } from '../../src/domain/citations.ts';
import { HEALTH_PROFESSIONS_TABLE } from '../../src/domain/health-professions.ts';
import { STATUTORY_LIMITS } from '../../src/domain/limits.ts';
import { type TraceStep, calculateWithTrace } from '../../src/domain/trace.ts';
import type { CalculationInput, CalculationResult } from '../../src/domain/types.ts';
import { inputArb } from './support/arbitraries.ts';
import { type WireRequest, toInput } from './support/input.ts';

type Leaf = number | string | boolean | null;

/** Every leaf of a result by JSON path (`terms[0].proportional.subsidized`); a null option is one leaf. */
function leaves(value: unknown, path = '', out = new Map<string, Leaf>()): Map<string, Leaf> {
  if (Array.isArray(value)) {
    value.forEach((item, i) => leaves(item, `${path}[${i}]`, out));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) leaves(item, path === '' ? key : `${path}.${key}`, out);
  } else {
    out.set(path, value as Leaf);
  }
  return out;
}

/** The result's own values, minus the echoed term labels (inputs, not computed). */
function resultValues(result: CalculationResult): Map<string, Leaf> {
  const all = leaves(result);
  for (const key of [...all.keys()]) if (/^terms\[\d+\]\.label$/.test(key)) all.delete(key);
  return all;
}

const KNOWN_CITATIONS = new Set<string>([
  ...Object.values(CITATIONS).map((c) => c.citation),
  ...STATUTORY_LIMITS.map((r) => r.citation),
  ...Object.values(HEALTH_PROFESSIONS_TABLE).map((r) => r.citation),
]);

/** The problems of one input's trace (empty when the trace covers the result exactly). */
function traceProblems(plain: CalculationResult, result: CalculationResult, steps: TraceStep[]): string[] {
  const problems: string[] = [];
  // Recording does not change the result.
  if (!isDeepStrictEqual(result, plain)) problems.push('the traced result differs from calculate()');

  const expected = resultValues(result);
  const produced = new Map<string, string>();
  const ids = new Set<string>();
  for (const step of steps) {
    if (ids.has(step.id)) problems.push(`duplicate step id ${step.id}`);
    ids.add(step.id);
    if (!/^§\d+(\.\d)?$/.test(step.section)) problems.push(`${step.id}: section ${step.section}`);
    if (step.title === '' || step.formula === '') problems.push(`${step.id}: empty title or formula`);
    if (!KNOWN_CITATIONS.has(step.citation)) problems.push(`${step.id}: citation not from the rule data`);
    for (const [path, value] of Object.entries(step.output)) {
      const before = produced.get(path);
      if (before !== undefined) problems.push(`${path} is output by ${before} and ${step.id}`);
      produced.set(path, step.id);
      if (!expected.has(path)) problems.push(`${step.id} outputs ${path}, which the result does not hold`);
      else if (!Object.is(value, expected.get(path))) {
        problems.push(`${step.id}: ${path} = ${JSON.stringify(value)}, result ${JSON.stringify(expected.get(path))}`);
      }
    }
  }
  for (const path of expected.keys()) if (!produced.has(path)) problems.push(`no step outputs ${path}`);
  // The steps are plain JSON.
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(steps)), steps)) problems.push('steps are not plain JSON');
  return problems;
}

function checkTrace(input: CalculationInput): void {
  const { result, steps } = calculateWithTrace(input);
  expect(traceProblems(calculate(input), result, steps)).toEqual([]);
}

function exampleInput(id: string): CalculationInput {
  const example = WORKED_EXAMPLES.find((e) => e.id === id);
  if (example === undefined) throw new Error(`no example ${id}`);
  return toInput(example.request as WireRequest);
}

function step(steps: TraceStep[], id: string): TraceStep {
  const found = steps.find((s) => s.id === id);
  if (found === undefined) throw new Error(`no step ${id} in ${steps.map((s) => s.id).join(', ')}`);
  return found;
}

describe('every amount of a result is the output of a step', () => {
  for (const example of WORKED_EXAMPLES) {
    it(`${example.id}`, () => checkTrace(toInput(example.request as WireRequest)));
  }

  it('10,000 random valid requests', () => {
    fc.assert(fc.property(inputArb, checkTrace), { numRuns: 10_000 });
  }, 120_000);
});

describe('steps of the published examples (figures from rules.md and examples.json)', () => {
  it('FSA example 1: 63%, annual subsidized 2,205, proportional 882 + 1,323', () => {
    const { steps } = calculateWithTrace(exampleInput('FSA-1'));
    expect(step(steps, 'percentage').output).toEqual({ reduced_annual_pct: 63 });
    expect(step(steps, 'percentage').section).toBe('§3');
    expect(step(steps, 'annual.sub').formula).toContain('3500 × 63 ÷ 100');
    expect(step(steps, 'annual.sub').output).toEqual({ annual_basic_eligibility_sub: 2205 });
    const fall = step(steps, 'term[0].proportional.sub');
    expect(fall.formula).toContain('2205 × 6 ÷ 15 = 882');
    expect(fall.output).toEqual({ 'terms[0].proportional.subsidized': 882 });
    expect(step(steps, 'term[1].proportional.sub').output).toEqual({ 'terms[1].proportional.subsidized': 1323 });
    expect(step(steps, 'proportional.sub').inputs).toMatchObject({ weights: [6, 9], sum_of_weights: 15 });
    expect(fall.citation).toBe(CITATIONS.distribution.citation);
  });

  it('FSA example 1: the statutory row and its citation come from the limit table', () => {
    const { steps } = calculateWithTrace(exampleInput('FSA-1'));
    const row = STATUTORY_LIMITS.find((r) => r.awardYear === '2026-27' && r.id === 'ug-dep-1')!;
    const limit = step(steps, 'base.limit');
    expect(limit.citation).toBe(row.citation);
    expect(limit.formula).toContain('S_max = 3500');
    expect(limit.formula).toContain('C_max = 5500');
  });

  it('FSA example 4: fall 9 → 6 after 502 paid: 92% → 83%, spring and summer −90 each, source Fall', () => {
    const { steps } = calculateWithTrace(exampleInput('FSA-4'));
    expect(step(steps, 'term[0].closed').output).toMatchObject({ 'terms[0].equal.subsidized': 502 });
    expect(step(steps, 'remaining.sub').formula).toContain('1660 − 502 = 1158');
    expect(step(steps, 'baseline.percentage').formula).toContain('= 92');
    expect(step(steps, 'baseline.term[1].equal.sub').formula).toContain('1338 ÷ 2 = 669');
    for (const j of [1, 2]) {
      const adjustment = step(steps, `term[${j}].adjustment`);
      expect(adjustment.section).toBe('§6');
      expect(adjustment.citation).toBe(CITATIONS.recalculation.citation);
      expect(adjustment.formula).toContain('579 − 669 = -90');
      expect(adjustment.output).toMatchObject({
        [`terms[${j}].adjustment_sub`]: -90,
        [`terms[${j}].adjustment_source_index`]: 0,
      });
    }
  });

  it("Metro State final period (rules.md §2.3): 8 of 24 credits → S'max 1,833, C'max round(12,500 × 8 ÷ 24) = 4,167", () => {
    const { steps } = calculateWithTrace(exampleInput('REF-FINAL-PERIOD-METRO'));
    const proration = step(steps, 'final_period');
    expect(proration.section).toBe('§2.3');
    expect(proration.citation).toBe(CITATIONS.proration.citation);
    expect(proration.formula).toContain('round_half_up(5500 × 8 ÷ 24) = 1833');
    expect(proration.formula).toContain(
      "C'max = round_half_up(C_max × fraction) = round_half_up(12500 × 8 ÷ 24) = 4167",
    );
    expect(step(steps, 'base.sub').formula).toContain("min(subsidized_amount, S'max) = min(5500, 1833) = 1833");
    expect(step(steps, 'base.unsub').formula).toContain("C'max − sub_base = 4167 − 1833 = 2334");
    expect(step(steps, 'percentage').output).toEqual({ reduced_annual_pct: 100 });
  });

  it('Handbook ch. 5 example 5 under decimal_rounded: the period, the half-time filter, 0.33, the policy named', () => {
    const { steps } = calculateWithTrace(exampleInput('HB-CH5-EX5'));
    const proration = step(steps, 'final_period');
    expect(proration.formula).toContain('period = the terms with credits_enrolled > 0: Fall, Winter');
    expect(proration.formula).toContain('left out, below half time: Winter 3 < 6');
    // 12 ÷ 36 = 0.333… → 0.33; 5,500 × 0.33 = 1,815; 7,500 × 0.33 = 2,475.
    expect(proration.formula).toContain('= 0.33 (school policy proration_fraction=decimal_rounded, rules.md §10)');
    expect(proration.formula).toContain('round_half_up(5500 × 0.33) = 1815');
    expect(proration.formula).toContain('round_half_up(7500 × 0.33) = 2475');
    expect(step(steps, 'policy').section).toBe('§10');
    expect(step(steps, 'policy').formula).toContain('proration_fraction=decimal_rounded');
  });

  it('the health professions increase is a step with the table’s citation: dentistry, 11 months, 24,444', () => {
    const { steps } = calculateWithTrace(exampleInput('HB-CH4-DENTISTRY-11'));
    const h = step(steps, 'base.health_professions');
    expect(h.section).toBe('§2.1');
    expect(h.citation).toBe(HEALTH_PROFESSIONS_TABLE.dentistry.citation);
    // 20,000 ÷ 9 × 11 = 24,444.44 → 24,444; C_max = 20,500 + 24,444 = 44,944.
    expect(h.formula).toContain('= 24444; C_max = 20500 + 24444 = 44944');
    expect(step(steps, 'base.unsub').formula).toContain('C_max − sub_base = 44944 − 0 = 44944');
  });

  it('Grad PLUS after the reduction (rules.md §2.2): (35,000 − 15,990) × 78% = 14,828', () => {
    const { steps } = calculateWithTrace(exampleInput('REF-GP-AFTER-REDUCTION'));
    expect(step(steps, 'annual.unsub').output).toEqual({ annual_basic_eligibility_unsub: 15990 });
    expect(step(steps, 'grad_plus.base').formula).toContain('max(0, 35000 − 0 − 15990) = 19010');
    expect(step(steps, 'grad_plus.base').citation).toBe(CITATIONS.gradPlus.citation);
    expect(step(steps, 'annual.grad_plus').output).toEqual({ annual_basic_eligibility_grad_plus: 14828 });
  });

  it('a split with a leftover dollar shows the floor and the dollar (1,840 × 9, 12, 12 ÷ 33 → 502 + 669 + 669)', () => {
    const input = toInput({
      dependency_status: 'dependent',
      grade_level: 'first_year',
      subsidized_amount: 2000,
      total_limit: 2000,
      terms: [
        { label: 'Fall', full_time_credits: 12, credits_enrolled: 9 },
        { label: 'Spring', full_time_credits: 12, credits_enrolled: 12 },
        { label: 'Summer', full_time_credits: 12, credits_enrolled: 12 },
      ],
    });
    const { steps } = calculateWithTrace(input);
    // 1840 × 9 ÷ 33 = 501.81…: floor 501, one leftover dollar → 502 (rules.md §1).
    expect(step(steps, 'term[0].proportional.sub').formula).toContain('floor 501 + 1 leftover dollar = 502');
    expect(step(steps, 'proportional.sub').inputs).toMatchObject({ amount: 1840, leftover_dollars: 1 });
  });
});

describe('the check itself', () => {
  it('notices a wrong output, a value no step outputs, a value output twice and a changed result', () => {
    const input = exampleInput('FSA-1');
    const plain = calculate(input);
    const { result, steps } = calculateWithTrace(input);
    expect(traceProblems(plain, result, steps)).toEqual([]);
    const wrong = steps.map((s) => (s.id === 'percentage' ? { ...s, output: { reduced_annual_pct: 64 } } : s));
    expect(traceProblems(plain, result, wrong)).toEqual(['percentage: reduced_annual_pct = 64, result 63']);
    const missing = steps.filter((s) => s.id !== 'annual.sub');
    expect(traceProblems(plain, result, missing)).toEqual(['no step outputs annual_basic_eligibility_sub']);
    const twice = [...steps, { ...step(steps, 'annual.sub'), id: 'again' }];
    expect(traceProblems(plain, result, twice)).toEqual([
      'annual_basic_eligibility_sub is output by annual.sub and again',
    ]);
    expect(traceProblems({ ...plain, reduced_annual_pct: 62 }, result, steps)).toEqual([
      'the traced result differs from calculate()',
    ]);
  });
});
