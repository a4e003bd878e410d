/**
 * The async job API (documented in the OpenAPI document through `jobsOpenApiPaths`):
 *
 *   POST /v1/jobs                 same bodies as POST /v1/calculate/bulk (text/csv, or multipart/form-data with a
 *                                 `file` field); Accept picks the result format (text/csv default,
 *                                 application/x-ndjson). 202 + Location + {id, status, status_url, result_url}.
 *                                 An Idempotency-Key header returns the existing job for a repeated submission.
 *   GET  /v1/jobs/{id}            {id, status, format, progress {students_done, students_total}, created_at,
 *                                 started_at, finished_at, error, status_url, result_url; check_summary when the
 *                                 file has sis_* columns (the shadow check)}
 *   GET  /v1/jobs/{id}/result     the output streamed in input order once completed; 409 job_not_ready before;
 *                                 404 not_found once expired (JOB_TTL_SECONDS after the job finished).
 *
 * The job logic lives in src/jobs/async-jobs.ts; this file only speaks HTTP.
 */
import { JOB_ID_PATTERN } from '../jobs/job-id.ts';
import { ownedJob } from '../jobs/ownership.ts';
import { callerOf } from './auth.ts';
import { chargeStudents } from './rate-limit.ts';
import { rename } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Router } from 'express';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { AppError, appError, entryEnvelope, type WireEnvelope } from '../errors.ts';
import type { AsyncJobs } from '../jobs/async-jobs.ts';
import type { JobRecord, ResultFormat } from '../jobs/job-store.ts';
import { CheckSummarySchema, ExtendedErrorSchema } from '../schema/response.ts';
import { UploadDigest } from '../jobs/upload-digest.ts';
import { dialectKey, isDefaultDialect } from '../bulk/csv-dialect.ts';
import { resultBytes } from './response-encoding.ts';
import {
  negotiateUpload,
  receiveUpload,
  rejectUpload,
  UploadAbortedError,
  type Upload,
  type UploadLimits,
} from './upload.ts';
import { sendError } from './error-envelope.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

export const JOBS_PATH = '/v1/jobs';
const MAX_IDEMPOTENCY_KEY = 255;

const CONTENT_TYPES: Record<ResultFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/** The wire view of a job. */
export function jobView(job: JobRecord) {
  return {
    id: job.id,
    status: job.status,
    format: job.format,
    progress: {
      students_done: job.students_done,
      students_total: job.students_total,
      rows_done: job.rows_done,
      error_rows: job.error_rows,
    },
    created_at: job.created_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    error: job.error,
    status_url: `${JOBS_PATH}/${job.id}`,
    result_url: `${JOBS_PATH}/${job.id}/result`,
    ...(job.check_summary ? { check_summary: job.check_summary } : {}),
  };
}

function idempotencyKey(req: Request): string | undefined {
  const raw = req.get('Idempotency-Key');
  if (raw === undefined) return undefined;
  const key = raw.trim();
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY || !/^[\x21-\x7e]+$/.test(key)) {
    throw appError('IDEMPOTENCY_KEY_INVALID', { max: MAX_IDEMPOTENCY_KEY });
  }
  return key;
}

/** A failure of the job store (Redis unreachable) is a 503: the client may retry later. */
function storeUnavailable(err: unknown): unknown {
  if (err instanceof AppError) return err;
  if (typeof err === 'object' && err !== null && 'status' in err) return err; // framework errors with an HTTP status
  if (
    typeof err === 'object' &&
    err !== null &&
    'code' in err &&
    typeof (err as { code: unknown }).code === 'string' &&
    (err as { code: string }).code.startsWith('LIMIT_')
  )
    return err;
  return appError('JOB_STORE_UNAVAILABLE', {}, { cause: err });
}

/** The job, if the caller owns it (src/jobs/ownership.ts): another token's job is JOB_NOT_FOUND. */
function findJob(jobs: AsyncJobs, id: string | undefined, res: Response): Promise<JobRecord> {
  return ownedJob(jobs.store, id, callerOf(res).id);
}

/**
 * `limits` (the bulk endpoint's, src/api/bulk-route.ts uploadLimits) makes the upload the same as the bulk
 * endpoint's: spooled and checked before the answer, same 400/406/413/415. Without it (older callers) the
 * defaults of the configuration apply with `maxBytes`.
 */
