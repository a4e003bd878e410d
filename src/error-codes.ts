/**
 * The wire error codes: the v1 interface's own list (spec §5) and this service's extensions. The catalogue
 * (src/errors.ts) maps every situation to one of them; clients branch on these, never on messages.
 */

export const ERROR_CODES = [
  'invalid_json',
  'unsupported_media_type',
  'validation_error',
  'internal_error',
  'unauthenticated',
  'invalid_token',
  'expired_token',
  'revoked_token',
  'quota_exceeded',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Codes for requests outside the v1 interface's own endpoints (unknown routes, a method a path does not serve,
 * the async job API). The interface's endpoints only ever answer with ERROR_CODES: 406 uses
 * `unsupported_media_type`, 413 uses `validation_error`.
 */
export const EXTENDED_ERROR_CODES = [
  'not_found',
  'method_not_allowed',
  'job_not_ready',
  /** 410: the job's records were lost (the job store restarted without them); submit the file again. */
  'job_lost',
  /** 503: the job store has no room for this job's result (quota or Redis memory); try later. */
  'job_store_full',
  /** 507: the disk where uploads are spooled (SPOOL_DIR) is full; try later. */
  'insufficient_storage',
  /** 503: every bulk slot of this process is busy (BULK_MAX_CONCURRENT); retry after Retry-After seconds. */
  'service_busy',
  'listing_requires_auth', // 403: GET /v1/jobs with AUTH_MODE=off (job ids are then the only keys)
  'job_cancelled', // a job's error after DELETE /v1/jobs/{id}
  /** 422: an Idempotency-Key of this token already names a job of another upload or other options. */
  'idempotency_key_reused',
  /** 408: an upload body arrived slower than UPLOAD_MIN_BYTES_PER_SEC; it was stopped and the connection closed. */
  'request_timeout',
] as const;
export type ExtendedErrorCode = (typeof EXTENDED_ERROR_CODES)[number];

export type WireErrorCode = ErrorCode | ExtendedErrorCode;
