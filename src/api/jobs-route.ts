/**
 * The async job API (documented in the OpenAPI document by src/api/openapi/jobs-paths.ts):
 *
 *   POST /v1/jobs                 same bodies as POST /v1/calculate/bulk (text/csv, or multipart/form-data with a
 *                                 `file` field); Accept picks the result format (text/csv default,
 *                                 application/x-ndjson). 202 + Location + the job (src/api/job-view.ts).
 *                                 An Idempotency-Key header returns the existing job for a repeated submission.
 *                                 `callback_url` (a query parameter or a form field): a signed webhook when the job
 *                                 ends, checked before the job is created (src/api/job-callback.ts, src/webhooks/).
 *   GET  /v1/jobs/{id}            the job: status, times, rule set and policy, progress, counts, summary, error
 *                                 groups, links (src/api/job-view.ts)
 *   GET  /v1/jobs/{id}/result     the result in the format asked, streamed in input order once completed;
 *   GET  /v1/jobs/{id}/result.csv, /result.ndjson, /errors.csv    the CSV result, the NDJSON result, the errors-only
 *                                 CSV (the header and the error rows): all made by the job's one run.
 *                                 409 job_not_ready before completion; 404 not_found once expired (JOB_TTL_SECONDS
 *                                 after the job finished).
 *
 * The job logic lives in src/jobs/async-jobs.ts; this file only speaks HTTP.
 */
import { ownedJob } from '../jobs/ownership.ts';
import { callerOf } from './auth.ts';
import { chargeStudents } from './rate-limit.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Router } from 'express';
import type { Request, Response } from 'express';
import { AppError, appError } from '../errors.ts';
import type { AsyncJobs } from '../jobs/async-jobs.ts';
import type { JobRecord, ResultFormat, ResultPart } from '../jobs/job-store.ts';
import { UploadDigest } from '../jobs/upload-digest.ts';
import { diskFullAsAppError } from '../jobs/spool.ts';
import { dialectKey, isDefaultDialect } from '../bulk/csv-dialect.ts';
import { JOBS_PATH, RESULT_PATHS, viewWithExtras, type JobExtrasSource } from './job-view.ts';
import { queryPolicyChoices } from './policy-query.ts';
import { resultBytes } from './response-encoding.ts';
import { receiveUpload, rejectUpload, UploadAbortedError, type Upload, type UploadLimits } from './upload.ts';
import { negotiateUpload } from './upload-request.ts';
import { sendError } from './error-envelope.ts';
import { checkedCallback, fieldCallback, jobCallback, queryCallback, type CallbackDoor } from './job-callback.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

export { JOBS_PATH, jobView } from './job-view.ts';
export const MAX_IDEMPOTENCY_KEY = 255;

const CONTENT_TYPES: Record<ResultFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/** A download of a job: which stored part it is for the job, its media type and its file name. */
interface Download {
  part(job: JobRecord): ResultPart | undefined;
  format(job: JobRecord): ResultFormat;
  filename(job: JobRecord): string;
}

const formatPart = (format: ResultFormat) => (job: JobRecord) =>
  job.format === format ? 'result' : job.all_outputs === true ? 'alternate' : undefined;

