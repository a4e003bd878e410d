/**
 * explain_amount: a request and a path of its result (`terms[1].proportional.subsidized`, `reduced_annual_pct`, or
 * a part of the result such as `terms[1].proportional`) → the worksheet steps that produced it and the steps they
 * rest on, each with its rule (rules.md section), legal citation and formula in figures (src/mcp/derivation.ts). A
 * path the result does not have is an invalid call whose answer lists every valid path.
 */
import { z } from 'zod';
import { RULE_SET_ID } from '../../domain/rule-set.ts';
import { calculateWithTrace } from '../../domain/trace.ts';
import { CalculationRequestSchema } from '../../schema/request.ts';
import { invalidAnswer, okAnswer, type ToolAnswer } from '../answers.ts';
import { argumentErrors } from '../argument-errors.ts';
import { derivationOf, resultPaths } from '../derivation.ts';
import { toolInputSchema } from '../json-schema.ts';
import { readRequest } from '../request-input.ts';
import type { ToolContext, ToolSpec } from './tool.ts';

const PATH_DESCRIPTION =
  'A path of the calculation result, written as the API’s field paths are: `reduced_annual_pct`, ' +
  '`annual_basic_eligibility_sub`, `terms[1].proportional.subsidized`, `total_equal.unsubsidized`, ' +
  '`terms[0].adjustment_sub`. A part of the result (`terms[1].proportional`, `total_equal`) explains each value ' +
  'in it.';

/** The arguments; `request` is read by the API's validator (the listed schema is the CalculationRequest's). */
const ExplainArguments = z.strictObject({
  request: z.unknown().optional(),
  path: z.string({ error: 'must be a string: a path of the result' }).min(1, 'must not be empty').meta({
    description: PATH_DESCRIPTION,
  }),
});

/** The values a path names: itself, or every value under it; a leading `result.` is read as the result itself. */
function valuesUnder(paths: readonly string[], path: string): string[] {
  const own = path.startsWith('result.') ? path.slice('result.'.length) : path;
  return paths.filter((p) => p === own || p.startsWith(`${own}.`) || p.startsWith(`${own}[`));
}

function run(args: unknown, context: ToolContext): ToolAnswer {
  const errors = argumentErrors(ExplainArguments, args);
  const request = (args as { request?: unknown } | undefined)?.request;
  const read = readRequest(request, context.parseOptions, 'request.', errors);
  if (!read.ok) return read.answer;
  const path = (args as { path: string }).path;

  const { steps } = calculateWithTrace(read.input);
  const paths = resultPaths(steps);
  const leaves = valuesUnder(paths, path);
  if (leaves.length === 0) {
    const message = `is not a path of this result; the valid paths are: ${paths.join(', ')}`;
    return invalidAnswer([{ field: 'path', message }], { valid_paths: paths });
  }
  const { producers, steps: derivation } = derivationOf(steps, leaves);
  const values: Record<string, unknown> = {};
  for (const step of producers) {
    for (const [leaf, value] of Object.entries(step.output)) if (leaves.includes(leaf)) values[leaf] = value;
  }
  const produced = new Set(producers);
  return okAnswer({
    rule_set: RULE_SET_ID,
    policy: { ...read.input.policy },
    path,
    values,
    produced_by: producers.map((s) => s.id),
    steps: derivation.map((step) => ({ ...step, role: produced.has(step) ? 'produced' : 'rests_on' })),
  });
}

export const EXPLAIN_TOOL: ToolSpec = {
  name: 'explain_amount',
  title: 'Explain an amount, step by step',
  description:
    'Shows how one figure of a calculation was reached, as the worksheet an auditor reads: the step that ' +
    'produced the value at `path` of the result, and the steps it rests on (the percentage, the annual amount, ' +
    'the statutory limit row, the split over the terms…), each with its rule, legal citation and formula in ' +
    'figures. `request` is the same CalculationRequest as calculate_loan_limits takes; an unknown path answers ' +
    'with every valid path. Missing inputs answer status "needs_input": ask the user, never guess.',
  inputSchema: toolInputSchema(ExplainArguments.extend({ request: CalculationRequestSchema })),
  run,
};
