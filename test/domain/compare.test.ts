/**
 * What-if comparisons in the domain (src/domain/compare.ts): every difference below is worked out by hand from
 * rules.md and the published examples (examples.json), never read from the engine; and two properties over
 * generated students — a scenario that changes nothing has every change 0 and the base's result, and every
 * difference is its two sides' figures.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculate } from '../../src/domain/calculate.ts';
import { compareScenarios, type CompareInput, type ScenarioChange } from '../../src/domain/compare.ts';
import type { CalculationInput } from '../../src/domain/types.ts';
import { WORKED_EXAMPLES } from '../../src/api/openapi/worked-examples.ts';
import { inputArb } from './support/arbitraries.ts';
import { type WireRequest, type WireTerm, toInput } from './support/input.ts';

const published = (id: string) => structuredClone(WORKED_EXAMPLES.find((e) => e.id === id)!);
const wire = (id: string) => published(id).request as WireRequest;

/** The wire request with its terms changed (the test's own application of a scenario, independent of src/schema). */
function withTerms(request: WireRequest, terms: WireTerm[]): WireRequest {
  return { ...request, terms };
}

function compareOne(base: WireRequest, scenario: WireRequest, changes: ScenarioChange[]) {
  const input: CompareInput = {
    base: toInput(base),
    scenarios: [{ name: 'what if', changes, input: toInput(scenario) }],
  };
  return compareScenarios(input).scenarios[0]!;
}

const triple = (base: number | null, scenario: number | null) => ({
  base,
  scenario,
  change: base === null || scenario === null ? null : scenario - base,
});
type Pair = [number | null, number | null];
const loans = (sub: Pair, unsub: Pair, gradPlus: Pair = [0, 0]) => ({
  subsidized: triple(...sub),
  unsubsidized: triple(...unsub),
  grad_plus: triple(...gradPlus),
});

describe('FSA example 1 (Fall 6 + Spring 9 of 12 → 63%, $2,205 / $1,260) under what-ifs', () => {
  const base = wire('FSA-1');

  it('Spring 9 → 6 credits: (6 + 6) ÷ 24 = 50% → $1,750 Sub / $1,000 Unsub, $875 + $875 and $500 + $500', () => {
    // Sub base min(3,500, 3,500) = 3,500; Unsub base 5,500 − 3,500 = 2,000 (total_limit 5,500 does not bind).
    // 3,500 × 50% = 1,750 → 875 + 875; 2,000 × 50% = 1,000 → 500 + 500; proportional weights 6 and 6: the same.
    const scenario = withTerms(base, [base.terms[0]!, { ...base.terms[1]!, credits_enrolled: 6 }]);
    const outcome = compareOne(base, scenario, [{ term: 1, credits_enrolled: '6' }]);
    expect(outcome.changes).toEqual([{ term: 1, credits_enrolled: 6 }]);
    const d = outcome.differences;
    expect(d.reduced_annual_pct).toEqual({ base: 63, scenario: 50, change: -13 });
    expect(d.annual).toEqual(loans([2205, 1750], [1260, 1000]));
    expect(d.totals.equal).toEqual(loans([2205, 1750], [1260, 1000]));
    expect(d.totals.proportional).toEqual(loans([2205, 1750], [1260, 1000]));
    expect(d.terms).toEqual([
      {
        term: 0,
        label: 'Fall',
        dropped: false,
        equal: loans([1103, 875], [630, 500]),
        proportional: loans([882, 875], [504, 500]),
      },
      {
        term: 1,
        label: 'Spring',
        dropped: false,
        equal: loans([1102, 875], [630, 500]),
        proportional: loans([1323, 875], [756, 500]),
      },
    ]);
  });

  it('Fall dropped: Spring alone, 9 ÷ 12 = 75% → $2,625 / $1,500; proportional not offered on one term', () => {
    // annual_ft_credits is the one term's 12; 3,500 × 75% = 2,625; 2,000 × 75% = 1,500, all on Spring. One
    // eligible term: show_both_options false, so the scenario's proportional figures are null (and their changes).
    const scenario = withTerms(base, [base.terms[1]!]);
    const outcome = compareOne(base, scenario, [{ term: 0, drop: true }]);
    const d = outcome.differences;
    expect(outcome.changes).toEqual([{ term: 0, drop: true }]);
    expect(d.reduced_annual_pct).toEqual({ base: 63, scenario: 75, change: 12 });
    expect(d.annual).toEqual(loans([2205, 2625], [1260, 1500]));
    expect(d.totals.equal).toEqual(loans([2205, 2625], [1260, 1500]));
    // total_proportional equals total_equal where the option is not offered (rules.md §5).
    expect(d.totals.proportional).toEqual(loans([2205, 2625], [1260, 1500]));
    expect(d.terms[0]).toEqual({
      term: 0,
      label: 'Fall',
      dropped: true,
      equal: loans([1103, 0], [630, 0]),
      proportional: loans([882, null], [504, null], [0, null]),
    });
    expect(d.terms[1]).toEqual({
      term: 1,
      label: 'Spring',
      dropped: false,
      equal: loans([1102, 2625], [630, 1500]),
      proportional: loans([1323, null], [756, null], [0, null]),
    });
  });

  it('Spring dropped: Fall alone, 6 ÷ 12 = 50% → $1,750 / $1,000 on Fall', () => {
    const scenario = withTerms(base, [base.terms[0]!]);
    const d = compareOne(base, scenario, [{ term: 1, drop: true }]).differences;
    expect(d.reduced_annual_pct).toEqual({ base: 63, scenario: 50, change: -13 });
    expect(
      d.terms.map((t) => [t.label, t.dropped, t.equal.subsidized.scenario, t.equal.unsubsidized.scenario]),
    ).toEqual([
      ['Fall', false, 1750, 1000],
      ['Spring', true, 0, 0],
    ]);
  });
});

