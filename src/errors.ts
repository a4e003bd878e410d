/**
 * The one error type of the service and its catalogue. Every failure that reaches a client is an AppError built
 * from one entry of ERRORS (code, HTTP status, message template with named `{parameters}`), the way fastify's
 * lib/errors.js lists its errors; `errorEnvelope` is the one function that turns it into the wire envelope, for
 * HTTP answers (src/api/error-envelope.ts), NDJSON rows, job status and the CLI alike. Bulk rows use the same
 * codes in their error columns. A new error is one line in ERRORS; no code outside this file writes
 * `new AppError(`, and no code recognises an error by its message text (read `code` or `entry`).
 */

import type { WireErrorCode } from './error-codes.ts';
import { counted, renderTemplate, type TemplateParams } from './error-template.ts';

export interface FieldError {
  /** Path of the offending field: `terms[1].credits_enrolled` in JSON, the column name in CSV. */
  field: string;
  message: string;
}

/** One catalogue entry. `message` is a template: `{name}` is replaced by the parameter of that name. */
export interface ErrorEntry {
  readonly code: WireErrorCode;
  readonly status: number;
  readonly message: string;
  /**
   * An internal_error's message never reaches the wire (the envelope says INTERNAL_MESSAGE) unless the entry is
   * written for clients: the job lifecycle failures that tell the client to submit the file again.
   */
  readonly public?: true;
}

/** The wire message of every internal_error that is not `public`: no stack, no internal detail. */
export const INTERNAL_MESSAGE = 'An internal error occurred.';

/** Field errors listed in one envelope at most; the message then says how many are listed. */
export const MAX_FIELD_ERRORS = 100;

