/**
 * JSON request bodies: not UTF-8, not JSON, too large, the wrong content type, invalid fields. Part of the one
 * catalogue, src/errors.ts.
 */
import type { ErrorEntry } from './entry.ts';

export const REQUEST_BODY_ERRORS = {
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
} as const satisfies Record<string, ErrorEntry>;
