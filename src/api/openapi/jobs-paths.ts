/**
 * The async job API in the OpenAPI document: the paths of POST /v1/jobs, GET /v1/jobs/{id} and the downloads
 * (served by src/api/jobs-route.ts), over the Job schema of job-schema.ts.
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { entryEnvelope, type WireEnvelope } from '../../errors.ts';
import { JOB_ID_PATTERN } from '../../jobs/job-id.ts';
import { ExtendedErrorSchema } from '../../schema/response.ts';
import { JOBS_PATH, MAX_IDEMPOTENCY_KEY } from '../jobs-route.ts';
import { RESULT_PATHS } from '../job-view.ts';
import { UPLOAD_ENCODING_NOTE, UPLOAD_QUERY } from './files-params.ts';
import { CALLBACK_PARAMETER } from '../job-callback.ts';
import { CallbackUrlSchema } from './webhooks-entry.ts';
import { JOB_EXAMPLE, JobSchema } from './job-schema.ts';

export { JobSchema } from './job-schema.ts';

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

/** One download of a job: 200 with the file, or why not. */
function download(operationId: string, summary: string, description: string, media: 'csv' | 'ndjson' | 'both') {
  const csv = { 'text/csv': { schema: z.string() } };
  const ndjson = {
    'application/x-ndjson': {
      schema: z.string().meta({ override: { type: 'string', contentMediaType: 'application/x-ndjson' } }),
    },
  };
  const content = media === 'csv' ? csv : media === 'ndjson' ? ndjson : { ...csv, ...ndjson };
  return {
    get: {
      operationId,
      tags: ['jobs'],
      summary,
      requestParams: { path: JobIdParam },
      responses: {
        '200': {
          description:
            `${description} Streamed; to a client that sends Accept-Encoding: gzip, the stored gzip bytes with ` +
            'Content-Encoding: gzip.',
          content,
        },
        '404': extendedError(
          'No such job, or it expired (code not_found); or, for a job stored before every format was kept, a ' +
            'format it does not have.',
          {
            not_found: entryEnvelope('JOB_NOT_FOUND'),
            expired: entryEnvelope('JOB_EXPIRED'),
            not_kept: entryEnvelope('JOB_RESULT_NOT_KEPT'),
          },
        ),
        '410': extendedError('The job was accepted but its records were lost (code job_lost): submit it again.', {
          lost: entryEnvelope('JOB_LOST'),
        }),
        '409': extendedError(
          'The job is not completed yet (code job_not_ready, with Retry-After), it failed (job_not_ready, naming ' +
            'why), or it was cancelled (job_cancelled).',
          {
            running: entryEnvelope('JOB_NOT_COMPLETED', { status: 'running' }),
            failed: entryEnvelope('JOB_FAILED_NO_RESULT', entryEnvelope('JOB_ABANDONED')),
            cancelled: entryEnvelope('JOB_CANCELLED'),
          },
        ),
      },
    },
  };
}

