/**
 * POST /v1/calculate/bulk: a CSV file in (text/csv streamed as the raw body, or multipart/form-data with the
 * file in the field `file`), CSV or NDJSON out, through the streaming bulk pipeline (src/bulk/pipeline.ts).
 *
 * Upload, check, then answer (src/api/upload.ts): the body is streamed to a private spool file and checked in
 * the same pass (strict UTF-8, header, one file part, byte and row limits, student contiguity); the status is
 * decided once the whole body is in; then the file is computed from the spool and streamed out. Clients that send
 * their whole body before reading (Python requests/urllib, Java, .NET, PowerShell) therefore never deadlock.
 *
 *   415 unsupported_media_type  body not text/csv / application/octet-stream (in a supported charset) or
 *                               multipart/form-data, or a Content-Encoding other than gzip
 *   406 unsupported_media_type  Accept allows neither text/csv (default; also no Accept or *\/*) nor
 *                               application/x-ndjson
 *   413 validation_error        more than BULK_MAX_BYTES bytes or BULK_MAX_ROWS data rows (the first line over
 *                               the row limit is named)
 *   400 validation_error        bytes that are not valid in the declared charset (UTF-8 by default; line named),
 *                               empty file, malformed or invalid header (with a delimiter hint), malformed
 *                               multipart, no `file` part, a second file part, a body that is not gzip, a bad
 *                               ?delimiter / ?extra_columns / ?bom
 *   503 service_busy            BULK_MAX_CONCURRENT files are being computed already; Retry-After
 *   200                         every data row has one output row; single-student problems (including rows of a
 *                               student that are not contiguous: all of that student's rows) are error rows. A
 *                               failure after the 200 (client gone) destroys the response, so the client sees
 *                               an incomplete transfer, never a file that looks complete.
 *
 * The spool file is removed on every path. The runner is chosen per file: up to BULK_SYNC_MAX_ROWS data rows
 * run inline, larger files on ctx.runners.large (the piscina pool, or the queue).
 */
import { createReadStream } from 'node:fs';
import { Router, type Request } from 'express';
import type { Logger } from 'pino';
import type { AppContext } from './context.ts';
import { methodNotAllowed } from './method-not-allowed.ts';
import { PIPELINE_READ_BYTES, runBulk, type BulkFormat } from '../bulk/pipeline.ts';
import { BUSY_RETRY_AFTER_SECONDS, BulkAdmission } from './bulk-admission.ts';
import { negotiateUpload, receiveUpload, rejectUpload, type Upload, type UploadLimits } from './upload.ts';
import { chargeStudents } from './rate-limit.ts';
import { diskFullAsAppError } from '../jobs/spool.ts';
import { acceptsGzip, gzipInto, setEncodingHeaders } from './response-encoding.ts';
import type { Gzip } from 'node:zlib';
import { serveBulkTemplate, TEMPLATE_PATH } from './bulk-template.ts';

export { bodyKind, negotiateFormat, MULTIPART_OVERHEAD_BYTES } from './upload.ts';

export const BULK_PATH = '/v1/calculate/bulk';

const CONTENT_TYPES: Record<BulkFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

function loggerOf(req: Request, fallback: Logger): Logger {
  return (req as Request & { log?: Logger }).log ?? fallback;
}

/** The upload limits of both doors, from the configuration. */
export function uploadLimits(config: AppContext['config']): UploadLimits {
  return {
    spoolDir: config.SPOOL_DIR,
    maxBytes: config.BULK_MAX_BYTES,
    maxRows: config.BULK_MAX_ROWS,
    drainMaxBytes: config.BULK_DRAIN_MAX_BYTES,
    maxRowChars: config.BULK_MAX_ROW_CHARS,
    maxCellChars: config.BULK_MAX_CELL_CHARS,
  };
}

export function bulkRouter(ctx: AppContext): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const { config } = ctx;
  const limits = uploadLimits(config);
  const admission = new BulkAdmission(config.BULK_MAX_CONCURRENT);

  router.post(BULK_PATH, async (req, res) => {
    const log = loggerOf(req, ctx.logger);
    let upload: Upload | undefined;
    let leave: (() => void) | undefined;
    let gzip: Gzip | undefined;
    // The client going away aborts the pipeline: no more reading, in-flight chunks are dropped when they finish.
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort(new Error('the client closed the connection'));
    });
    try {
      const { kind, format, dialect, gzip: gzipped } = negotiateUpload(req, limits);
      upload = await receiveUpload(req, kind, limits, undefined, { dialect, gzip: gzipped });
      await chargeStudents(res, upload.scan.students);
      try {
        leave = admission.enter();
      } catch (err) {
        res.setHeader('Retry-After', String(BUSY_RETRY_AFTER_SECONDS));
        throw err;
      }
      const started = performance.now();
      const compress = acceptsGzip(req);
      if (compress) gzip = gzipInto(res);
      const summary = await runBulk({
        input: createReadStream(upload.path, { highWaterMark: PIPELINE_READ_BYTES }),
        output: gzip ?? res,
        format,
        dialect: upload.dialect ?? dialect,
        runner: ctx.runners,
        config,
        nonContiguous: upload.scan.nonContiguous,
        signal: abort.signal,
        recycleOutput: gzip === undefined, // the response is done with a chunk once its write callback fires
        onStart: (runner) => {
          res.status(200);
          res.setHeader('Content-Type', CONTENT_TYPES[format]);
          res.setHeader('Cache-Control', 'no-store');
          res.setHeader('X-Content-Type-Options', 'nosniff');
          res.setHeader('X-Bulk-Runner', runner.kind);
          setEncodingHeaders(res, compress);
        },
        onChunkError: (err, index) =>
          log.error({ err, chunk: index }, 'bulk: a chunk could not be run; its students became error rows'),
      });
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
            nonContiguousStudents: upload.scan.nonContiguous.size,
            durationMs: Math.round(performance.now() - started),
          },
        },
        'bulk: file processed',
      );
    } catch (err) {
      gzip?.unpipe(res);
      gzip?.destroy();
      if (abort.signal.aborted) {
        log.info({ err: (err as Error)?.message }, 'bulk: stopped, the client went away');
        res.destroy();
      } else {
        if (res.headersSent) log.error({ err }, 'bulk: failed after the response started; the response is cut short');
        await rejectUpload(req, res, diskFullAsAppError(err), limits); // a full spool disk: 507
      }
    } finally {
      leave?.();
      await upload?.remove();
    }
  });
  router.all(BULK_PATH, methodNotAllowed('POST'));
  router.get(TEMPLATE_PATH, serveBulkTemplate());
  router.all(TEMPLATE_PATH, methodNotAllowed('GET'));
  return router;
}
