/**
 * The OpenAPI path item of POST /v1/calculate/worksheet (src/api/worksheet-route.ts): the same request body and
 * validation answers as /v1/calculate, the Worksheet schema (src/schema/worksheet.ts) for application/json, and
 * the printable text/html and application/pdf forms of the same content.
 */
import { z } from 'zod';
import type { ZodOpenApiPathItemObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { CalculationRequestSchema } from '../../schema/request.ts';
import { ErrorSchema, ExtendedErrorSchema, FieldValidationErrorBodySchema } from '../../schema/response.ts';
import { WorksheetSchema } from '../../schema/worksheet.ts';
import { errorExample, requestExamples, validationExamples } from './examples.ts';
import { fmt } from './prose.ts';

/** What document.ts already defines for every calculation path, handed over so both stay the same. */
export interface WorksheetPathParts {
  calculationHeaders: z.ZodObject;
  responseHeaders: z.ZodObject;
  requestHeaders: z.ZodObject;
  errorResponse(description: string, examples: Record<string, { value: unknown }>): ZodOpenApiResponseObject;
  maxBodyBytes: number;
}

const DESCRIPTION =
  'The calculation of POST /v1/calculate for one student (same body, same validation, same result), with every ' +
  'step that produced it: for each step its rules section, the legal citation, the formula in words and figures, ' +
  'its inputs and the result fields it outputs (JSON paths such as `terms[0].proportional.subsidized`). Every ' +
  'value of the result is the output of exactly one step. The format follows `Accept`:\n\n' +
  '- `application/json` (also for no Accept or `*/*`): `{rule_set, result, steps}`;\n' +
  '- `text/html`: a printable worksheet for the student file (inputs, results with both options side by side, ' +
  'adjustments, warnings, the steps, rule set, date and request id; a print stylesheet, no external resources);\n' +
  '- `application/pdf`: the same worksheet as a PDF (standard fonts; identical bytes for the same request, ' +
  'X-Request-Id and date).\n\n' +
  'Any other Accept is a 406. Errors are the JSON envelope whatever the Accept.';

export function worksheetPathItem(parts: WorksheetPathParts): ZodOpenApiPathItemObject {
  return {
    post: {
      operationId: 'calculateWorksheet',
      tags: ['calculation'],
      summary: 'The calculation for one student with every step traced to its rule (JSON, HTML or PDF)',
      description: DESCRIPTION,
      requestParams: { header: parts.requestHeaders },
      requestBody: {
        required: true,
        content: { 'application/json': { schema: CalculationRequestSchema, examples: requestExamples() } },
      },
      responses: {
        '200': {
          description: 'The worksheet, in the format Accept asks for.',
          headers: parts.calculationHeaders,
          content: {
            'application/json': { schema: WorksheetSchema },
            'text/html': {
              schema: z.string().meta({ description: 'A self-contained, printable HTML page (UTF-8).' }),
            },
            'application/pdf': {
              schema: z.string().meta({
                description: 'A PDF document of the same worksheet.',
                override: { type: 'string', contentMediaType: 'application/pdf' },
              }),
            },
          },
        },
        '400': parts.errorResponse('The body is not UTF-8, not JSON, or not a JSON object (code invalid_json).', {
          not_json: errorExample('BODY_NOT_JSON'),
        }),
        '406': parts.errorResponse(
          'Accept allows none of application/json, text/html, application/pdf (code unsupported_media_type).',
          { not_acceptable: errorExample('WORKSHEET_NOT_ACCEPTABLE') },
        ),
        '413': parts.errorResponse(
          `The body is larger than ${fmt(parts.maxBodyBytes)} bytes (code validation_error).`,
          {
            too_large: errorExample('BODY_TOO_LARGE', { limit: parts.maxBodyBytes }),
          },
        ),
        '415': parts.errorResponse('The content type is not JSON (code unsupported_media_type).', {
          not_json: errorExample('JSON_CONTENT_TYPE'),
        }),
        '422': {
          description: 'Validation failed: FieldValidationErrorBody naming every offending field (as /v1/calculate).',
          headers: parts.responseHeaders,
          content: {
            'application/json': {
              schema: z.union([FieldValidationErrorBodySchema, ErrorSchema]),
              examples: validationExamples(),
            },
          },
        },
        '500': parts.errorResponse('Unexpected failure (code internal_error). Never carries internal detail.', {
          internal: errorExample('INTERNAL'),
        }),
        '503': {
          description:
            'application/pdf only: the PDF was not ready within its 10 s budget, or 32 PDFs wait already (code ' +
            'service_busy, an extension of the interface, with Retry-After); the HTML and JSON worksheets are not ' +
            'affected.',
          headers: parts.responseHeaders.extend({
            'Retry-After': z.string().meta({ description: 'Seconds to wait before asking for the PDF again.' }),
          }),
          content: {
            'application/json': {
              schema: ExtendedErrorSchema,
              examples: {
                pdf_timeout: errorExample('WORKSHEET_PDF_TIMEOUT', { seconds: 10, retryAfter: 5 }),
                pdf_busy: errorExample('WORKSHEET_PDF_BUSY', { limit: 32, retryAfter: 5 }),
              },
            },
          },
        },
      },
    },
  };
}
