/**
 * Uploads (bulk CSV and async jobs): media type, size, multipart, CSV header and charset, parameters; and the
 * worksheet's Accept. Part of the one catalogue, src/errors.ts.
 */
import type { ErrorEntry } from './entry.ts';

export const UPLOAD_ERRORS = {
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
  CSV_SORTED_BY_TERM: {
    code: 'validation_error',
    status: 400,
    message:
      "The CSV file seems to be sorted by term, not by student: {split} of its {students} students have their rows in separate places (student_id {id} is on line {first} and again on line {again}). Sort the file by student_id, keeping each student's terms in order, and send it again (on the command line, sor bulk --sort does it); all rows of a student must be adjacent. No row was calculated.",
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
} as const satisfies Record<string, ErrorEntry>;
