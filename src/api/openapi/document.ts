/**
 * The OpenAPI 3.1 document of the service, generated with zod-openapi from the same zod schemas that validate
 * requests (src/schema/request.ts) and describe responses (src/schema/response.ts), with the prose of prose.ts
 * and bulk-prose.ts and the examples of examples.ts (data: nothing here runs the engine). Served at
 * GET /v1/openapi.json.
 *
 * Extension point: other modules add paths (e.g. the async /v1/jobs API) through `buildOpenApiDocument({ paths })`
 * (createApp passes `extra.openApiPaths`). Their paths may use any schema exported here; error responses outside
 * the v1 interface's own endpoints should use `ExtendedErrorSchema` (src/schema/response.ts).
 */
import { createDocument, type ZodOpenApiPathsObject, type ZodOpenApiResponseObject } from 'zod-openapi';
import { z } from 'zod';
import { RULE_SET_ID } from '../../domain/rule-set.ts';
import { CalculationRequestSchema } from '../../schema/request.ts';
import {
  BulkResultSchema,
  CalculationResultSchema,
  ErrorSchema,
  ExtendedErrorSchema,
  FieldValidationErrorBodySchema,
} from '../../schema/response.ts';
import { BULK_OUTPUT_COLUMNS, bulkDescription } from './bulk-prose.ts';
import { errorExample, MISSING_COLUMN, requestExamples, responseExamples, validationExamples } from './examples.ts';
import { dependentFirstYear } from './limits-prose.ts';
import { calculateDescription, fmt, infoDescription } from './prose.ts';
import { requireBearer } from './access.ts';
import { worksheetPathItem } from './worksheet-path.ts';
import { TEMPLATE_PATHS, UPLOAD_ENCODING_NOTE, UPLOAD_QUERY } from './files-params.ts';

export const API_VERSION = '1.0.0';

export interface OpenApiOptions {
  /** Extra paths merged into the document (e.g. the async jobs API). Must not redefine an existing path. */
  paths?: ZodOpenApiPathsObject;
  /** Limits from the running configuration, stated in the descriptions. */
  limits?: { maxBodyBytes?: number; bulkMaxBytes?: number; bulkMaxRows?: number };
  /** Access control of the running configuration: with `required`, bearerAuth is applied (./access.ts). */
  auth?: { required: boolean; prefix: string };
}

/** The sample student of the bulk CSV example (its amounts come from the limit table). */
const SAMPLE_STUDENT = dependentFirstYear();

// ---------------------------------------------------------------------------------------------------------------
// Headers and reusable responses
// ---------------------------------------------------------------------------------------------------------------

const RequestIdHeader = z.string().meta({
  description:
    'The request’s id: the client’s X-Request-Id (sanitised to at most 128 safe characters) or a generated UUID. ' +
    'Present on every response.',
  example: '3f1f6c1e-2b9e-4d55-9c55-0d5f3bd0b8a1',
  header: { id: 'X-Request-Id' },
});

const responseHeaders = z.object({ 'X-Request-Id': RequestIdHeader });

const RuleSetHeader = z.string().meta({
  description:
    'The rule set that made this calculation (rules and readings of the Schedule of Reductions, bumped whenever ' +
    'one changes). On every response of the calculation paths.',
  example: RULE_SET_ID,
  header: { id: 'X-Rule-Set' },
});

/** Headers of a calculation response (rules.md §8a). */
const calculationHeaders = responseHeaders.extend({ 'X-Rule-Set': RuleSetHeader });

const RequestIdParam = z
  .string()
  .optional()
  .meta({
    description:
      'Optional correlation id, echoed in the X-Request-Id response header (unsafe characters removed, at most 128 ' +
      'kept); generated when absent.',
  });

// Authorization and Accept are not declared as header parameters: OpenAPI ignores parameters with those names.
// Authorization is covered by the (not enforced) bearerAuth scheme; Accept by the operation descriptions.
const commonRequestHeaders = z.object({ 'X-Request-Id': RequestIdParam });

function errorResponse(
  description: string,
  examples: Record<string, { value: unknown; summary?: string }>,
): ZodOpenApiResponseObject {
  return {
    description,
    headers: responseHeaders,
    content: { 'application/json': { schema: ErrorSchema, examples } },
  };
}

const reservedHeader = (description: string) =>
  z.string().meta({ description: `RESERVED, not emitted today (no rate limiting is applied). ${description}` });

function reservedResponse(status: number, codes: string): ZodOpenApiResponseObject {
  return {
    description:
      `RESERVED, returned by no endpoint while the API is open (status ${status}, code ${codes}). Part of v1 so ` +
      'clients can handle it in advance.',
    content: { 'application/json': { schema: ErrorSchema } },
  };
}

const ReadinessSchema = z
  .strictObject({
    status: z.enum(['ok', 'unavailable']),
    checks: z.array(z.strictObject({ name: z.string(), ok: z.boolean(), detail: z.string().optional() })),
  })
  .meta({ id: 'Readiness' });

const readinessContent = { 'application/json': { schema: ReadinessSchema } };

// ---------------------------------------------------------------------------------------------------------------
// The document
// ---------------------------------------------------------------------------------------------------------------

export type OpenApiDocument = ReturnType<typeof createDocument>;

