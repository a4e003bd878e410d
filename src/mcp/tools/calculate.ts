/**
 * calculate_loan_limits: one student's CalculationRequest (its school policy included) → the result as POST
 * /v1/calculate answers it, its warnings, the rule set and policy that made it, and the worksheet's summary (page 1 of
 * the worksheet, src/domain/summary.ts: the percentage's arithmetic, each annual amount with its citation, the
 * schedule in an aid office's words) — or needs_input / the API's 422.
 */
import { RULE_SET_ID } from '../../domain/rule-set.ts';
import { worksheetSummary } from '../../domain/summary.ts';
import { calculateWithTrace } from '../../domain/trace.ts';
import { CalculationRequestSchema } from '../../schema/request.ts';
import { okAnswer, type ToolAnswer } from '../answers.ts';
import { toolInputSchema } from '../json-schema.ts';
import { readRequest } from '../request-input.ts';
import type { ToolContext, ToolSpec } from './tool.ts';

function run(args: unknown, context: ToolContext): ToolAnswer {
  const read = readRequest(args, context.parseOptions);
  if (!read.ok) return read.answer;
  const { result, steps } = calculateWithTrace(read.input);
  return okAnswer({
    rule_set: RULE_SET_ID,
    award_year: read.input.award_year,
    policy: { ...read.input.policy },
    defaults_applied: read.defaults,
    warnings: result.warnings,
    result,
    summary: worksheetSummary(read.input, result, steps),
  });
}

export const CALCULATE_TOOL: ToolSpec = {
  name: 'calculate_loan_limits',
  title: 'Calculate prorated Direct Loan limits',
  description:
    'Calculates one student’s prorated federal Direct Loan amounts (Schedule of Reductions, 34 CFR 685.203(m)): ' +
    'the academic-year percentage, the annual Subsidized, Unsubsidized and Grad PLUS amounts and each term’s ' +
    'amounts under the equal and proportional options, with the warnings for the student’s file and the ' +
    'worksheet summary (the arithmetic and the citation of each amount, in an aid office’s words). The arguments ' +
    'are the API’s CalculationRequest (POST /v1/calculate), school policy included. Never work the dollars out ' +
    'yourself: quote these. When a required input is missing the answer is status "needs_input" with the ' +
    'missing inputs in plain words: ask the user for them, never guess a value.',
  inputSchema: toolInputSchema(CalculationRequestSchema),
  run,
};
