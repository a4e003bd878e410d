/**
 * The headers of an upload to POST /v1/calculate/bulk or POST /v1/jobs, judged before any byte of the body is read
 * (src/api/upload.ts receives the body): Content-Type, Content-Encoding, Accept, a declared Content-Length over the
 * limit, and the file's dialect (src/api/upload-options.ts).
 */
import type { Request } from 'express';
import type { BulkFormat } from '../bulk/chunk-payload.ts';
import type { CsvDialect } from '../bulk/csv-dialect.ts';
import { type AppError, appError } from '../errors.ts';
import { parseMediaType } from './media-type.ts';
import { uploadDialect, uploadEncoding } from './upload-options.ts';

/** Allowance for multipart framing (boundaries, part headers, small fields) over BULK_MAX_BYTES. */
export const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

export type BodyKind = 'csv' | 'multipart';

/**
 * text/csv or application/octet-stream (read as CSV; a charset, when given, is checked by negotiateUpload), or
 * multipart/form-data; null for anything else.
 */
export function bodyKind(header: string | undefined): BodyKind | null {
  const media = parseMediaType(header);
  if (media === null) return null;
  if (media.type === 'multipart/form-data') return 'multipart';
  return media.type === 'text/csv' || media.type === 'application/octet-stream' ? 'csv' : null;
}

/** The output format the Accept header allows (CSV preferred on a tie); null → 406. */
export function negotiateFormat(req: Request): BulkFormat | null {
  const type = req.accepts(['text/csv', 'application/x-ndjson']);
  if (type === 'text/csv') return 'csv';
  if (type === 'application/x-ndjson') return 'ndjson';
  return null;
}

export interface UploadRequest {
  kind: BodyKind;
  format: BulkFormat;
  /** The file's charset, delimiter, extra columns and output BOM. */
  dialect: CsvDialect;
  /** The body is gzip-compressed (Content-Encoding: gzip). */
  gzip: boolean;
}

export function tooLarge(limit: number): AppError {
  return appError('CSV_TOO_LARGE', { limit });
}

/** Checks the request's headers; throws the AppError (415, 406, 413) to pass to rejectUpload. */
export function negotiateUpload(req: Request, limits: { maxBytes: number }): UploadRequest {
  const kind = bodyKind(req.headers['content-type']);
  const encoding = uploadEncoding(req.headers['content-encoding']);
  if (kind === null || encoding === undefined) {
    throw appError('UPLOAD_MEDIA_TYPE');
  }
  const dialect = uploadDialect(
    req,
    kind === 'csv' ? (parseMediaType(req.headers['content-type'])?.charsets ?? []) : [],
  );
  const format = negotiateFormat(req);
  if (format === null) {
    throw appError('UPLOAD_NOT_ACCEPTABLE');
  }
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limits.maxBytes + (kind === 'multipart' ? MULTIPART_OVERHEAD_BYTES : 0)) {
    throw tooLarge(limits.maxBytes);
  }
  return { kind, format, dialect, gzip: encoding === 'gzip' };
}