export function buildOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const limits = {
    maxBodyBytes: options.limits?.maxBodyBytes ?? 1024 * 1024,
    bulkMaxBytes: options.limits?.bulkMaxBytes ?? 512 * 1024 * 1024,
    bulkMaxRows: options.limits?.bulkMaxRows ?? 2_000_000,
  };

  const paths: ZodOpenApiPathsObject = {
    '/v1/calculate': {
      post: {
        operationId: 'calculate',
        tags: ['calculation'],
        summary: 'Prorated loan limits (Schedule of Reductions) for one student',
        description: calculateDescription(limits.maxBodyBytes),
        requestParams: { header: commonRequestHeaders },
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: CalculationRequestSchema, examples: requestExamples() },
          },
        },
        responses: {
          '200': {
            description: 'The calculation result.',
            headers: calculationHeaders,
            content: { 'application/json': { schema: CalculationResultSchema, examples: responseExamples() } },
          },
          '400': errorResponse('The body is not UTF-8, not JSON, or not a JSON object (code invalid_json).', {
            not_utf8: errorExample('BODY_NOT_UTF8'),
            not_json: errorExample('BODY_NOT_JSON'),
            not_object: errorExample('BODY_NOT_OBJECT'),
          }),
          '413': errorResponse(`The body is larger than ${fmt(limits.maxBodyBytes)} bytes (code validation_error).`, {
            too_large: errorExample('BODY_TOO_LARGE', { limit: limits.maxBodyBytes }),
          }),
          '415': errorResponse('The content type is not JSON (code unsupported_media_type).', {
            not_json: errorExample('JSON_CONTENT_TYPE'),
            encoded: errorExample('JSON_CONTENT_ENCODING'),
          }),
          '422': {
            description:
              'Validation failed: FieldValidationErrorBody naming every offending field (or an Error envelope).',
            headers: responseHeaders,
            content: {
              'application/json': {
                schema: z.union([FieldValidationErrorBodySchema, ErrorSchema]),
                examples: validationExamples(),
              },
            },
          },
          '500': errorResponse('Unexpected failure (code internal_error). Never carries internal detail.', {
            internal: errorExample('INTERNAL'),
          }),
        },
      },
    },
    '/v1/calculate/bulk': {
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
    },
    '/v1/openapi.json': {
      get: {
        operationId: 'openapi',
        tags: ['documentation'],
        summary: 'This OpenAPI 3.1 description',
        responses: {
          '200': {
            description: 'The OpenAPI document (a JSON object).',
            headers: responseHeaders,
            content: {
              'application/json': {
                schema: z.looseObject({}).meta({ description: 'An OpenAPI 3.1 document.' }),
              },
            },
          },
        },
      },
    },
    '/healthz': {
      get: {
        operationId: 'healthz',
        tags: ['operations'],
        summary: 'Liveness: 200 while the process serves HTTP',
        responses: {
          '200': {
            description: 'Alive.',
            headers: responseHeaders,
            content: { 'application/json': { schema: z.strictObject({ status: z.literal('ok') }) } },
          },
        },
      },
    },
    '/readyz': {
      get: {
        operationId: 'readyz',
        tags: ['operations'],
        summary: 'Readiness: 200 when every dependency check passes, 503 otherwise',
        responses: {
          '200': { description: 'Ready.', headers: responseHeaders, content: readinessContent },
          '503': {
            description: 'Not ready (a check failed or the process is shutting down).',
            headers: responseHeaders,
            content: readinessContent,
          },
        },
      },
    },
  };

  paths['/v1/calculate/worksheet'] = worksheetPathItem({
    calculationHeaders,
    responseHeaders,
    requestHeaders: commonRequestHeaders,
    errorResponse,
    maxBodyBytes: limits.maxBodyBytes,
  });

  for (const [path, item] of Object.entries({ ...TEMPLATE_PATHS, ...options.paths })) {
    if (path in paths) throw new Error(`OpenAPI path ${path} is already defined`);
    paths[path] = item;
  }

  const document = createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Prorated Federal Loan Limit Calculation Service',
      version: API_VERSION,
      description: infoDescription(limits.maxBodyBytes),
      'x-rule-set': RULE_SET_ID,
    },
    servers: [
      {
        url: '{base_url}',
        description: 'Where the service is deployed.',
        variables: { base_url: { default: 'http://localhost:8080' } },
      },
    ],
    // Open API: anonymous access ({}) or the declared, not enforced, bearer scheme.
    security: [{}, { bearerAuth: [] }],
    tags: [
      { name: 'calculation', description: 'Schedule of Reductions calculations.' },
      { name: 'documentation', description: 'This description.' },
      { name: 'operations', description: 'Liveness and readiness probes.' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Declared, NOT enforced: the v1 API is open and ignores Authorization. Planned: opaque, revocable ' +
            'tokens prefixed svc_live_ (production) or svc_test_ (sandbox), sent as Authorization: Bearer ' +
            '<ACCESS_TOKEN>.',
        },
      },
      headers: {
        'X-RateLimit-Limit': reservedHeader('Requests allowed in the current window.'),
        'X-RateLimit-Remaining': reservedHeader('Requests left in the current window.'),
        'X-RateLimit-Reset': reservedHeader('When the current window resets.'),
      },
      responses: {
        Unauthenticated: reservedResponse(401, 'unauthenticated or invalid_token'),
        Forbidden: reservedResponse(403, 'expired_token or revoked_token'),
        QuotaExceeded: reservedResponse(429, 'quota_exceeded'),
      },
      schemas: {
        Error: ErrorSchema,
        ExtendedError: ExtendedErrorSchema,
        FieldValidationErrorBody: FieldValidationErrorBodySchema,
        BulkResult: BulkResultSchema,
      },
    },
  });
  return options.auth?.required ? requireBearer(document, options.auth.prefix) : document;
}
