/**
 * The async job API in the OpenAPI document: the Job, JobAccepted and JobError schemas and the paths of
 * POST /v1/jobs, GET /v1/jobs/{id} and GET /v1/jobs/{id}/result (served by src/api/jobs-route.ts).
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { entryEnvelope, type WireEnvelope } from '../../errors.ts';
import { JOB_ID_PATTERN } from '../../jobs/job-id.ts';
import { CheckSummarySchema, ExtendedErrorSchema } from '../../schema/response.ts';
import { JOBS_PATH, MAX_IDEMPOTENCY_KEY } from '../jobs-route.ts';
import { UPLOAD_ENCODING_NOTE, UPLOAD_QUERY } from './files-params.ts';
import { PolicyInForceSchema } from '../../schema/policy.ts';

const JobStatusSchema = z.enum(['queued', 'running', 'completed', 'failed']).meta({
  id: 'JobStatus',
  description: 'queued → running → completed | failed. A job whose service instance stopped reads as failed.',
});

const JobErrorSchema = z
  .object({
    code: z.string(),
    message: z.string(),
    field_errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'JobError', description: 'Why the job failed: the same envelope a synchronous bulk request returns.' });

export const JobSchema = z
  .object({
    id: z.string().regex(new RegExp(JOB_ID_PATTERN)),
    status: JobStatusSchema,
    format: z
      .enum(['csv', 'ndjson'])
      .meta({ description: 'Result format, chosen by the Accept header at submission.' }),
    progress: z.object({
      students_done: z.int().min(0),
      students_total: z.int().min(0).nullable().meta({ description: 'null until the file has been counted.' }),
      rows_done: z.int().min(0).meta({ description: 'Output rows written so far.' }),
      error_rows: z.int().min(0).meta({ description: 'Rows with row_status error so far (bad student data).' }),
    }),
    created_at: z.iso.datetime(),
    started_at: z.iso.datetime().nullable(),
    finished_at: z.iso.datetime().nullable(),
    error: JobErrorSchema.nullable(),
    status_url: z.string(),
    result_url: z.string(),
    check_summary: CheckSummarySchema.optional(),
    policy: PolicyInForceSchema,
  })
  .meta({ id: 'Job' });

const JobAcceptedSchema = z
  .object({
    id: z.string().regex(new RegExp(JOB_ID_PATTERN)),
    status: JobStatusSchema,
    status_url: z.string(),
    result_url: z.string(),
  })
  .meta({ id: 'JobAccepted' });

/** An error response; its examples are the envelopes of catalogue entries (src/errors.ts). */
const extendedError = (description: string, examples: Record<string, WireEnvelope>) => ({
  description,
  content: {
    'application/json': {
      schema: ExtendedErrorSchema,
      examples: Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { value }])),
    },
  },
});

const JobIdParam = z.object({
  id: z.string().regex(new RegExp(JOB_ID_PATTERN)).meta({ description: 'The job id returned by POST /v1/jobs.' }),
});

