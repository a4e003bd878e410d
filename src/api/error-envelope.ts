/**
 * The HTTP side of errors: any thrown value becomes an AppError of the catalogue (src/errors.ts), answered with the
 * envelope that `errorEnvelope` builds — `{code, message}` or, for field validation,
 * `{code: 'validation_error', message, field_errors: [{field, message}]}`. Anything that is not an AppError becomes
 * a 500 `internal_error` whose wire message is fixed: no stack, no internal message, no request data. The AppError
 * (the original error as its cause) is attached to the response for the request log.
 */
import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import { AppError, appError, errorEnvelope, type FieldError } from '../errors.ts';

export { errorEnvelope as toEnvelope, type WireEnvelope } from '../errors.ts';

/** The 422 for a failed request validation, with a message that counts the offending fields. */
export function validationFailure(fieldErrors: readonly FieldError[]): AppError {
  return AppError.validation(fieldErrors);
}

/** Maps any thrown value to an AppError: AppErrors pass through, framework limit errors keep their meaning. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (typeof err === 'object' && err !== null) {
    const e = err as { status?: unknown; statusCode?: unknown; type?: unknown; code?: unknown };
    const status = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : 0;
    // body-parser / raw-body style errors.
    if (status === 413 || e.type === 'entity.too.large' || e.code === 'LIMIT_FILE_SIZE') {
      return appError('BODY_TOO_LARGE_FOR_ENDPOINT');
    }
    if (status === 415 || e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
      return appError('MEDIA_TYPE_UNSUPPORTED');
    }
    if (e.type === 'entity.parse.failed') {
      return appError('BODY_NOT_JSON');
    }
    if (status === 404) return appError('NOT_FOUND');
    // Other client errors raised by the framework (e.g. an undecodable path parameter): keep the status, never
    // the framework's message (it may quote request data).
    if (status >= 400 && status < 500) {
      return appError('REQUEST_NOT_PROCESSABLE', {}, { status });
    }
  }
  return AppError.internal(err);
}

/**
 * Sends the envelope for `err` (any thrown value). When headers are already on the wire (a streaming response)
 * no envelope can be sent any more: the response is destroyed so the client sees a truncated transfer rather
 * than a body that looks complete. Works on Node's own response (the fast lane of src/api/front-door.ts) as on
 * Express's.
 */
export function sendError(res: ServerResponse, err: unknown): void {
  const appErr = toAppError(err);
  if (appErr.status >= 500) {
    // Read by the request log (http-log.ts): the log line carries the error's code, message and cause (stacks
    // included); the wire never does.
    (res as ServerResponse & { err?: unknown }).err = appErr;
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(errorEnvelope(appErr));
  res.statusCode = appErr.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(body);
}

/** Express error middleware: the last `app.use` of the app. */
export const errorMiddleware: ErrorRequestHandler = (err, _req, res, _next) => {
  sendError(res, err);
};
