/**
 * compare_scenarios: a base CalculationRequest and up to five named what-ifs (a term's credits changed, its final
 * credits known, a term dropped) → every result side by side with the differences, as POST /v1/calculate/compare
 * answers them (src/schema/compare.ts parseCompareRequest, src/domain/compare.ts compareScenarios). A base that
 * leaves out an input the rules need answers needs_input, its paths under `base.`.
 */
import { compareScenarios } from '../../domain/compare.ts';
import { RULE_SET_ID } from '../../domain/rule-set.ts';
import { CompareRequestSchema, parseCompareRequest } from '../../schema/compare.ts';
import { okAnswer, type ToolAnswer } from '../answers.ts';
import { toolInputSchema } from '../json-schema.ts';
import { appliedDefaults, failureAnswer } from '../request-input.ts';
import type { ToolContext, ToolSpec } from './tool.ts';

const BASE = 'base.';

function run(args: unknown, context: ToolContext): ToolAnswer {
  const parsed = parseCompareRequest(args, context.parseOptions);
  const base = (args as { base?: unknown } | undefined)?.base;
  if (!parsed.ok) {
    const ofBase = parsed.fieldErrors
      .filter((e) => e.field.startsWith(BASE))
      .map((e) => ({ field: e.field.slice(BASE.length), message: e.message }));
    return failureAnswer(parsed.fieldErrors, { errors: ofBase, body: base, prefix: BASE });
  }
  const outcome = compareScenarios(parsed.value);
  return okAnswer({
    rule_set: RULE_SET_ID,
    policy: { ...parsed.value.base.policy },
    defaults_applied: appliedDefaults(base as Record<string, unknown>, parsed.value.base, BASE),
    base: outcome.base,
    scenarios: outcome.scenarios,
  });
}

export const COMPARE_TOOL: ToolSpec = {
  name: 'compare_scenarios',
  title: 'Compare what-if scenarios',
  description:
    'Answers "what happens to my loans if…": one student’s calculation (`base`, a CalculationRequest) beside up ' +
    'to five named scenarios, each a list of changes to the base’s terms — `{"term": 1, "credits_enrolled": 6}`, ' +
    '`{"term": 0, "actual_final_credits": 9}` or `{"term": 2, "drop": true}` (`term` is the 0-based index in ' +
    'base.terms) — with every result and each figure’s difference {base, scenario, change}: the percentage, the ' +
    'annual amounts, the totals and every term under both options. The same answer as POST ' +
    '/v1/calculate/compare. Missing inputs of the base answer status "needs_input": ask the user, never guess.',
  inputSchema: toolInputSchema(CompareRequestSchema),
  run,
};