/** The /v1/jobs paths for the OpenAPI document (createApp's `openApiPaths`). */
export function jobsOpenApiPaths(options: {
  ttlSeconds: number;
  maxBytes: number;
  store: 'redis' | 'local';
}): ZodOpenApiPathsObject {
  const storage =
    (options.store === 'redis'
      ? 'Jobs and their results (gzip-compressed) are kept in Redis: they survive a restart of the API, and a ' +
        'restart of Redis when it keeps its append-only file (as the shipped compose and k8s files do). '
      : 'This instance runs without Redis: jobs and their results (gzip-compressed) are kept in JOBS_DIR (SQLite ' +
        'and files) and survive a restart of the API. ') +
    'A queued or running job whose API process stops (a restart, SIGTERM, even SIGKILL) runs again from its ' +
    'upload, kept on the disk of that process, when the API is back (or on another API process sharing the ' +
    'folder), and gives the same results; one that no process resumes within 10 minutes reads failed. A job ' +
    'whose records are gone answers 410 job_lost.';
  const item = `${JOBS_PATH}/{id}`;
  return {
    [JOBS_PATH]: {
      post: {
        operationId: 'submitJob',
        tags: ['jobs'],
        summary: 'Submit a bulk CSV file to run in the background',
        description:
          'Accepts the same bodies as POST /v1/calculate/bulk and runs the same pipeline in the background: each ' +
          'student is calculated once and the job keeps the CSV result, the NDJSON result and an errors-only CSV ' +
          '(`links`). Poll `links.self` (or wait for the callback), then download. The Accept header picks the ' +
          'format of `links.result` (text/csv by default, or application/x-ndjson).\n\n' +
          '**Idempotency-Key.** Repeating a submission with the same key returns the existing job (header ' +
          '`Idempotent-Replayed: true`, same 202). With access control on (AUTH_MODE=required) a key belongs to ' +
          'the token that sent it: the same key with another file or other options (format, charset, delimiter, ' +
          'extra columns, BOM, policy, callback) is refused with 422 idempotency_key_reused, as Stripe does. ' +
          'Without access control every caller is anonymous, so the key is scoped to the upload instead: the key ' +
          'plus the sha256 of the file and its options. The same key with another file then simply creates ' +
          'another job, so a stranger who sends your key with another file can never block yours; use a key no one ' +
          "can guess. A job that failed for the service's reasons (codes internal_error, job_store_full, " +
          'insufficient_storage) releases its key: the same submission then creates a new job.\n\n' +
          `${storage} A job and its results expire ${options.ttlSeconds} s after the job finished (\`expires_at\`); ` +
          "a failed or cancelled job's results are deleted at once." +
          UPLOAD_ENCODING_NOTE,
        requestParams: {
          query: UPLOAD_QUERY.extend({ [CALLBACK_PARAMETER]: CallbackUrlSchema }),
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
                [CALLBACK_PARAMETER]: CallbackUrlSchema,
              }),
              encoding: { file: { contentType: 'text/csv' } },
            },
          },
        },
        responses: {
          '202': {
            description: 'Accepted: the job (or, for a repeated Idempotency-Key, the existing job).',
            headers: z.object({
              Location: z.string().meta({ description: 'The job (links.self).' }),
              'Idempotent-Replayed': z
                .literal('true')
                .optional()
                .meta({ description: 'Present when the answer is an existing job.' }),
            }),
            content: {
              'application/json': {
                schema: JobSchema,
                examples: {
                  queued: {
                    value: {
                      ...JOB_EXAMPLE,
                      status: 'queued',
                      started_at: null,
                      finished_at: null,
                      progress: { ...JOB_EXAMPLE.progress, students_done: 0, rows_done: 0, error_rows: 0 },
                    },
                  },
                },
              },
            },
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
          '422': extendedError(
            'With access control on: this token already used the Idempotency-Key for another file or other ' +
              'options (code idempotency_key_reused). Never answered without access control (see above).',
            { reused: entryEnvelope('IDEMPOTENCY_KEY_REUSED') },
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
    [item]: {
      get: {
        operationId: 'getJob',
        tags: ['jobs'],
        summary: 'An async job: its status, times, counts, summary, error groups and links',
        requestParams: { path: JobIdParam },
        responses: {
          '200': {
            description: 'The job.',
            content: { 'application/json': { schema: JobSchema, examples: { completed: { value: JOB_EXAMPLE } } } },
          },
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
    [`${item}/${RESULT_PATHS.result}`]: download(
      'getJobResult',
      'The result in the format asked at submission (links.result)',
      'Exactly what POST /v1/calculate/bulk would have answered for the same file and Accept.',
      'both',
    ),
    [`${item}/${RESULT_PATHS.result_csv}`]: download(
      'getJobResultCsv',
      'The CSV result (links.result_csv)',
      'Exactly what POST /v1/calculate/bulk answers for the same file with Accept: text/csv.',
      'csv',
    ),
    [`${item}/${RESULT_PATHS.result_ndjson}`]: download(
      'getJobResultNdjson',
      'The NDJSON result (links.result_ndjson)',
      'Exactly what POST /v1/calculate/bulk answers for the same file with Accept: application/x-ndjson.',
      'ndjson',
    ),
    [`${item}/${RESULT_PATHS.errors_csv}`]: download(
      'getJobErrorsCsv',
      'The errors-only CSV (links.errors_csv)',
      "The CSV result's header and its error rows (row_status error), in file order; only the header when every " +
        'row was calculated.',
      'csv',
    ),
  };
}
