/**
 * The ONE place that turns an error into the wire envelope: `{code, message}` or, for field validation,
 * `{code: 'validation_error', message, field_errors: [{field, message}]}`. Routes throw or pass AppErrors
 * (src/errors.ts); anything else becomes a 500 `internal_error` whose wire message is fixed: no stack, no internal
 * message, no request data. The original error is attached to the response for the request log.
 */
import type { ErrorRequestHandler, Response } from 'express';
import { AppError, type FieldError } from '../errors.ts';
import { MAX_FIELD_ERRORS, validationMessage } from '../schema/request.ts';

const INTERNAL_MESSAGE = 'An internal error occurred.';

export interface WireEnvelope {
  code: string;
  message: string;
  field_errors?: FieldError[];
}

/** The 422 for a failed request validation, with a message that counts the offending fields. */
export function validationFailure(fieldErrors: readonly FieldError[]): AppError {
  return AppError.validation(validationMessage(fieldErrors.length), fieldErrors);
}

/** Maps any thrown value to an AppError: AppErrors pass through, framework limit errors keep their meaning. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (typeof err === 'object' && err !== null) {
    const e = err as { status?: unknown; statusCode?: unknown; type?: unknown; code?: unknown };
    const status = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : 0;
    // body-parser / raw-body style errors.
    if (status === 413 || e.type === 'entity.too.large' || e.code === 'LIMIT_FILE_SIZE') {
      return new AppError('validation_error', 413, 'The request body is larger than this endpoint accepts.');
    }
    if (status === 415 || e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
      return new AppError('unsupported_media_type', 415, 'The request content type or encoding is not supported.');
    }
    if (e.type === 'entity.parse.failed') {
      return new AppError('invalid_json', 400, 'The request body is not valid JSON.');
    }
    if (status === 404) return new AppError('not_found', 404, 'There is no resource at this path.');
    // Other client errors raised by the framework (e.g. an undecodable path parameter): keep the status, never
    // the framework's message (it may quote request data).
    if (status >= 400 && status < 500) {
      return new AppError('validation_error', status, 'The request could not be processed as sent.');
    }
  }
  return AppError.internal(err);
}

export function toEnvelope(err: AppError): WireEnvelope {
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
  // AppError messages are written for clients; an internal_error never carries more than the fixed text.
  return { code: err.code, message: err.code === 'internal_error' ? INTERNAL_MESSAGE : err.message };
}

/**
 * Sends the envelope for `err` (any thrown value). When headers are already on the wire (a streaming response)
 * no envelope can be sent any more: the response is destroyed so the client sees a truncated transfer rather
 * than a body that looks complete.
 */
export function sendError(res: Response, err: unknown): void {
  const appError = toAppError(err);
  if (appError.status >= 500) {
    // Read by the request log (http-log.ts): the log line carries the cause (stack included); the wire never does.
    (res as Response & { err?: unknown }).err = appError.cause instanceof Error ? appError.cause : appError;
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(toEnvelope(appError));
  res.status(appError.status);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(body);
}

/** Express error middleware: the last `app.use` of the app. */
export const errorMiddleware: ErrorRequestHandler = (err, _req, res, _next) => {
  sendError(res, err);
};
