/**
 * The one error type of the service and its catalogue. Every failure that reaches a client is an AppError built
 * from one entry of ERRORS (code, HTTP status, message template with named `{parameters}`), the way fastify's
 * lib/errors.js lists its errors; `errorEnvelope` is the one function that turns it into the wire envelope, for
 * HTTP answers (src/api/error-envelope.ts), NDJSON rows, job status and the CLI alike. Bulk rows use the same
 * codes in their error columns. A new error is one entry in the file of its area (src/errors/*.ts); no code
 * outside this file writes `new AppError(`, and no code recognises an error by its message text (read `code` or
 * `entry`).
 */

import type { WireErrorCode } from './error-codes.ts';
import { counted, renderTemplate, type TemplateParams } from './error-template.ts';
import { ACCESS_ERRORS } from './errors/access.ts';
import { INTERNAL_MESSAGE, type ErrorEntry, type FieldError } from './errors/entry.ts';
import { JOB_ERRORS } from './errors/jobs.ts';
import { REQUEST_BODY_ERRORS } from './errors/request-body.ts';
import { ROUTING_ERRORS } from './errors/routing.ts';
import { SERVICE_ERRORS } from './errors/service.ts';
import { UPLOAD_ERRORS } from './errors/uploads.ts';
import { WEBHOOK_ERRORS } from './errors/webhooks.ts';

export { INTERNAL_MESSAGE, type ErrorEntry, type FieldError };

/** Field errors listed in one envelope at most; the message then says how many are listed. */
export const MAX_FIELD_ERRORS = 100;

/**
 * Every error the service can answer, its entries by area in src/errors/. Keys name the situation; `code` is
 * the stable wire code.
 */
export const ERRORS = {
  ...SERVICE_ERRORS,
  ...REQUEST_BODY_ERRORS,
  ...UPLOAD_ERRORS,
  ...JOB_ERRORS,
  ...ROUTING_ERRORS,
  ...ACCESS_ERRORS,
  ...WEBHOOK_ERRORS,
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
