/**
 * The one error type of the service. Every failure that reaches a client is an AppError with a stable `code`
 * (the v1 Error enum) and an HTTP `status`; src/api/error-envelope.ts is the single place that turns it into
 * the wire envelope. Bulk rows use the same codes in their error columns.
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
  /** 503: every bulk slot of this process is busy (BULK_MAX_CONCURRENT); retry after Retry-After seconds. */
  'service_busy',
] as const;
export type ExtendedErrorCode = (typeof EXTENDED_ERROR_CODES)[number];

export interface FieldError {
  /** Path of the offending field: `terms[1].credits_enrolled` in JSON, the column name in CSV. */
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode | ExtendedErrorCode;
  readonly status: number;
  readonly fieldErrors: readonly FieldError[] | undefined;

  constructor(
    code: ErrorCode | ExtendedErrorCode,
    status: number,
    message: string,
    fieldErrors?: readonly FieldError[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    this.fieldErrors = fieldErrors;
  }

  static validation(message: string, fieldErrors: readonly FieldError[]): AppError {
    return new AppError('validation_error', 422, message, fieldErrors);
  }

  static internal(cause?: unknown): AppError {
    return new AppError('internal_error', 500, 'An internal error occurred.', undefined, { cause });
  }
}
