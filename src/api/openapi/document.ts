/**
 * The OpenAPI 3.1 document of the service, generated with zod-openapi from the same zod schemas that validate
 * requests (src/schema/request.ts) and describe responses (src/schema/response.ts), with the prose of prose.ts
 * and the examples of examples.ts (data: nothing here runs the engine). Served at GET /v1/openapi.json. Here:
 * POST /v1/calculate, the operational paths and the components; the bulk, worksheet and compare path items in their
 * own files (bulk-path.ts, worksheet-path.ts, compare-path.ts), on the shared headers of headers.ts.
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
import { bulkPathItem } from './bulk-path.ts';
import { errorExample, requestExamples, responseExamples, validationExamples } from './examples.ts';
import { calculationHeaders, commonRequestHeaders, errorResponse, responseHeaders } from './headers.ts';
import { calculateDescription, fmt, infoDescription } from './prose.ts';
import { requireBearer } from './access.ts';
import { worksheetPathItem } from './worksheet-path.ts';
import { comparePathItem } from './compare-path.ts';
import { defaultsInWords } from './request-defaults.ts';
import { TEMPLATE_PATHS } from './files-params.ts';
import { jobWebhooks } from './webhooks-entry.ts';

export const API_VERSION = '1.0.0';

export interface OpenApiOptions {
  /** Extra paths merged into the document (e.g. the async jobs API). Must not redefine an existing path. */
  paths?: ZodOpenApiPathsObject;
  /** Limits from the running configuration, stated in the descriptions. */
  limits?: { maxBodyBytes?: number; bulkMaxBytes?: number; bulkMaxRows?: number };
  /** Access control of the running configuration: with `required`, bearerAuth is applied (./access.ts). */
  auth?: { required: boolean; prefix: string };
}

// ---------------------------------------------------------------------------------------------------------------
// The reserved answers of access control, and readiness
// ---------------------------------------------------------------------------------------------------------------

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
    '/v1/calculate/bulk': bulkPathItem(limits),
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

  paths['/v1/calculate/compare'] = comparePathItem({
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
    // Relative: resolved against where this description was fetched from, so /docs (Try it out) and generated
    // clients talk to the service that served it, whatever its host, port or scheme.
    servers: [{ url: '/', description: 'This service: the origin that served this description.' }],
    // Open API: anonymous access ({}) or the declared, not enforced, bearer scheme.
    security: [{}, { bearerAuth: [] }],
    tags: [
      { name: 'calculation', description: 'Schedule of Reductions calculations.' },
      { name: 'documentation', description: 'This description.' },
      { name: 'operations', description: 'Liveness and readiness probes.' },
    ],
    paths,
    webhooks: jobWebhooks(),
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
  defaultsInWords(document);
  return options.auth?.required ? requireBearer(document, options.auth.prefix) : document;
}
