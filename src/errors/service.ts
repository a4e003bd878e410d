/**
 * The machinery: internal errors, shutting down, busy or full (500, 503, 507, 408 for a too-slow upload). Part
 * of the one catalogue, src/errors.ts.
 */
import { INTERNAL_MESSAGE, type ErrorEntry } from './entry.ts';

export const SERVICE_ERRORS = {
  INTERNAL: { code: 'internal_error', status: 500, message: INTERNAL_MESSAGE },
  SHUTTING_DOWN: { code: 'internal_error', status: 503, message: 'The service is shutting down.' },
  SHUTDOWN_BEFORE_ANSWER: {
    code: 'internal_error',
    status: 503,
    public: true,
    message: 'The service shut down before it could answer this request. Send it again.',
  },
  JOB_STORE_UNAVAILABLE: {
    code: 'internal_error',
    status: 503,
    message: 'The job store is unavailable; try again later.',
  },
  SERVICE_BUSY: {
    code: 'service_busy',
    status: 503,
    message:
      'The service is computing {limit} bulk files already; send this file again in {retryAfter} seconds (or submit it to POST /v1/jobs, which queues it).',
  },
  UPLOADS_BUSY: {
    code: 'service_busy',
    status: 503,
    message: 'The service is receiving {limit} uploads already; send this file again in {retryAfter} seconds.',
  },
  UPLOAD_TOO_SLOW: {
    code: 'request_timeout',
    status: 408,
    message:
      'The upload arrived at fewer than {minRate} bytes per second over {seconds} seconds and was stopped; send it again over a faster connection.',
  },
  WORKSHEET_PDF_BUSY: {
    code: 'service_busy',
    status: 503,
    message:
      'The service is making {limit} PDF worksheets already; try again in {retryAfter} seconds, or ask for the worksheet as text/html or application/json.',
  },
  WORKSHEET_PDF_TIMEOUT: {
    code: 'service_busy',
    status: 503,
    message:
      'The PDF worksheet was not ready within {seconds} seconds and was stopped; try again in {retryAfter} seconds, or ask for the worksheet as text/html or application/json.',
  },
  INSUFFICIENT_STORAGE: {
    code: 'insufficient_storage',
    status: 507,
    message: 'The service has no disk space left to receive this file. Try again later, or send a smaller file.',
  },
  JOB_STORE_FULL: {
    code: 'job_store_full',
    status: 503,
    message:
      "The job store has no room for this job's result ({where}: about {neededMiB} MiB needed, {freeMiB} MiB free). Try again after earlier jobs expire, or send a smaller file.",
  },
} as const satisfies Record<string, ErrorEntry>;
