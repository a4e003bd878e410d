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
 *                               ?delimiter / ?extra_columns / ?bom / ?policy.<option> (src/api/policy-query.ts)
 *   408 request_timeout         the body arrived slower than UPLOAD_MIN_BYTES_PER_SEC; the connection is closed
 *   503 service_busy            UPLOAD_MAX_SPOOLING uploads are being received already, or BULK_MAX_CONCURRENT
 *                               files (and, for a small file, the small-file lane) are being computed; Retry-After
 *   200                         every data row has one output row; single-student problems (including rows of a
 *                               student that are not contiguous: all of that student's rows) are error rows. A
 *                               failure after the 200 (client gone) destroys the response, so the client sees
 *                               an incomplete transfer, never a file that looks complete. A client that takes
 *                               none of the response's bytes for BULK_STALL_TIMEOUT_MS loses its connection and
 *                               its slot (src/api/response-stall.ts).
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
import { BUSY_RETRY_AFTER_SECONDS, BulkAdmission, SpoolingGate } from './bulk-admission.ts';
import { watchResponseStall } from './response-stall.ts';
import { receiveUpload, rejectUpload, type Upload, type UploadLimits } from './upload.ts';
import { negotiateUpload } from './upload-request.ts';
import { chargeStudents } from './rate-limit.ts';
import { diskFullAsAppError } from '../jobs/spool.ts';
import { acceptsGzip, gzipInto, setEncodingHeaders } from './response-encoding.ts';
import type { Gzip } from 'node:zlib';
import { serveBulkTemplate, TEMPLATE_PATH } from './bulk-template.ts';
import { filePolicy } from './policy-query.ts';

export { bodyKind, negotiateFormat, MULTIPART_OVERHEAD_BYTES } from './upload-request.ts';

export const BULK_PATH = '/v1/calculate/bulk';

const CONTENT_TYPES: Record<BulkFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

function loggerOf(req: Request, fallback: Logger): Logger {
  return (req as Request & { log?: Logger }).log ?? fallback;
}

const limitsOf = new WeakMap<AppContext['config'], UploadLimits>();

/**
 * The upload limits of both doors, from the configuration: one object per configuration, so the bulk and the
 * job door share one spooling cap (UPLOAD_MAX_SPOOLING).
 */
export function uploadLimits(config: AppContext['config']): UploadLimits {
  let limits = limitsOf.get(config);
  if (limits === undefined) {
    limits = {
      spoolDir: config.SPOOL_DIR,
      maxBytes: config.BULK_MAX_BYTES,
      maxRows: config.BULK_MAX_ROWS,
      drainMaxBytes: config.BULK_DRAIN_MAX_BYTES,
      maxRowChars: config.BULK_MAX_ROW_CHARS,
      maxCellChars: config.BULK_MAX_CELL_CHARS,
      spooling: new SpoolingGate(config.UPLOAD_MAX_SPOOLING),
      minRate: { bytesPerSecond: config.UPLOAD_MIN_BYTES_PER_SEC, windowMs: config.UPLOAD_RATE_WINDOW_MS },
    };
    limitsOf.set(config, limits);
  }
  return limits;
}

export function bulkRouter(ctx: AppContext): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const { config } = ctx;
  const limits = uploadLimits(config);
  const admission = new BulkAdmission({
    limit: config.BULK_MAX_CONCURRENT,
    smallLimit: config.BULK_SMALL_MAX_CONCURRENT,
    smallRows: config.BULK_SMALL_FILE_ROWS,
  });

  router.post(BULK_PATH, async (req, res) => {
    const log = loggerOf(req, ctx.logger);
    let upload: Upload | undefined;
    let leave: (() => void) | undefined;
    let unwatch: (() => void) | undefined;
    let gzip: Gzip | undefined;
    // The client going away aborts the pipeline: no more reading, in-flight chunks are dropped when they finish.
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort(new Error('the client closed the connection'));
    });
    try {
      const { kind, format, dialect, gzip: gzipped } = negotiateUpload(req, limits);
      const policy = filePolicy(req, config.SOR_POLICY); // SOR_POLICY with ?policy.<option>= over it (checked above)
      upload = await receiveUpload(req, kind, limits, undefined, { dialect, gzip: gzipped });
      await chargeStudents(res, upload.scan.students);
      try {
        leave = admission.enter(upload.scan.rows);
      } catch (err) {
        res.setHeader('Retry-After', String(BUSY_RETRY_AFTER_SECONDS));
        throw err;
      }
      // A client that stopped reading: its connection goes, the pipeline stops, and the slot is given back.
      unwatch = watchResponseStall(res, config.BULK_STALL_TIMEOUT_MS, () => {
        const seconds = config.BULK_STALL_TIMEOUT_MS / 1000;
        abort.abort(new Error(`the client took no bytes of the response for ${seconds} s`));
        res.destroy();
      });
      const started = performance.now();
      const compress = acceptsGzip(req);
      if (compress) gzip = gzipInto(res);
      const summary = await runBulk({
        input: createReadStream(upload.path, { highWaterMark: PIPELINE_READ_BYTES }),
        output: gzip ?? res,
        format,
        dialect: upload.dialect ?? dialect,
        policy,
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
      unwatch?.();
      leave?.();
      await upload?.remove();
    }
  });
  router.all(BULK_PATH, methodNotAllowed('POST'));
  router.get(TEMPLATE_PATH, serveBulkTemplate());
  router.all(TEMPLATE_PATH, methodNotAllowed('GET'));
  return router;
}
