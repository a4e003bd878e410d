/**
 * What-if comparisons (POST /v1/calculate/compare): one student's calculation (the base) beside the same student
 * under a few named scenarios — a term's credits changed, a final credit count known, a term dropped — with every
 * figure's difference. Pure: the schema layer (src/schema/compare.ts) validates the request and builds each
 * scenario's own CalculationInput (the base request with the scenario's changes applied, validated as any request
 * is); this module calculates them and lines the results up.
 *
 * Differences are `{base, scenario, change}` triples (change = scenario − base), per term aligned by the base's
 * terms: a dropped term is `dropped: true` with scenario amounts 0. A proportional figure is null on a side that
 * does not offer the proportional option (rules.md §5), and its change is then null too.
 */
import { calculate } from './calculate.ts';
import { dec } from './decimal-read.ts';
import { toJsonNumber } from './output.ts';
import type { CalculationInput, CalculationResult, DecimalString, DisbursementOption } from './types.ts';

/** One change of a scenario: `term` is the 0-based index of a term of the base request. */
export type ScenarioChange =
  | { term: number; credits_enrolled: DecimalString }
  | { term: number; actual_final_credits: DecimalString | null }
  | { term: number; drop: true };

/** A change as answered: credit counts as normalised JSON numbers (24, not "24.0"), like the result's echo. */
export type WireScenarioChange =
  | { term: number; credits_enrolled: number }
  | { term: number; actual_final_credits: number | null }
  | { term: number; drop: true };

export interface ScenarioInput {
  name: string;
  changes: readonly ScenarioChange[];
  /** The base request with `changes` applied, validated like any request (src/schema/compare.ts). */
  input: CalculationInput;
}

export interface CompareInput {
  base: CalculationInput;
  scenarios: readonly ScenarioInput[];
}

/** One figure on both sides and its change (scenario − base). */
export interface Difference {
  base: number;
  scenario: number;
  change: number;
}

/** A figure of an option that one side may not offer (null there, and then the change is null). */
export interface OptionalDifference {
  base: number | null;
  scenario: number | null;
  change: number | null;
}

export interface LoanDifferences<D> {
  subsidized: D;
  unsubsidized: D;
  grad_plus: D;
}

export interface TermDifference {
  /** The term's index in the base request. */
  term: number;
  label: string;
  /** The scenario drops this term: its scenario amounts are 0. */
  dropped: boolean;
  equal: LoanDifferences<Difference>;
  proportional: LoanDifferences<OptionalDifference>;
}

export interface ScenarioDifferences {
  reduced_annual_pct: Difference;
  /** annual_basic_eligibility_sub / _unsub / _grad_plus. */
  annual: LoanDifferences<Difference>;
  /** total_equal and total_proportional (which equals total_equal where the option is not offered). */
  totals: { equal: LoanDifferences<Difference>; proportional: LoanDifferences<Difference> };
  /** One per term of the base request, in its order. */
  terms: TermDifference[];
}

export interface ScenarioOutcome {
  name: string;
  changes: WireScenarioChange[];
  result: CalculationResult;
  differences: ScenarioDifferences;
}

export interface CompareOutcome {
  base: CalculationResult;
  scenarios: ScenarioOutcome[];
}

const LOANS = ['subsidized', 'unsubsidized', 'grad_plus'] as const;

const difference = (base: number, scenario: number): Difference => ({ base, scenario, change: scenario - base });

const optionalDifference = (base: number | null, scenario: number | null): OptionalDifference => ({
  base,
  scenario,
  change: base === null || scenario === null ? null : scenario - base,
});

function loanDifferences<D>(pick: (loan: (typeof LOANS)[number]) => D): LoanDifferences<D> {
  return { subsidized: pick('subsidized'), unsubsidized: pick('unsubsidized'), grad_plus: pick('grad_plus') };
}

const optionDifferences = (base: DisbursementOption, scenario: DisbursementOption) =>
  loanDifferences((loan) => difference(base[loan], scenario[loan]));

/** The base's term indexes the scenario keeps, in order: the scenario result's term i is base term kept[i]. */
export function keptTerms(termCount: number, changes: readonly ScenarioChange[]): number[] {
  const dropped = new Set(changes.filter((c) => 'drop' in c).map((c) => c.term));
  return Array.from({ length: termCount }, (_, i) => i).filter((i) => !dropped.has(i));
}

/** The differences between the base's result and a scenario's, terms aligned by the base's. */
export function scenarioDifferences(
  base: CalculationResult,
  scenario: CalculationResult,
  changes: readonly ScenarioChange[],
): ScenarioDifferences {
  const kept = keptTerms(base.terms.length, changes);
  const scenarioTermOf = new Map(kept.map((baseIndex, i) => [baseIndex, scenario.terms[i]]));
  const zero: DisbursementOption = { subsidized: 0, unsubsidized: 0, grad_plus: 0 };
  const noProportional = scenario.show_both_options ? zero : null;
  return {
    reduced_annual_pct: difference(base.reduced_annual_pct, scenario.reduced_annual_pct),
    annual: {
      subsidized: difference(base.annual_basic_eligibility_sub, scenario.annual_basic_eligibility_sub),
      unsubsidized: difference(base.annual_basic_eligibility_unsub, scenario.annual_basic_eligibility_unsub),
      grad_plus: difference(base.annual_basic_eligibility_grad_plus, scenario.annual_basic_eligibility_grad_plus),
    },
    totals: {
      equal: optionDifferences(base.total_equal, scenario.total_equal),
      proportional: optionDifferences(base.total_proportional, scenario.total_proportional),
    },
    terms: base.terms.map((baseTerm, i) => {
      const scenarioTerm = scenarioTermOf.get(i);
      const equal = scenarioTerm?.equal ?? zero;
      // A dropped term has no proportional amount of its own: 0 where the scenario offers the option, else null.
      const proportional = scenarioTerm === undefined ? noProportional : scenarioTerm.proportional;
      return {
        term: i,
        label: baseTerm.label,
        dropped: scenarioTerm === undefined,
        equal: optionDifferences(baseTerm.equal, equal),
        proportional: loanDifferences((loan) =>
          optionalDifference(baseTerm.proportional?.[loan] ?? null, proportional?.[loan] ?? null),
        ),
      };
    }),
  };
}

const creditsNumber = (value: DecimalString) => toJsonNumber(dec(value));

/** A change as answered (credit counts as JSON numbers). */
export function wireChange(change: ScenarioChange): WireScenarioChange {
  if ('drop' in change) return { term: change.term, drop: true };
  if ('credits_enrolled' in change) {
    return { term: change.term, credits_enrolled: creditsNumber(change.credits_enrolled) };
  }
  const final = change.actual_final_credits;
  return { term: change.term, actual_final_credits: final === null ? null : creditsNumber(final) };
}

/** Calculates the base and every scenario, and the differences of each scenario against the base. */
export function compareScenarios(input: CompareInput): CompareOutcome {
  const base = calculate(input.base);
  return {
    base,
    scenarios: input.scenarios.map((s) => {
      const result = calculate(s.input);
      return {
        name: s.name,
        changes: s.changes.map(wireChange),
        result,
        differences: scenarioDifferences(base, result, s.changes),
      };
    }),
  };
}
