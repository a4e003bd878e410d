/**
 * The worksheet's schemas (POST /v1/calculate/worksheet): the response `{rule_set, policy, summary, result, steps}`,
 * where `summary` is page 1 (worksheet-summary.ts) and each step one computation of the trace (src/domain/trace.ts),
 * and the request's own field, `student` (student.ts). The single source of the OpenAPI schema of the worksheet;
 * tests parse real responses with it.
 */
import 'zod-openapi';
import { z } from 'zod';
import { PolicyInForceSchema } from './policy.ts';
import { CalculationResultSchema } from './response.ts';
import { WorksheetSummarySchema } from './worksheet-summary.ts';

export { WorksheetSummarySchema } from './worksheet-summary.ts';

const StepScalarSchema = z.union([z.number(), z.string(), z.boolean(), z.null()]);

export const TraceStepSchema = z
  .strictObject({
    id: z.string().meta({
      description:
        'Stable id of the step: "base.sub", "cap.total_limit", "percentage", "annual.sub", "term[0].eligibility", ' +
        '"term[0].proportional.sub", "baseline.term[1].equal.sub", "term[1].adjustment", "warnings".',
      example: 'term[0].proportional.sub',
    }),
    section: z.string().meta({ description: 'The section of the calculation rules (rules.md): "§3", "§2.2".' }),
    title: z.string().meta({ description: 'What the step computes, in words.' }),
    citation: z.string().meta({
      description: 'The legal citation of the rule, from the limit table or the rule data (never empty).',
    }),
    formula: z.string().meta({
      description:
        'The formula in words and in figures: "annual sub × term credits ÷ Σ credits = 2205 × 6 ÷ 15 = 882".',
    }),
    inputs: z
      .record(z.string(), z.union([StepScalarSchema, z.array(StepScalarSchema)]))
      .meta({ description: 'The named values the step starts from.' }),
    output: z.record(z.string(), StepScalarSchema).meta({
      description:
        'JSON paths of the CalculationResult this step produces, mapped to their values there ' +
        '(`{"terms[0].proportional.subsidized": 882}`); empty for an intermediate step. Every value of `result` ' +
        '(term labels aside) is the output of exactly one step.',
    }),
  })
  .meta({ id: 'TraceStep', description: 'One step of the worksheet: how one part of the result was computed.' });

export const WorksheetSchema = z
  .strictObject({
    rule_set: z.string().meta({ description: 'The rule set that made the calculation (also in X-Rule-Set).' }),
    policy: PolicyInForceSchema,
    summary: WorksheetSummarySchema,
    result: CalculationResultSchema,
    steps: z.array(TraceStepSchema).meta({ description: 'The computation, in order.' }),
  })
  .meta({
    id: 'Worksheet',
    description: 'The calculation result with its summary (page 1 of the worksheet) and every step that produced it.',
  });

export type WireWorksheet = z.output<typeof WorksheetSchema>;
