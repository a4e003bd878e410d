/**
 * The examples of the OpenAPI document, built from data without running the engine: requests and published
 * figures from the worked examples (worked-examples.json), the free-text fields of each response example from
 * example-texts.json, 422 bodies from the request parser, error bodies from the error catalogue.
 * test/api/openapi-examples.test.ts runs the engine on every example request and compares it with the stored
 * response example, so drift is caught in tests, not at start-up.
 */
import type { ZodOpenApiExampleObject } from 'zod-openapi';
import type { CalculationResult } from '../../domain/types.ts';
import { entryEnvelope, type ErrorArgs, type ErrorName } from '../../errors.ts';
import { parseCalculationRequest, validationMessage } from '../../schema/request.ts';
import { INVALID_EXAMPLES, WORKED_EXAMPLES, type WorkedExample } from './worked-examples.ts';
import storedTexts from './example-texts.json' with { type: 'json' };

/** The free-text fields of a response example (their wording is the implementation's, so not in the spec). */
export interface ExampleTexts {
  warnings: string[];
  terms: { warning: string; adjustment_explanation: string }[];
}

export const EXAMPLE_TEXTS: Readonly<Record<string, ExampleTexts>> = storedTexts;

/**
 * The response example for a worked example: every figure is the published `expected` value; the free-text
 * fields that examples.json leaves to the implementation (warnings, warning, adjustment_explanation) are the
 * stored texts of example-texts.json (what the engine answers, checked by a test).
 */
export function exampleResponse(example: WorkedExample): CalculationResult {
  const texts = EXAMPLE_TEXTS[example.id];
  const e = example.expected;
  if (texts === undefined || texts.terms.length !== e.terms.length) {
    throw new Error(`example-texts.json has no texts for worked example ${example.id}, or not one per term`);
  }
  return {
    annual_ft_credits: e.annual_ft_credits,
    reduced_annual_pct: e.reduced_annual_pct,
    annual_basic_eligibility_sub: e.annual_basic_eligibility_sub,
    annual_basic_eligibility_unsub: e.annual_basic_eligibility_unsub,
    annual_basic_eligibility_grad_plus: e.annual_basic_eligibility_grad_plus,
    show_both_options: e.show_both_options,
    terms: e.terms.map((t, i) => ({
      label: t.label,
      enrollment_status: t.enrollment_status,
      enrollment_intensity_pct: t.enrollment_intensity_pct,
      disbursement_pct: t.disbursement_pct,
      adjustment_sub: t.adjustment_sub,
      adjustment_unsub: t.adjustment_unsub,
      adjustment_grad_plus: t.adjustment_grad_plus,
      adjustment_explanation: texts.terms[i]?.adjustment_explanation ?? '',
      adjustment_source_index: t.adjustment_source_index,
      credits_enrolled: t.credits_enrolled,
      full_time_credits: t.full_time_credits,
      equal: { ...t.equal },
      proportional: t.proportional === null ? null : { ...t.proportional },
      final_term_overdisbursement: t.final_term_overdisbursement,
      warning: texts.terms[i]?.warning ?? '',
    })),
    total_equal: { ...e.total_equal },
    total_proportional: { ...e.total_proportional },
    warnings: [...texts.warnings],
  };
}

function exampleTitle(example: WorkedExample): string {
  return `${example.id}: ${example.description.split(/(?<=\.)\s/)[0] ?? example.description}`;
}

export function requestExamples(): Record<string, ZodOpenApiExampleObject> {
  const out: Record<string, ZodOpenApiExampleObject> = {};
  for (const ex of WORKED_EXAMPLES) {
    out[ex.id] = {
      summary: exampleTitle(ex),
      description: `${ex.description}\n\nSource: ${ex.source.numbers} <${ex.source.url}>`,
      value: ex.request,
    };
  }
  for (const inv of INVALID_EXAMPLES) {
    out[inv.id] = { summary: `${inv.id} (rejected with 422): ${inv.description}`, value: inv.request };
  }
  return out;
}

export function responseExamples(): Record<string, ZodOpenApiExampleObject> {
  const out: Record<string, ZodOpenApiExampleObject> = {};
  for (const ex of WORKED_EXAMPLES) {
    out[ex.id] = {
      summary: exampleTitle(ex),
      description: `Figures as published: ${ex.source.numbers} <${ex.source.url}>`,
      value: exampleResponse(ex),
    };
  }
  return out;
}

export function validationExamples(): Record<string, ZodOpenApiExampleObject> {
  const out: Record<string, ZodOpenApiExampleObject> = {};
  for (const inv of INVALID_EXAMPLES) {
    const parsed = parseCalculationRequest(inv.request);
    const fieldErrors = parsed.ok ? [] : parsed.fieldErrors;
    out[inv.id] = {
      summary: `${inv.id}: ${inv.description}`,
      value: {
        code: 'validation_error',
        message: validationMessage(fieldErrors.length),
        field_errors: fieldErrors,
      },
    };
  }
  return out;
}

/** The field-error text csv-layout.ts gives a missing required column (the 400 example below). */
export const MISSING_COLUMN = 'is a required column and is missing';

/** An error example: the envelope the catalogue entry (src/errors.ts) answers, never a hand-written copy. */
export const errorExample = <K extends ErrorName>(name: K, ...args: ErrorArgs<K>) => ({
  value: entryEnvelope(name, ...args),
});
