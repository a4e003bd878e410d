/**
 * POST /v1/calculate/bulk: a CSV file in (text/csv streamed as the raw body, or multipart/form-data with the
 * file in the field `file`), CSV or NDJSON out, through the streaming bulk pipeline (src/bulk/pipeline.ts).
 *
 *   415 unsupported_media_type  body not text/csv (UTF-8) or multipart/form-data, or content-encoded
 *   406 unsupported_media_type  Accept allows neither text/csv (default; also no Accept or *\/*) nor
 *                               application/x-ndjson
 *   413 validation_error        Content-Length over BULK_MAX_BYTES; or, before output starts, more bytes or data
 *                               rows than the limits
 *   400 validation_error        empty file, malformed or unknown/missing/duplicate header column, multipart
 *                               body without the `file` field
 *   200                         once the header and the first BULK_SYNC_MAX_ROWS + 1 rows are read; from then on
 *                               every data problem is an error row. A failure of the transfer itself after the 200
 *                               (client gone, byte limit on a chunked upload) destroys the response, so the
 *                               client sees an incomplete transfer, never a file that looks complete.
 *
 * The runner is chosen per file: up to BULK_SYNC_MAX_ROWS data rows run inline, larger files on
 * ctx.runners.large (the piscina pool, or the queue). The file is never held whole in memory: multipart goes
 * through multer with a storage engine that feeds the part's stream straight into the pipeline.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { Router, type Request, type Response } from 'express';
import multer, { MulterError } from 'multer';
import type { Logger } from 'pino';
import type { AppContext } from './context.ts';
import { AppError } from '../errors.ts';
import { sendError } from './error-envelope.ts';
import { methodNotAllowed } from './method-not-allowed.ts';
import { runBulk, type BulkFormat, type BulkSummary } from '../bulk/pipeline.ts';
import type { ChunkRunner } from '../bulk/runner.ts';

export const BULK_PATH = '/v1/calculate/bulk';

/** Allowance for multipart framing (boundaries, part headers, small fields) over BULK_MAX_BYTES. */
export const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

const UTF8_CHARSET = /^"?(utf-?8|us-ascii)"?$/i;

type BodyKind = 'csv' | 'multipart';

/** text/csv (charset, when given, UTF-8 or US-ASCII) or multipart/form-data; null for anything else. */
export function bodyKind(header: string | undefined): BodyKind | null {
  if (header === undefined) return null;
  const parts = header.split(';');
  const type = (parts[0] ?? '').trim().toLowerCase();
  if (type === 'multipart/form-data') return 'multipart';
  if (type !== 'text/csv') return null;
  for (let i = 1; i < parts.length; i++) {
    const param = (parts[i] ?? '').trim();
    const eq = param.indexOf('=');
    if (eq === -1) continue;
    if (param.slice(0, eq).trim().toLowerCase() === 'charset' && !UTF8_CHARSET.test(param.slice(eq + 1).trim())) {
      return null;
    }
  }
  return 'csv';
}

const CONTENT_TYPES: Record<BulkFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/** The output format the Accept header allows (CSV preferred on a tie); null → 406. */
export function negotiateFormat(req: Request): BulkFormat | null {
  const type = req.accepts(['text/csv', 'application/x-ndjson']);
  if (type === 'text/csv') return 'csv';
  if (type === 'application/x-ndjson') return 'ndjson';
  return null;
}

function unsupported(): AppError {
  return new AppError(
    'unsupported_media_type',
    415,
    'Send the file as text/csv (UTF-8) or as multipart/form-data with the file in the field "file".',
  );
}

function tooLarge(limit: number): AppError {
  return new AppError(
    'validation_error',
    413,
    `The CSV file is larger than ${limit} bytes, the most one request accepts.`,
  );
}

/** multer/busboy failures → the envelope's statuses (a file too large is 413, anything else malformed is 400). */
function multipartError(err: unknown, maxBytes: number): unknown {
  if (err instanceof AppError) return err;
  if (err instanceof MulterError) {
    if (err.code === 'LIMIT_FILE_SIZE') return tooLarge(maxBytes);
    if (err.code === 'LIMIT_UNEXPECTED_FILE' || err.code === 'LIMIT_FILE_COUNT') {
      return new AppError(
        'validation_error',
        400,
        'The multipart body must contain exactly one file, in the field "file".',
      );
    }
    return new AppError('validation_error', 400, `The multipart body is not acceptable (${err.message}).`);
  }
  if (err instanceof Error && !(err as { status?: number }).status) {
    // busboy: malformed multipart (no boundary, truncated body, bad part headers)
    return new AppError('validation_error', 400, `The multipart body is malformed (${err.message}).`);
  }
  return err;
}