const DOWNLOADS: Record<keyof typeof RESULT_PATHS, Download> = {
  result: { part: () => 'result', format: (job) => job.format, filename: (job) => `job-${job.id}.${job.format}` },
  result_csv: { part: formatPart('csv'), format: () => 'csv', filename: (job) => `job-${job.id}.csv` },
  result_ndjson: { part: formatPart('ndjson'), format: () => 'ndjson', filename: (job) => `job-${job.id}.ndjson` },
  errors_csv: {
    part: (job) => (job.all_outputs === true ? 'errors' : undefined),
    format: () => 'csv',
    filename: (job) => `job-${job.id}-errors.csv`,
  },
};

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
  options: {
    maxBytes: number;
    spoolDir?: string;
    limits?: UploadLimits;
    /** What other modules keep about a job, shown in its view (the webhooks' `callback`). */
    extras?: JobExtrasSource;
    /** The webhooks (src/webhooks/): they check a job's callback_url and keep its deliveries; none: refused. */
    webhooks?: CallbackDoor;
  },
): Router {
  const router = Router({ caseSensitive: true, strict: true });
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
      const policy = queryPolicyChoices(req); // the file's ?policy.<option>= (checked with the other parameters)
      const fromQuery = queryCallback(req);
      // A callback_url of the query is checked before the body is read; one of the form, once the body is in.
      let callback = fromQuery === undefined ? undefined : await checkedCallback(options.webhooks, fromQuery);
      // One pass over the body: spool, prescan, and the job's hash and counts (another dialect or policy: another job).
      const how = isDefaultDialect(dialect) ? format : `${format}\n${dialectKey(dialect)}`;
      const digest = new UploadDigest(Object.keys(policy).length === 0 ? how : `${how}\n${JSON.stringify(policy)}`);
      upload = await receiveUpload(req, kind, limits, digest, { dialect, gzip });
      const fromForm = fieldCallback(upload.fields, fromQuery);
      if (fromForm !== undefined) callback = await checkedCallback(options.webhooks, fromForm);
      const callbackUrl = jobCallback(options.webhooks, callback);
      await chargeStudents(res, upload.scan.students);
      const read = upload.dialect ?? dialect; // a multipart part may declare its charset
      const dialectFacts = isDefaultDialect(read) ? {} : { students: upload.scan.students, dialect: read };
      const spooled = {
        path: upload.path, // the job's from here on (moved to its files, src/jobs/job-files.ts)
        ...digest.finish(),
        ...dialectFacts,
        rows: upload.scan.rows,
        nonContiguous: upload.scan.nonContiguous,
        policy,
      };
      upload = undefined;
      const { record, created } = await jobs.submit(spooled, format, key, callerOf(res).id, { callbackUrl });
      if (created && callbackUrl !== null) await options.webhooks?.register(record, callbackUrl);
      res.status(202);
      res.setHeader('Location', `${JOBS_PATH}/${record.id}`);
      res.setHeader('Cache-Control', 'no-store');
      if (!created) res.setHeader('Idempotent-Replayed', 'true');
      res.json(await viewWithExtras(record, options.extras));
    } catch (err) {
      await upload?.remove();
      // A full spool disk is 507 insufficient_storage; the job store failing is 503.
      const answer = err instanceof UploadAbortedError ? err : storeUnavailable(diskFullAsAppError(err));
      await rejectUpload(req, res, answer, limits);
    }
  });
  router.all(JOBS_PATH, methodNotAllowed('GET', 'POST'));

  router.get(`${JOBS_PATH}/:id`, async (req: Request, res: Response) => {
    try {
      const job = await findJob(jobs, req.params.id as string, res);
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).json(await viewWithExtras(job, options.extras));
    } catch (err) {
      sendError(res, storeUnavailable(err));
    }
  });
  router.all(`${JOBS_PATH}/:id`, methodNotAllowed('GET', 'DELETE'));

  for (const [name, download] of Object.entries(DOWNLOADS)) {
    const path = `${JOBS_PATH}/:id/${RESULT_PATHS[name as keyof typeof RESULT_PATHS]}`;
    router.get(path, (req: Request, res: Response) => sendResult(jobs, download, req, res));
    router.all(path, methodNotAllowed('GET'));
  }
  return router;
}

/** 409 unless the job completed: the answer names its status, or why it failed or that it was cancelled. */
function notReady(job: JobRecord, res: Response): AppError {
  res.setHeader('Retry-After', job.status === 'queued' || job.status === 'running' ? '2' : '0');
  if (job.status === 'cancelled') return appError('JOB_CANCELLED');
  if (job.status === 'failed') {
    return appError('JOB_FAILED_NO_RESULT', {
      code: job.error?.code ?? 'internal_error',
      message: job.error?.message ?? 'no detail',
    });
  }
  return appError('JOB_NOT_COMPLETED', { status: job.status });
}

/** Streams one stored result part of a completed job (decompressed, or as stored to a client that takes gzip). */
async function sendResult(jobs: AsyncJobs, download: Download, req: Request, res: Response): Promise<void> {
  let job: JobRecord;
  let part: ResultPart | undefined;
  try {
    job = await findJob(jobs, req.params.id as string, res);
    if (job.status !== 'completed') throw notReady(job, res);
    part = download.part(job);
    if (part === undefined) throw appError('JOB_RESULT_NOT_KEPT');
  } catch (err) {
    sendError(res, storeUnavailable(err));
    return;
  }
  try {
    res.status(200);
    res.setHeader('Content-Type', CONTENT_TYPES[download.format(job)]);
    res.setHeader('Content-Disposition', `attachment; filename="${download.filename(job)}"`);
    res.setHeader('Cache-Control', 'no-store');
    for await (const segment of resultBytes(req, res, jobs.store, job.id, part)) {
      if (!res.write(segment)) await new Promise<void>((resolve) => res.once('drain', () => resolve()));
      if (res.destroyed) return;
    }
    res.end();
  } catch (err) {
    // Headers may be on the wire already: sendError then cuts the transfer (never a file that looks complete).
    sendError(res, err);
  }
}