/** The /v1/jobs paths for the OpenAPI document (createApp's `openApiPaths`). */
export function jobsOpenApiPaths(options: {
  ttlSeconds: number;
  maxBytes: number;
  store: 'redis' | 'memory';
}): ZodOpenApiPathsObject {
  const storage =
    options.store === 'redis'
      ? 'Jobs and their results (gzip-compressed) are kept in Redis: they survive a restart of the API, and a ' +
        'restart of Redis when it keeps its append-only file (as the shipped compose and k8s files do).'
      : 'This instance runs without Redis: job records are kept in process memory (results gzip-compressed on ' +
        'disk) and are LOST when the service restarts; such a job then answers 410 job_lost.';
  return {
    [JOBS_PATH]: {
      post: {
        operationId: 'submitJob',
        tags: ['jobs'],
        summary: 'Submit a bulk CSV file to run in the background',
        description:
          'Accepts the same bodies as POST /v1/calculate/bulk and runs the same pipeline in the background. ' +
          'Poll `status_url`, then fetch `result_url`. The Accept header picks the result format (text/csv by ' +
          'default, or application/x-ndjson). With an `Idempotency-Key` header, repeating a submission returns ' +
          'the existing job (header `Idempotent-Replayed: true`). The key is scoped to the upload: an ' +
          'Idempotency-Key plus the sha256 of the file and the result format, so the same key with another file ' +
          `creates another job and a key alone never blocks another caller's file. A job that failed for the ` +
          "service's reasons (its instance stopped or shut down, an internal error, no room: codes internal_error, " +
          'job_store_full, insufficient_storage) releases its key: the same submission then creates a new job. ' +
          `${storage} A job and its ` +
          `result expire ${options.ttlSeconds} s after the job finished; a failed job's partial result is deleted at once.` +
          UPLOAD_ENCODING_NOTE,
        requestParams: {
          query: UPLOAD_QUERY,
          header: z.object({
            'Idempotency-Key': z.string().max(MAX_IDEMPOTENCY_KEY).optional().meta({
              description: 'Client-chosen key (1-255 visible ASCII characters) that makes the submission repeatable.',
            }),
          }),
        },
        requestBody: {
          required: true,
          content: {
            'text/csv': {
              schema: z.string().meta({ description: 'The CSV file (same layout as the bulk endpoint).' }),
            },
            'multipart/form-data': {
              schema: z.object({
                file: z
                  .string()
                  .meta({ description: 'The CSV file.', override: { type: 'string', contentMediaType: 'text/csv' } }),
              }),
              encoding: { file: { contentType: 'text/csv' } },
            },
          },
        },
        responses: {
          '202': {
            description: 'Accepted (or, for a repeated Idempotency-Key, the existing job).',
            headers: z.object({ Location: z.string().meta({ description: 'The status URL of the job.' }) }),
            content: { 'application/json': { schema: JobAcceptedSchema } },
          },
          '400': extendedError(
            'The file cannot be used (checked before the answer, as for POST /v1/calculate/bulk): bytes that are ' +
              'not UTF-8, an empty file, a bad header, malformed multipart, no or a second `file` part; or a ' +
              'malformed Idempotency-Key.',
            {
              not_utf8: entryEnvelope('CSV_NOT_UTF8', { line: 2, student: '', byte: '0xe9' }),
              empty: entryEnvelope('CSV_EMPTY'),
              idempotency_key: entryEnvelope('IDEMPOTENCY_KEY_INVALID', { max: MAX_IDEMPOTENCY_KEY }),
            },
          ),
          '406': extendedError('The Accept header allows neither text/csv nor application/x-ndjson.', {
            not_acceptable: entryEnvelope('UPLOAD_NOT_ACCEPTABLE'),
          }),
          '413': extendedError(`The file is larger than ${options.maxBytes} bytes or has more rows than the limit.`, {
            too_large: entryEnvelope('CSV_TOO_LARGE', { limit: options.maxBytes }),
          }),
          '415': extendedError('The body is neither text/csv nor multipart/form-data.', {
            not_csv: entryEnvelope('UPLOAD_MEDIA_TYPE'),
          }),
          '408': extendedError(
            'The upload arrived slower than UPLOAD_MIN_BYTES_PER_SEC over a window of UPLOAD_RATE_WINDOW_MS (code ' +
              'request_timeout): it was stopped and its spooled bytes deleted.',
            { too_slow: entryEnvelope('UPLOAD_TOO_SLOW', { minRate: 1024, seconds: 10 }) },
          ),
          '503': extendedError(
            'The job store (Redis) is unavailable, or the service is shutting down (code internal_error), or it ' +
              "has no room for this job's result (code job_store_full), or UPLOAD_MAX_SPOOLING uploads are being " +
              'received already (code service_busy, with Retry-After).',
            {
              uploads_busy: entryEnvelope('UPLOADS_BUSY', { limit: 32, retryAfter: 5 }),
              unavailable: entryEnvelope('JOB_STORE_UNAVAILABLE'),
              store_full: entryEnvelope('JOB_STORE_FULL', { where: 'Redis maxmemory', neededMiB: 120, freeMiB: 40 }),
            },
          ),
          '507': extendedError('The disk where uploads are spooled is full (code insufficient_storage): try later.', {
            disk_full: entryEnvelope('INSUFFICIENT_STORAGE'),
          }),
        },
      },
    },
    [`${JOBS_PATH}/{id}`]: {
      get: {
        operationId: 'getJob',
        tags: ['jobs'],
        summary: 'Status and progress of an async job',
        requestParams: { path: JobIdParam },
        responses: {
          '200': { description: 'The job.', content: { 'application/json': { schema: JobSchema } } },
          '404': extendedError('No such job, or it expired (code not_found).', {
            not_found: entryEnvelope('JOB_NOT_FOUND'),
            expired: entryEnvelope('JOB_EXPIRED'),
          }),
          '410': extendedError('The job was accepted but its records were lost (code job_lost): submit it again.', {
            lost: entryEnvelope('JOB_LOST'),
          }),
        },
      },
    },
    [`${JOBS_PATH}/{id}/result`]: {
      get: {
        operationId: 'getJobResult',
        tags: ['jobs'],
        summary: 'The result of a completed job, streamed in input order',
        requestParams: { path: JobIdParam },
        responses: {
          '200': {
            description: 'Exactly what POST /v1/calculate/bulk would have answered for the same file and Accept.',
            content: {
              'text/csv': { schema: z.string() },
              'application/x-ndjson': {
                schema: z.string().meta({ override: { type: 'string', contentMediaType: 'application/x-ndjson' } }),
              },
            },
          },
          '404': extendedError('No such job, or it expired (code not_found).', {
            not_found: entryEnvelope('JOB_NOT_FOUND'),
            expired: entryEnvelope('JOB_EXPIRED'),
          }),
          '410': extendedError('The job was accepted but its records were lost (code job_lost): submit it again.', {
            lost: entryEnvelope('JOB_LOST'),
          }),
          '409': extendedError(
            'The job is not completed yet, or it failed (code job_not_ready; see GET /v1/jobs/{id}).',
            {
              running: entryEnvelope('JOB_NOT_COMPLETED', { status: 'running' }),
              failed: entryEnvelope('JOB_FAILED_NO_RESULT', entryEnvelope('JOB_ABANDONED')),
            },
          ),
        },
      },
    },
  };
}
