/**
 * The OpenAPI path item of POST /v1/calculate/compare (src/api/compare-route.ts): the CompareRequest and
 * CompareResult schemas (src/schema/compare-schema.ts), the worked examples of compare-examples.ts, the 422 of
 * a comparison (its example made by the request parser, like the calculate path's), and the same 400/413/415/500
 * answers as /v1/calculate.
 */
import { z } from 'zod';
import type { ZodOpenApiExampleObject, ZodOpenApiPathItemObject, ZodOpenApiResponseObject } from 'zod-openapi';
import {
  CompareRequestSchema,
  CompareResultSchema,
  MAX_CHANGES,
  MAX_SCENARIOS,
  parseCompareRequest,
} from '../../schema/compare.ts';
import { validationMessage } from '../../schema/request.ts';
import { ErrorSchema, FieldValidationErrorBodySchema } from '../../schema/response.ts';
import { COMPARE_EXAMPLES, compareRequestExamples, compareResponseExamples } from './compare-examples.ts';
import { errorExample } from './examples.ts';
import { fmt } from './prose.ts';

/** What document.ts already defines for every calculation path, handed over so all stay the same. */
export interface ComparePathParts {
  calculationHeaders: z.ZodObject;
  responseHeaders: z.ZodObject;
  requestHeaders: z.ZodObject;
  errorResponse(description: string, examples: Record<string, { value: unknown }>): ZodOpenApiResponseObject;
  maxBodyBytes: number;
}

const description = (maxBodyBytes: number) =>
  'What-if for one student: the base request (any CalculationRequest, its `policy` included) and 1 to ' +
  `${MAX_SCENARIOS} named scenarios, each a list of 1 to ${MAX_CHANGES} changes to the base's terms: a term's ` +
  '`credits_enrolled` ("drop to 6 credits in Spring"), its `actual_final_credits` ("Fall ends at 6 credits"; ' +
  'null takes them away), or `drop: true` (the term is left out). A change names its term by its 0-based index ' +
  'in `base.terms`; each field of a term changes at most once per scenario, and a dropped term takes no other ' +
  'change.\n\n' +
  'Each scenario is the base request as sent with its changes applied, calculated exactly as POST /v1/calculate ' +
  'calculates that request (same rules, same policy, same award year): `result` is that answer. `differences` ' +
  'lines the scenario up with the base as `{base, scenario, change}` triples (change = scenario − base, whole ' +
  'dollars and percentage points): `reduced_annual_pct`, the annual amounts (`annual`), the totals under each ' +
  'option (`totals`), and every term of the base under each option (`terms`, in the base’s order; a dropped term ' +
  'is `dropped: true` with scenario amounts 0). A proportional figure is null on a side that does not offer the ' +
  'proportional option, and its change is then null.\n\n' +
  'The same door as POST /v1/calculate: JSON only (415 otherwise), at most ' +
  `${fmt(maxBodyBytes)} bytes (413), 400 for a body that is not a UTF-8 JSON object, and a 422 naming every ` +
  'offending field by path — `base.terms[1].credits_enrolled` for the base, `scenarios[0].changes[1].term` for a ' +
  'change, `scenarios[2]` for a scenario whose changed request is not a valid request (every term dropped), with ' +
  'the reason. Access control and rate limits as on /v1/calculate (one unit per request).';

function compareValidationExamples(): Record<string, ZodOpenApiExampleObject> {
  const example = COMPARE_EXAMPLES[0]!.request;
  const invalid = {
    base: example.base,
    scenarios: [
      {
        name: 'Drop both terms',
        changes: [
          { term: 0, drop: true },
          { term: 1, drop: true },
        ],
      },
      { name: 'Spring at 6 credits', changes: [{ term: 2, credits_enrolled: 6 }] },
    ],
  };
  const parsed = parseCompareRequest(invalid);
  const fieldErrors = parsed.ok ? [] : parsed.fieldErrors;
  return {
    invalid_scenarios: {
      summary: 'A scenario that drops every term, and a change of a term the base does not have',
      value: { code: 'validation_error', message: validationMessage(fieldErrors.length), field_errors: fieldErrors },
    },
  };
}

export function comparePathItem(parts: ComparePathParts): ZodOpenApiPathItemObject {
  return {
    post: {
      operationId: 'compareScenarios',
      tags: ['calculation'],
      summary: 'What-if: one student under up to five scenarios (changed credits, final credits, dropped terms)',
      description: description(parts.maxBodyBytes),
      requestParams: { header: parts.requestHeaders },
      requestBody: {
        required: true,
        content: { 'application/json': { schema: CompareRequestSchema, examples: compareRequestExamples() } },
      },
      responses: {
        '200': {
          description: 'The base’s result, each scenario’s result, and the differences.',
          headers: parts.calculationHeaders,
          content: { 'application/json': { schema: CompareResultSchema, examples: compareResponseExamples() } },
        },
        '400': parts.errorResponse('The body is not UTF-8, not JSON, or not a JSON object (code invalid_json).', {
          not_json: errorExample('BODY_NOT_JSON'),
        }),
        '413': parts.errorResponse(
          `The body is larger than ${fmt(parts.maxBodyBytes)} bytes (code validation_error).`,
          { too_large: errorExample('BODY_TOO_LARGE', { limit: parts.maxBodyBytes }) },
        ),
        '415': parts.errorResponse('The content type is not JSON (code unsupported_media_type).', {
          not_json: errorExample('JSON_CONTENT_TYPE'),
        }),
        '422': {
          description: 'Validation failed: FieldValidationErrorBody naming every offending field by path.',
          headers: parts.responseHeaders,
          content: {
            'application/json': {
              schema: z.union([FieldValidationErrorBodySchema, ErrorSchema]),
              examples: compareValidationExamples(),
            },
          },
        },
        '500': parts.errorResponse('Unexpected failure (code internal_error). Never carries internal detail.', {
          internal: errorExample('INTERNAL'),
        }),
      },
    },
  };
}