describe('FSA example 4: Fall ends at 6 credits after $502 was paid', () => {
  // The base: the example before Fall's final credits were known (its published baseline): 9 + 12 + 12 = 33 of
  // 36 → 91.67% → 92%; Sub base min(2,000, 3,500) = 2,000, Unsub 3,500 lowered to 0 by total_limit 2,000;
  // 2,000 × 92% = 1,840; Fall closed at 502; 1,840 − 502 = 1,338 → 669 + 669 (both options: weights 12 and 12).
  const example = published('FSA-4');
  const withFinal = example.request as WireRequest;
  const before = withTerms(withFinal, [
    { ...withFinal.terms[0]!, actual_final_credits: null },
    ...withFinal.terms.slice(1),
  ]);

  it('the scenario is FSA example 4 itself: 30 ÷ 36 = 83% → $1,660; $1,158 → $579 + $579, −$90 each', () => {
    const outcome = compareOne(before, withFinal, [{ term: 0, actual_final_credits: '6' }]);
    expect(outcome.changes).toEqual([{ term: 0, actual_final_credits: 6 }]);
    expect(outcome.result).toMatchObject(example.expected);
    const d = outcome.differences;
    expect(d.reduced_annual_pct).toEqual({ base: 92, scenario: 83, change: -9 });
    expect(d.annual).toEqual(loans([1840, 1660], [0, 0]));
    expect(d.totals.equal).toEqual(loans([1840, 1660], [0, 0]));
    expect(d.terms.map((t) => [t.label, t.equal.subsidized, t.proportional.subsidized])).toEqual([
      ['Fall', triple(502, 502), triple(502, 502)],
      ['Spring', triple(669, 579), triple(669, 579)],
      ['Summer', triple(669, 579), triple(669, 579)],
    ]);
  });

  it('the other way round: the final credits taken away give back the baseline, +$90 each', () => {
    const outcome = compareOne(withFinal, before, [{ term: 0, actual_final_credits: null }]);
    expect(outcome.changes).toEqual([{ term: 0, actual_final_credits: null }]);
    const d = outcome.differences;
    expect(d.reduced_annual_pct).toEqual({ base: 83, scenario: 92, change: 9 });
    expect(d.terms.map((t) => t.equal.subsidized.change)).toEqual([0, 90, 90]);
  });
});

describe('properties over generated students', () => {
  const RUNS = { numRuns: 300 };

  /** A change that sets a term's field to the value it already has: no effective change. */
  const sameValueChange = (input: CalculationInput, pick: number, kind: number): ScenarioChange => {
    const term = pick % input.terms.length;
    const t = input.terms[term]!;
    return kind % 2 === 0
      ? { term, credits_enrolled: t.credits_enrolled }
      : { term, actual_final_credits: t.actual_final_credits };
  };

  it('a scenario with no effective change has every change 0 and the base’s very result', () => {
    fc.assert(
      fc.property(inputArb, fc.nat(), fc.nat(), (input, pick, kind) => {
        const outcome = compareScenarios({
          base: input,
          scenarios: [{ name: 'same', changes: [sameValueChange(input, pick, kind)], input }],
        });
        const scenario = outcome.scenarios[0]!;
        expect(scenario.result).toEqual(outcome.base);
        const d = scenario.differences;
        const triples = [
          d.reduced_annual_pct,
          ...Object.values(d.annual),
          ...Object.values(d.totals.equal),
          ...Object.values(d.totals.proportional),
          ...d.terms.flatMap((t) => [...Object.values(t.equal), ...Object.values(t.proportional)]),
        ];
        for (const t of triples) {
          expect(t.change === 0 || (t.change === null && t.base === null && t.scenario === null)).toBe(true);
        }
        expect(d.terms.every((t) => !t.dropped)).toBe(true);
      }),
      RUNS,
    );
  });

  it('every triple is its two sides’ figures, terms aligned by the base (a dropped term at 0)', () => {
    fc.assert(
      fc.property(
        inputArb.filter((i) => i.terms.length >= 2),
        fc.nat(),
        (input, pick) => {
          const dropped = pick % input.terms.length;
          const scenarioInput = { ...input, terms: input.terms.filter((_, i) => i !== dropped) };
          const outcome = compareScenarios({
            base: input,
            scenarios: [{ name: 'drop', changes: [{ term: dropped, drop: true }], input: scenarioInput }],
          });
          const base = calculate(input);
          const scenario = calculate(scenarioInput);
          const s = outcome.scenarios[0]!;
          expect(outcome.base).toEqual(base);
          expect(s.result).toEqual(scenario);
          expect(s.differences.annual.subsidized).toEqual(
            triple(base.annual_basic_eligibility_sub, scenario.annual_basic_eligibility_sub),
          );
          const kept = input.terms.map((_, i) => i).filter((i) => i !== dropped);
          s.differences.terms.forEach((t, i) => {
            const other = kept.indexOf(i) === -1 ? undefined : scenario.terms[kept.indexOf(i)];
            expect(t.dropped).toBe(i === dropped);
            expect(t.equal.unsubsidized).toEqual(
              triple(base.terms[i]!.equal.unsubsidized, other?.equal.unsubsidized ?? 0),
            );
            const proportionalScenario =
              other === undefined ? (scenario.show_both_options ? 0 : null) : (other.proportional?.grad_plus ?? null);
            expect(t.proportional.grad_plus).toEqual(
              triple(base.terms[i]!.proportional?.grad_plus ?? null, proportionalScenario),
            );
          });
        },
      ),
      RUNS,
    );
  });
});