export function jobsRouter(
  jobs: AsyncJobs,
  options: { maxBytes: number; spoolDir?: string; limits?: UploadLimits },
): Router {
  const router = Router();
  const limits: UploadLimits = options.limits ?? {
    spoolDir: options.spoolDir ?? join(tmpdir(), 'sor-spool'),
    maxBytes: options.maxBytes,
    maxRows: 2_000_000,
    drainMaxBytes: 64 * 1024 * 1024,
  };

  router.post(JOBS_PATH, async (req: Request, res: Response) => {
    let upload: Upload | undefined;
    try {
      const { kind, format, dialect, gzip } = negotiateUpload(req, limits);
      const key = idempotencyKey(req);
      // One pass over the body: spool, prescan, and the job's hash and counts (another dialect: another job).
      const digest = new UploadDigest(isDefaultDialect(dialect) ? format : `${format}\n${dialectKey(dialect)}`);
      upload = await receiveUpload(req, kind, limits, digest, { dialect, gzip });
      await chargeStudents(res, upload.scan.students);
      // The job owns its file from here on: move it out of the upload names the spool sweep removes.
      const jobPath = join(limits.spoolDir, `job-${randomUUID()}.csv`);
      await rename(upload.path, jobPath);
      const read = upload.dialect ?? dialect; // a multipart part may declare its charset
      const dialectFacts = isDefaultDialect(read) ? {} : { students: upload.scan.students, dialect: read };
      const spooled = { path: jobPath, ...digest.finish(), ...dialectFacts, nonContiguous: upload.scan.nonContiguous };
      upload = undefined;
      const { record, created } = await jobs.submit(spooled, format, key, callerOf(res).id);
      res.status(202);
      res.setHeader('Location', `${JOBS_PATH}/${record.id}`);
      res.setHeader('Cache-Control', 'no-store');
      if (!created) res.setHeader('Idempotent-Replayed', 'true');
      const view = jobView(record);
      res.json({ id: view.id, status: view.status, status_url: view.status_url, result_url: view.result_url });
    } catch (err) {
      await upload?.remove();
      await rejectUpload(req, res, err instanceof UploadAbortedError ? err : storeUnavailable(err), limits);
    }
  });
  router.all(JOBS_PATH, methodNotAllowed('GET', 'POST'));

  router.get(`${JOBS_PATH}/:id`, async (req: Request, res: Response) => {
    try {
      const job = await findJob(jobs, req.params.id as string, res);
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).json(jobView(job));
    } catch (err) {
      sendError(res, storeUnavailable(err));
    }
  });
  router.all(`${JOBS_PATH}/:id`, methodNotAllowed('GET', 'DELETE'));

  router.get(`${JOBS_PATH}/:id/result`, async (req: Request, res: Response) => {
    let job: JobRecord;
    try {
      job = await findJob(jobs, req.params.id as string, res);
      if (job.status !== 'completed') {
        res.setHeader('Retry-After', job.status === 'failed' ? '0' : '2');
        throw job.status === 'failed'
          ? appError('JOB_FAILED_NO_RESULT', {
              code: job.error?.code ?? 'internal_error',
              message: job.error?.message ?? 'no detail',
            })
          : appError('JOB_NOT_COMPLETED', { status: job.status });
      }
    } catch (err) {
      sendError(res, storeUnavailable(err));
      return;
    }
    try {
      res.status(200);
      res.setHeader('Content-Type', CONTENT_TYPES[job.format]);
      res.setHeader(
        'Content-Disposition',
        `attachment; filename="job-${job.id}.${job.format === 'csv' ? 'csv' : 'ndjson'}"`,
      );
      res.setHeader('Cache-Control', 'no-store');
      for await (const segment of resultBytes(req, res, jobs.store, job.id)) {
        if (!res.write(segment)) await new Promise<void>((resolve) => res.once('drain', () => resolve()));
        if (res.destroyed) return;
      }
      res.end();
    } catch (err) {
      // Headers may be on the wire already: sendError then cuts the transfer (never a file that looks complete).
      sendError(res, err);
    }
  });
  router.all(`${JOBS_PATH}/:id/result`, methodNotAllowed('GET'));
  return router;
}

// ---------------------------------------------------------------------------------------------------------------
// OpenAPI
// ---------------------------------------------------------------------------------------------------------------

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
          `creates another job and a key alone never blocks another caller's file. ${storage} A job and its ` +
          `result expire ${options.ttlSeconds} s after the job finished; a failed job's partial result is deleted at once.`,
        requestParams: {
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
          '503': extendedError(
            'The job store (Redis) is unavailable, or the service is shutting down (code internal_error), or it ' +
              "has no room for this job's result (code job_store_full).",
            {
              unavailable: entryEnvelope('JOB_STORE_UNAVAILABLE'),
              store_full: entryEnvelope('JOB_STORE_FULL', { where: 'Redis maxmemory', neededMiB: 120, freeMiB: 40 }),
            },
          ),
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
