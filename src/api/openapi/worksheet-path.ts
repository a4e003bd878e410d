/**
 * The OpenAPI path item of POST /v1/calculate/worksheet (src/api/worksheet-route.ts): the same request body and
 * validation answers as /v1/calculate, the Worksheet schema (src/schema/worksheet.ts) for application/json, and
 * the printable text/html and application/pdf forms of the same content.
 */
import { z } from 'zod';
import type { ZodOpenApiPathItemObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { CalculationRequestSchema } from '../../schema/request.ts';
import { ErrorSchema, ExtendedErrorSchema, FieldValidationErrorBodySchema } from '../../schema/response.ts';
import { StudentSchema } from '../../schema/student.ts';
import { WorksheetSchema } from '../../schema/worksheet.ts';
import { errorExample, requestExamples, validationExamples } from './examples.ts';
import { WORKED_EXAMPLES } from './worked-examples.ts';
import { fmt } from './prose.ts';

/** What document.ts already defines for every calculation path, handed over so both stay the same. */
export interface WorksheetPathParts {
  calculationHeaders: z.ZodObject;
  responseHeaders: z.ZodObject;
  requestHeaders: z.ZodObject;
  errorResponse(description: string, examples: Record<string, { value: unknown }>): ZodOpenApiResponseObject;
  maxBodyBytes: number;
}

/**
 * The worksheet's request: every field of CalculationRequest (the same zod object, so the two never differ) and
 * `student`, which only this path accepts.
 */
export const WorksheetRequestSchema = (CalculationRequestSchema as unknown as z.ZodObject)
  .extend({ student: StudentSchema.optional() })
  .meta({
    id: 'WorksheetRequest',
    description:
      'A CalculationRequest (the same fields and rules) with, for the worksheet only, the optional `student` it is ' +
      'for: printed on the worksheet and in the PDF’s file name, never logged or stored.',
  });

/** The worked examples, led by FSA example 1 for a named student. */
function worksheetExamples(): ReturnType<typeof requestExamples> {
  const fsa1 = WORKED_EXAMPLES.find((e) => e.id === 'FSA-1')!;
  return {
    'FSA-1-student': {
      summary: 'FSA example 1 for a named student (the PDF is named worksheet-A00123456-2026-27.pdf)',
      value: { ...(fsa1.request as object), award_year: '2026-27', student: { name: 'Ana Díaz', id: 'A00123456' } },
    },
    ...requestExamples(),
  };
}

const DESCRIPTION =
  'The calculation of POST /v1/calculate for one student (same body, same validation, same result), with every ' +
  'step that produced it: for each step its rules section, the legal citation, the formula in words and figures, ' +
  'its inputs and the result fields it outputs (JSON paths such as `terms[0].proportional.subsidized`). Every ' +
  'value of the result is the output of exactly one step. The format follows `Accept`:\n\n' +
  '- `application/json` (also for no Accept or `*/*`): `{rule_set, policy, summary, result, steps}`, where ' +
  '`summary` is page 1 of the worksheet (WorksheetSummary: the percentage with its arithmetic, each annual amount ' +
  'as starting amount × percentage = amount with its citation, the schedule per term under both options, the ' +
  'totals, adjustments and warnings, in an aid office’s words);\n' +
  '- `text/html`: a printable worksheet for the student file: page 1 is the summary with the student, the award ' +
  'year, the rule set, the school policy and lines to sign (prepared by, reviewed by, date); the inputs and every ' +
  'step follow as appendices (a print stylesheet, no external resources);\n' +
  '- `application/pdf`: the same worksheet as a PDF (standard fonts; identical bytes for the same request, ' +
  'X-Request-Id and date), named `worksheet-<student id, else name>-<award year>.pdf` in Content-Disposition.\n\n' +
  'The optional `student` ({name, id}, this path only) is printed on the worksheet and in the PDF’s file name, ' +
  'and is never logged or stored; POST /v1/calculate refuses it as an unknown field. Any other Accept is a 406. ' +
  'Errors are the JSON envelope whatever the Accept.';

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
        content: { 'application/json': { schema: WorksheetRequestSchema, examples: worksheetExamples() } },
      },
      responses: {
        '200': {
          description: 'The worksheet, in the format Accept asks for.',
          headers: parts.calculationHeaders.extend({
            'Content-Disposition': z
              .string()
              .optional()
              .meta({
                description:
                  'application/pdf only: `inline; filename="worksheet-<student id, else name>-<award year>.pdf"`, the ' +
                  'id or name reduced to letters without accents, digits, `.`, `_` and `-`; ' +
                  '`worksheet-<award year>.pdf` when the request names no student.',
                example: 'inline; filename="worksheet-A00123456-2026-27.pdf"',
              }),
          }),
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
