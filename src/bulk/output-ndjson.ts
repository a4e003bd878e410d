/**
 * NDJSON output of the bulk pipeline (`Accept: application/x-ndjson`): one BulkResult per student, one line
 * each: `{"student_id", "error", "result"}` with exactly one of `error` (the v1 error envelope; field errors name
 * CSV columns and their messages name the line) and `result` (a CalculationResult) non-null.
 */
import { AppError, appError, errorEnvelope, type FieldError, type WireEnvelope } from '../errors.ts';
import { counted } from '../error-template.ts';
import type { CalculationResult } from '../domain/types.ts';
import type { ShadowCheck } from './shadow-check.ts';

/**
 * With `check` (files with sis_* columns) the BulkResult ends with `"check":{status, detail, reason}`; on an error
 * line with `withCheck`, `"check":null` (students with errors are not checked).
 */
export function okNdjsonLine(studentId: string, result: CalculationResult, check?: ShadowCheck): string {
  const tail = check === undefined ? '' : `,"check":${JSON.stringify(check)}`;
  return `{"student_id":${JSON.stringify(studentId)},"error":null,"result":${JSON.stringify(result)}${tail}}\n`;
}

export function errorNdjsonLine(studentId: string, envelope: WireEnvelope, withCheck = false): string {
  const tail = withCheck ? ',"check":null' : '';
  return `{"student_id":${JSON.stringify(studentId)},"error":${JSON.stringify(envelope)},"result":null${tail}}\n`;
}

/** The envelope of a student whose rows have errors; `fieldErrors` name CSV columns ('row' for a whole row). */
export function studentErrorEnvelope(fieldErrors: readonly FieldError[]): WireEnvelope {
  const n = fieldErrors.length;
  return errorEnvelope(appError('STUDENT_INVALID', { errors: counted(n, 'error') }, { fieldErrors }));
}

/** The envelope of a student that could not be calculated (internal error): fixed text, no internals. */
export function studentInternalEnvelope(): WireEnvelope {
  return errorEnvelope(AppError.internal());
}