/** Every error the service can answer. Keys name the situation; `code` is the stable wire code. */
export const ERRORS = {
  // 500 / 503: the machinery.
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

  // Request bodies (JSON).
  REQUEST_INVALID: { code: 'validation_error', status: 422, message: 'The request has {invalidFields}.' },
  BODY_NOT_UTF8: { code: 'invalid_json', status: 400, message: 'The request body is not valid UTF-8.' },
  BODY_NOT_JSON: { code: 'invalid_json', status: 400, message: 'The request body is not valid JSON.' },
  BODY_NOT_OBJECT: { code: 'invalid_json', status: 400, message: 'The request body must be a JSON object.' },
  BODY_TOO_LARGE: {
    code: 'validation_error',
    status: 413,
    message: 'The request body is larger than the limit of {limit} bytes.',
  },
  /** A framework's 413 (no limit known here). */
  BODY_TOO_LARGE_FOR_ENDPOINT: {
    code: 'validation_error',
    status: 413,
    message: 'The request body is larger than this endpoint accepts.',
  },
  MEDIA_TYPE_UNSUPPORTED: {
    code: 'unsupported_media_type',
    status: 415,
    message: 'The request content type or encoding is not supported.',
  },
  JSON_CONTENT_TYPE: {
    code: 'unsupported_media_type',
    status: 415,
    message: 'The request body must be JSON: send Content-Type: application/json.',
  },
  JSON_CONTENT_ENCODING: {
    code: 'unsupported_media_type',
    status: 415,
    message: 'Content-Encoding is not supported: send the JSON body uncompressed.',
  },
  REQUEST_NOT_PROCESSABLE: {
    code: 'validation_error',
    status: 400,
    message: 'The request could not be processed as sent.',
  },

  // Uploads (bulk CSV and async jobs).
  UPLOAD_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    status: 415,
    message:
      'Send the file as text/csv (UTF-8 unless a charset is given) or as multipart/form-data with the file in the field "file"; the only Content-Encoding accepted is gzip.',
  },
  UPLOAD_NOT_ACCEPTABLE: {
    code: 'unsupported_media_type',
    status: 406,
    message: 'Accept must allow text/csv or application/x-ndjson.',
  },
  // The worksheet (POST /v1/calculate/worksheet).
  WORKSHEET_NOT_ACCEPTABLE: {
    code: 'unsupported_media_type',
    status: 406,
    message: 'Accept must allow application/json, text/html or application/pdf.',
  },
  CSV_TOO_LARGE: {
    code: 'validation_error',
    status: 413,
    message: 'The CSV file is larger than {limit} bytes, the most one request accepts.',
  },
  CSV_TOO_MANY_ROWS: {
    code: 'validation_error',
    status: 413,
    message: 'The CSV file has more than {maxRows} data rows, the most one request accepts.',
  },
  CSV_TOO_MANY_ROWS_AT: {
    code: 'validation_error',
    status: 413,
    message:
      'The CSV file has more than {maxRows} data rows, the most one request accepts (line {line}, student_id {studentId}, is row {row}); send the remaining rows in another file.',
  },
  MULTIPART_MALFORMED: {
    code: 'validation_error',
    status: 400,
    message: 'The multipart body is malformed ({detail}).',
  },
  MULTIPART_ONE_FILE: {
    code: 'validation_error',
    status: 400,
    message: 'The multipart body must contain exactly one file, in the field "file".',
  },
  MULTIPART_NO_FILE: {
    code: 'validation_error',
    status: 400,
    message: 'The multipart body must contain the CSV file in the field "file".',
  },
  CSV_EMPTY: { code: 'validation_error', status: 400, message: 'The CSV file is empty: a header row is required.' },
  CSV_HEADER_MALFORMED: {
    code: 'validation_error',
    status: 400,
    message: 'The CSV header row is malformed: {detail}.',
  },
  CSV_HEADER_MALFORMED_AT: {
    code: 'validation_error',
    status: 400,
    message: 'The CSV header row (line {line}) is malformed: {detail}.',
  },
  CSV_HEADER_INVALID: {
    code: 'validation_error',
    status: 400,
    message: 'The CSV header is invalid: column {column} {problem}{more}.{allowed}',
  },
  CSV_NOT_UTF8: {
    code: 'validation_error',
    status: 400,
    message:
      'The CSV file is not valid UTF-8: line {line}{student} has a byte ({byte}) that is not UTF-8. Save or export the file as "CSV UTF-8" (for example from Excel: Save As, CSV UTF-8) and send it again, or declare the charset it is in: Content-Type: text/csv; charset=windows-1252 (or ?charset=windows-1252; command line: --encoding windows-1252; also iso-8859-1, utf-16).',
  },
  CSV_LOOKS_UTF16: {
    code: 'validation_error',
    status: 400,
    message:
      'The CSV file is not UTF-8: it starts with a UTF-16 byte order mark (Excel "Unicode text"). Declare it: Content-Type: text/csv; charset=utf-16 (or ?charset=utf-16; command line: --encoding utf-16); such files are usually tab-delimited: add ?delimiter=tab (--delimiter tab).',
  },
  CSV_NOT_IN_CHARSET: {
    code: 'validation_error',
    status: 400,
    message:
      'The CSV file is not valid {charset}: line {line}{student} has bytes that are not {charset}. Declare the charset the file is in with the charset parameter (Content-Type: text/csv; charset=…, or ?charset=…; command line: --encoding); supported: {supported}.',
  },
  UPLOAD_CHARSET: {
    code: 'unsupported_media_type',
    status: 415,
    message: 'The charset {charset} is not supported for CSV files; supported: {supported}.',
  },
  UPLOAD_GZIP_INVALID: {
    code: 'validation_error',
    status: 400,
    message: 'The body is sent with Content-Encoding: gzip but is not valid gzip ({detail}).',
  },
  UPLOAD_PARAMETER: {
    code: 'validation_error',
    status: 400,
    message: 'The parameter {name} must be one of: {allowed}.',
  },
  /** The NDJSON envelope of one student whose rows have errors. */
  STUDENT_INVALID: { code: 'validation_error', status: 422, message: 'The student has {errors}.' },

  // Async jobs.
  IDEMPOTENCY_KEY_INVALID: {
    code: 'validation_error',
    status: 400,
    message: 'Idempotency-Key must be 1 to {max} visible ASCII characters.',
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
  /** Job status (not an HTTP answer): the job's process stopped. */
  JOB_ABANDONED: {
    code: 'internal_error',
    status: 500,
    public: true,
    message: 'The service instance running this job stopped before it finished. Submit the file again.',
  },
  JOB_SHUTDOWN_BEFORE_START: {
    code: 'internal_error',
    status: 500,
    public: true,
    message: 'The service shut down before the job started. Submit the file again.',
  },
  JOB_SHUTDOWN_BEFORE_FINISH: {
    code: 'internal_error',
    status: 500,
    public: true,
    message: 'The service shut down before the job finished. Submit the file again.',
  },

  // Routing and the admin listener.
  NOT_FOUND: { code: 'not_found', status: 404, message: 'There is no resource at this path.' },
  PAGE_NOT_BUILT: { code: 'internal_error', status: 503, message: 'Page not built: run npm run build.', public: true },
  METHOD_NOT_ALLOWED: {
    code: 'method_not_allowed',
    status: 405,
    message: '{method} is not allowed on this path; allowed: {allow}.',
  },
  DASHBOARD_READ_ONLY: {
    code: 'method_not_allowed',
    status: 405,
    message: 'The queue dashboard is read-only (set ADMIN_READ_ONLY=false to allow changes).',
  },
  ADMIN_TOKEN_MISSING: { code: 'unauthenticated', status: 401, message: 'This path needs the admin token.' },
  ADMIN_TOKEN_INVALID: { code: 'invalid_token', status: 401, message: 'The admin token is not valid.' },

  // Access control (AUTH_MODE=required; src/auth/, src/api/auth.ts). No message ever quotes the token.
  AUTH_MISSING: {
    code: 'unauthenticated',
    status: 401,
    message: 'This service needs an access token: send the header Authorization: Bearer {prefix}<token>.',
  },
  AUTH_MALFORMED: {
    code: 'unauthenticated',
    status: 401,
    message: 'The Authorization header must be the word Bearer, one space and one access token.',
  },
  TOKEN_INVALID: { code: 'invalid_token', status: 401, message: 'The access token is not valid.' },
  TOKEN_WRONG_FORMAT: { code: 'invalid_token', status: 401, message: 'The access token is not a {prefix} token.' },
  TOKEN_OTHER_ENVIRONMENT: { code: 'invalid_token', status: 401, message: 'This service takes {prefix} tokens.' },
  TOKEN_EXPIRED: { code: 'expired_token', status: 403, message: 'The access token expired at {expiredAt}.' },
  TOKEN_REVOKED: { code: 'revoked_token', status: 403, message: 'The access token was revoked at {revokedAt}.' },
  AUTH_STORE_UNAVAILABLE: {
    code: 'internal_error',
    status: 503,
    public: true,
    message: 'The access-token store is unavailable; try again shortly.',
  },
  QUOTA_EXCEEDED: {
    code: 'quota_exceeded',
    status: 429,
    message: 'The rate limit of {limit} is used up; try again in {retryAfter} seconds.',
  },
  JOBS_LIST_NEEDS_AUTH: {
    code: 'listing_requires_auth',
    status: 403,
    message:
      'Jobs are listed only when access tokens are on (AUTH_MODE=required); without them a job is reached by its id alone.',
  },
  JOB_CANCELLED: { code: 'job_cancelled', status: 409, message: 'The job was cancelled; its result was removed.' },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorName = keyof typeof ERRORS;

/**
 * Entries whose message type widened to `string` (e.g. written as `'a' + 'b'`): their `{parameters}` could not
 * be checked at call sites. There must be none: write each template as one string literal.
 */
type WidenedTemplates = { [K in ErrorName]: string extends (typeof ERRORS)[K]['message'] ? K : never }[ErrorName];
export const EVERY_TEMPLATE_IS_A_LITERAL: [WidenedTemplates] extends [never] ? true : false = true;

type ParamsOf<K extends ErrorName> = TemplateParams<(typeof ERRORS)[K]['message']>;

export type ErrorParams<K extends ErrorName> = Readonly<Record<ParamsOf<K>, string | number>>;

export interface ErrorExtras {
  fieldErrors?: readonly FieldError[];
  cause?: unknown;
  /** Only REQUEST_NOT_PROCESSABLE: a framework's own 4xx status is kept. Every other entry has its status. */
  status?: number;
}

/** `appError(name, params?, extras?)`: params are required exactly when the template has `{parameters}`. */
export type ErrorArgs<K extends ErrorName> = [ParamsOf<K>] extends [never]
  ? [params?: Record<string, never>, extras?: ErrorExtras]
  : [params: ErrorParams<K>, extras?: ErrorExtras];

export class AppError extends Error {
  /** The catalogue entry this error was built from. */
  readonly entry: ErrorName;
  readonly code: WireErrorCode;
  readonly status: number;
  readonly fieldErrors: readonly FieldError[] | undefined;

  private constructor(entry: ErrorName, message: string, extras: ErrorExtras) {
    super(message, extras.cause === undefined ? undefined : { cause: extras.cause });
    this.name = 'AppError';
    this.entry = entry;
    this.code = ERRORS[entry].code;
    this.status = extras.status ?? ERRORS[entry].status;
    this.fieldErrors = extras.fieldErrors;
  }

  /** Use `appError` (typed parameters); this is its untyped core. */
  static fromCatalogue(
    entry: ErrorName,
    params: Readonly<Record<string, string | number>>,
    extras: ErrorExtras,
  ): AppError {
    return new AppError(entry, renderTemplate(ERRORS[entry].message, params), extras);
  }

  /** The 422 of a failed request validation, its message counting the offending fields. */
  static validation(fieldErrors: readonly FieldError[]): AppError {
    return appError(
      'REQUEST_INVALID',
      { invalidFields: counted(fieldErrors.length, 'invalid field') },
      { fieldErrors },
    );
  }

  static internal(cause?: unknown): AppError {
    return appError('INTERNAL', {}, { cause });
  }
}

/** Builds the AppError of catalogue entry `name`, its template filled from `params`. */
export function appError<K extends ErrorName>(name: K, ...args: ErrorArgs<K>): AppError {
  const [params, extras] = args as [Readonly<Record<string, string | number>> | undefined, ErrorExtras | undefined];
  return AppError.fromCatalogue(name, params ?? {}, extras ?? {});
}

/** The wire envelope: `{code, message}`, plus `field_errors` (at most MAX_FIELD_ERRORS) for field validation. */
export interface WireEnvelope {
  code: string;
  message: string;
  field_errors?: FieldError[];
}

/** The ONE builder of the wire envelope: HTTP answers, NDJSON rows, job status and the CLI all use it. */
export function errorEnvelope(err: AppError): WireEnvelope {
  if (err.fieldErrors !== undefined && err.fieldErrors.length > 0) {
    const all = err.fieldErrors;
    const shown = all.length > MAX_FIELD_ERRORS ? all.slice(0, MAX_FIELD_ERRORS) : all;
    const message = shown.length < all.length ? `${err.message} The first ${shown.length} are listed.` : err.message;
    return {
      code: err.code,
      message,
      field_errors: shown.map((f) => ({ field: f.field, message: f.message })),
    };
  }
  const entry: ErrorEntry = ERRORS[err.entry];
  // Catalogue messages are written for clients; an internal_error still says only the fixed text on the wire.
  const hidden = err.code === 'internal_error' && entry.public !== true;
  return { code: err.code, message: hidden ? INTERNAL_MESSAGE : err.message };
}

/** The envelope of a catalogue entry without an AppError in hand (job status records). */
export function entryEnvelope<K extends ErrorName>(name: K, ...args: ErrorArgs<K>): WireEnvelope {
  return errorEnvelope(appError(name, ...args));
}
