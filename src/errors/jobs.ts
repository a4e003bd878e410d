/**
 * Async jobs (/v1/jobs): idempotency keys, unknown, expired or lost jobs, results not ready, and the job-status
 * failures that tell the client to submit the file again. Part of the one catalogue, src/errors.ts.
 */
import type { ErrorEntry } from './entry.ts';

export const JOB_ERRORS = {
  IDEMPOTENCY_KEY_INVALID: {
    code: 'validation_error',
    status: 400,
    message: 'Idempotency-Key must be 1 to {max} visible ASCII characters.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    code: 'idempotency_key_reused',
    status: 422,
    message:
      'This Idempotency-Key was already used for another job, with another file or other options (format, delimiter, charset, policy, callback). Use a new key for a new submission; the same file and options with this key return the existing job.',
  },
  JOB_NOT_FOUND: {
    code: 'not_found',
    status: 404,
    message: 'There is no job with this id (jobs expire after their time to live).',
  },
  JOB_EXPIRED: {
    code: 'not_found',
    status: 404,
    message: 'This job has expired: jobs and their results are kept for JOB_TTL_SECONDS after they finish.',
  },
  JOB_LOST: {
    code: 'job_lost',
    status: 410,
    message:
      'This job was accepted but its records were lost (the job store restarted without keeping them). Submit the file again.',
  },
  JOB_NOT_COMPLETED: {
    code: 'job_not_ready',
    status: 409,
    message: 'The job is {status}; its result is available once it is completed.',
  },
  JOB_FAILED_NO_RESULT: {
    code: 'job_not_ready',
    status: 409,
    message: 'The job failed ({code}): {message} It has no result.',
  },
  JOB_RESULT_NOT_KEPT: {
    code: 'not_found',
    status: 404,
    message:
      'This job was submitted before the service kept every result format: only its result in the format it was asked for (links.result) can be downloaded.',
  },
  /** Job status (not an HTTP answer): the job's process stopped. */
  JOB_ABANDONED: {
    code: 'internal_error',
    status: 500,
    public: true,
    message: 'The service instance running this job stopped before it finished. Submit the file again.',
  },
} as const satisfies Record<string, ErrorEntry>;