/** After an error answered before the body was read: drop the rest of the upload and close the connection. */
function discardRest(req: IncomingMessage, res: Response): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
  if (!req.readableEnded) req.resume();
}

function loggerOf(req: Request, fallback: Logger): Logger {
  return (req as Request & { log?: Logger }).log ?? fallback;
}

export function bulkRouter(ctx: AppContext): Router {
  const router = Router();
  const { config } = ctx;
  const maxBytes = config.BULK_MAX_BYTES;

  router.post(BULK_PATH, (req, res) => {
    const log = loggerOf(req, ctx.logger);
    const fail = (err: unknown) => {
      if (!res.headersSent) discardRest(req, res);
      sendError(res, err);
    };

    const kind = bodyKind(req.headers['content-type']);
    const encoding = req.headers['content-encoding'];
    if (kind === null || (encoding !== undefined && encoding.toLowerCase() !== 'identity')) return fail(unsupported());
    const format = negotiateFormat(req);
    if (format === null) {
      return fail(new AppError('unsupported_media_type', 406, 'Accept must allow text/csv or application/x-ndjson.'));
    }
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > maxBytes + (kind === 'multipart' ? MULTIPART_OVERHEAD_BYTES : 0)) return fail(tooLarge(maxBytes));

    // The client going away aborts the pipeline: no more reading, in-flight chunks are dropped when they finish.
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort(new Error('the client closed the connection'));
    });

    const requestId = String((req as Request & { id?: unknown }).id ?? randomUUID());
    const large: ChunkRunner = ctx.runners.large.forRequest?.(requestId) ?? ctx.runners.large;
    const started = performance.now();

    const run = (input: Readable): Promise<BulkSummary> =>
      runBulk({
        input,
        output: res,
        format,
        runner: { small: ctx.runners.small, large },
        config,
        limits: { maxBytes, maxRows: config.BULK_MAX_ROWS },
        signal: abort.signal,
        recycleOutput: true, // the response is done with a chunk once its write callback fires
        onStart: (runner) => {
          res.status(200);
          res.setHeader('Content-Type', CONTENT_TYPES[format]);
          res.setHeader('Cache-Control', 'no-store');
          res.setHeader('X-Content-Type-Options', 'nosniff');
          res.setHeader('X-Bulk-Runner', runner.kind);
        },
        onChunkError: (err, index) =>
          log.error({ err, chunk: index }, 'bulk: a chunk could not be run; its students became error rows'),
      }).then((summary) => {
        log.info(
          {
            bulk: {
              runner: summary.runner,
              format,
              rows: summary.rows,
              errorRows: summary.errorRows,
              students: summary.students,
              chunks: summary.chunks,
              bytes: summary.bytes,
              durationMs: Math.round(performance.now() - started),
            },
          },
          'bulk: file processed',
        );
        return summary;
      });

    const settle = (err: unknown) => {
      if (abort.signal.aborted) {
        log.info({ err: (err as Error)?.message }, 'bulk: stopped, the client went away');
        res.destroy();
        return;
      }
      if (res.headersSent) log.error({ err }, 'bulk: failed after the response started; the response is cut short');
      fail(err);
    };

    if (kind === 'csv') {
      run(req).catch(settle);
      return;
    }

    let received = false;
    const storage: multer.StorageEngine = {
      _handleFile(_req, file, cb) {
        received = true;
        run(file.stream).then(
          (summary) => cb(null, { size: summary.bytes }),
          (err: unknown) => {
            file.stream.resume(); // let busboy finish the body so multer can report
            cb(err as Error);
          },
        );
      },
      _removeFile(_req, _file, cb) {
        cb(null);
      },
    };
    const upload = multer({
      storage,
      limits: { files: 1, fileSize: maxBytes, fields: 16, fieldSize: 64 * 1024, parts: 17 },
    }).single('file');
    upload(req, res, (err?: unknown) => {
      if (err !== undefined && err !== null) {
        settle(multipartError(err, maxBytes));
        return;
      }
      if (!received) {
        fail(
          new AppError('validation_error', 400, 'The multipart body must contain the CSV file in the field "file".'),
        );
      }
    });
  });
  router.all(BULK_PATH, methodNotAllowed('POST'));
  return router;
}
