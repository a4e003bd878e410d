/**
 * The OpenAPI path item of POST /v1/calculate/bulk (src/api/bulk-route.ts): the CSV file in (text/csv,
 * application/octet-stream or multipart/form-data), one output row per input row (CSV) or one BulkResult per
 * student (NDJSON) out, and the refusals of an upload (400, 406, 408, 413, 415, 503).
 */
import type { ZodOpenApiPathItemObject } from 'zod-openapi';
import { z } from 'zod';
import { ErrorSchema, ExtendedErrorSchema, FieldValidationErrorBodySchema } from '../../schema/response.ts';
import { BULK_OUTPUT_COLUMNS, bulkDescription } from './bulk-prose.ts';
import { errorExample, MISSING_COLUMN } from './examples.ts';
import { UPLOAD_ENCODING_NOTE, UPLOAD_QUERY } from './files-params.ts';
import { calculationHeaders, commonRequestHeaders, errorResponse, responseHeaders } from './headers.ts';
import { dependentFirstYear } from './limits-prose.ts';
import type { DocumentLimits } from './prose.ts';

/** The sample student of the bulk CSV example (its amounts come from the limit table). */
const SAMPLE_STUDENT = dependentFirstYear();

/** `limits`: those of the running configuration, stated in the description and the 413's examples. */
export function bulkPathItem(limits: DocumentLimits): ZodOpenApiPathItemObject {
  return {
    post: {
      operationId: 'calculateBulk',
      tags: ['calculation'],
      summary: 'Prorated loan limits for many students (CSV in, CSV or NDJSON out)',
      description: bulkDescription(limits) + UPLOAD_ENCODING_NOTE,
      requestParams: { header: commonRequestHeaders, query: UPLOAD_QUERY },
      requestBody: {
        required: true,
        content: {
          'text/csv': {
            schema: z.string().meta({ description: 'The CSV file (layout in the operation description).' }),
            example:
              'student_id,term_label,full_time_credits,credits_enrolled,dependency_status,grade_level,' +
              'academic_year_terms,subsidized_amount,total_limit\n' +
              `S-001,Fall,12,6,dependent,first_year,2,${SAMPLE_STUDENT.subsidizedMax},${SAMPLE_STUDENT.combinedMax}\n` +
              'S-001,Spring,12,9,,,,,\n',
          },
          'application/octet-stream': {
            schema: z.string().meta({ description: 'The CSV file, read exactly as text/csv.' }),
          },
          'multipart/form-data': {
            schema: z.object({
              file: z.string().meta({
                description: 'The CSV file (same layout as text/csv).',
                override: { type: 'string', contentMediaType: 'text/csv' },
              }),
            }),
            encoding: { file: { contentType: 'text/csv' } },
          },
        },
      },
      responses: {
        '200': {
          description: 'One output row per input row (text/csv) or one BulkResult per student (NDJSON).',
          headers: calculationHeaders.extend({
            'X-Bulk-Runner': z.enum(['inline', 'pool', 'queue']).meta({
              description:
                'Where the file ran: inline (small files), the worker-thread pool, or the queue workers. ' +
                'Informational; the output is byte-identical whichever runner produced it.',
            }),
          }),
          content: {
            'text/csv': {
              schema: z.string().meta({
                description: 'Every input column echoed, then: ' + BULK_OUTPUT_COLUMNS.join(', ') + '.',
              }),
            },
            'application/x-ndjson': {
              schema: z.string().meta({
                description: 'Newline-delimited JSON: one BulkResult object per line (itemSchema).',
                override: { type: 'string', contentMediaType: 'application/x-ndjson' },
              }),
            },
          },
        },
        '400': {
          description:
            'The file cannot be used: a missing, unknown or duplicate header column (FieldValidationErrorBody ' +
            'naming every offending column), or a body that is not a CSV file (Error envelope).',
          headers: responseHeaders,
          content: {
            'application/json': {
              schema: z.union([FieldValidationErrorBodySchema, ErrorSchema]),
              examples: {
                missing_column: errorExample(
                  'CSV_HEADER_INVALID',
                  { column: '"dependency_status"', problem: MISSING_COLUMN, more: '', allowed: '' },
                  { fieldErrors: [{ field: 'dependency_status', message: MISSING_COLUMN }] },
                ),
                empty: errorExample('CSV_EMPTY'),
                one_file: errorExample('MULTIPART_ONE_FILE'),
              },
            },
          },
        },
        '406': errorResponse('The Accept header asks for a format other than CSV or NDJSON.', {
          not_acceptable: errorExample('UPLOAD_NOT_ACCEPTABLE'),
        }),
        '413': errorResponse('The file is larger than the byte or row limit (code validation_error).', {
          too_large: errorExample('CSV_TOO_LARGE', { limit: limits.bulkMaxBytes }),
          too_many_rows: errorExample('CSV_TOO_MANY_ROWS', { maxRows: limits.bulkMaxRows }),
        }),
        '415': errorResponse('The content type is not text/csv or multipart/form-data.', {
          not_csv: errorExample('UPLOAD_MEDIA_TYPE'),
        }),
        '500': errorResponse('Unexpected failure before the response started (code internal_error).', {
          internal: errorExample('INTERNAL'),
        }),
        '408': {
          description:
            'The upload arrived slower than UPLOAD_MIN_BYTES_PER_SEC over a window of UPLOAD_RATE_WINDOW_MS (code ' +
            'request_timeout, an extension of the interface): it was stopped, its spooled bytes deleted, and the ' +
            'connection closed.',
          headers: responseHeaders,
          content: {
            'application/json': {
              schema: ExtendedErrorSchema,
              examples: { too_slow: errorExample('UPLOAD_TOO_SLOW', { minRate: 1024, seconds: 10 }) },
            },
          },
        },
        '503': {
          description:
            'BULK_MAX_CONCURRENT files are being computed already, or UPLOAD_MAX_SPOOLING uploads are being ' +
            'received (code service_busy, an extension of the interface): send the file again after Retry-After ' +
            'seconds, or submit it to POST /v1/jobs. A file of at most BULK_SMALL_FILE_ROWS rows has its own ' +
            'BULK_SMALL_MAX_CONCURRENT slots, so large files never starve small ones.',
          headers: responseHeaders.extend({
            'Retry-After': z.string().meta({ description: 'Seconds to wait before sending the file again.' }),
          }),
          content: { 'application/json': { schema: ExtendedErrorSchema } },
        },
      },
    },
  };
}
