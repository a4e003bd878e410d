/**
 * Worksheet steps and notes of the school policy (rules.md §10): the step listing the options in force when they are
 * not the defaults, and the note a formula carries when an option it depends on is not the default.
 */

import type { CalculationWorkings } from './calculate.ts';
import { CITATIONS } from './citations.ts';
import { DEFAULT_POLICY as POLICY_DEFAULTS, type PolicyOptionName, policyText } from './policy.ts';
import type { TraceStep } from './trace-step.ts';

/** "; school policy proration_fraction=decimal_rounded (rules.md §10)" when one of `options` is not the default. */
export function policyNote(w: CalculationWorkings, options: readonly PolicyOptionName[]): string {
  const changed = options.filter((o) => w.input.policy[o] !== POLICY_DEFAULTS[o]);
  if (changed.length === 0) return '';
  return ` (school policy ${changed.map((o) => `${o}=${w.input.policy[o]}`).join(', ')}, rules.md §10)`;
}

/** §10: the school policy in force, when it is not the default (the worksheet lists every option). */
export function policyStep(w: CalculationWorkings): TraceStep | null {
  const text = policyText(w.input.policy);
  if (text === '') return null;
  return {
    id: 'policy',
    section: '§10',
    title: 'School policy in force',
    citation: CITATIONS.schoolPolicy.citation,
    formula: `options not at their default: ${text}; every other option at its default (${policyText(w.input.policy, 'all')})`,
    inputs: Object.fromEntries(Object.entries(w.input.policy)),
    output: {},
  };
}
