/**
 * The upload door shared by POST /v1/calculate/bulk and POST /v1/jobs, so both give the same 400/406/413/415:
 *
 *   negotiateUpload   (src/api/upload-request.ts) the headers: Content-Type, Content-Encoding, Accept, a declared
 *                     Content-Length over the limit, and the file's dialect.
 *   receiveUpload     streams the body (raw, or the one `file` part of a multipart body) into a private spool file
 *                     (src/jobs/spool.ts) while a Prescan (src/bulk/prescan.ts) checks it in the same pass; it
 *                     resolves only once the whole body is in, so the status is decided after the upload.
 *   rejectUpload      answers an error so the client can read it: the rest of the body is read and dropped (up to
 *                     BULK_DRAIN_MAX_BYTES beyond the limit), the envelope is sent, and the connection is closed
 *                     when the body could not be read to its end. A client that went away gets nothing.
 *
 * Multipart: exactly one file part, in the field `file` (a second file part, or a file under another name, is a
 * 400); small text fields (before or after the file) are handed to the caller as `fields`, which reads the ones it
 * knows (POST /v1/jobs: `callback_url`) and ignores the rest. A body that is not valid multipart (no or bad
 * boundary, truncated, bad part headers, no file part) is a 400, never a 5xx. The answer is the upload's first
 * problem, whatever the size and however the body is sent: a file that fails its check (its charset, header,
 * delimiter…) stops the reading of the body, and the multipart parser is destroyed mid-body; what that reports is
 * not a problem of the upload.
 *
 * Slow and many uploads: at most UPLOAD_MAX_SPOOLING bodies are received into the spool at once (one more is a 503
 * service_busy with Retry-After, src/api/bulk-admission.ts), and a body must keep arriving at
 * UPLOAD_MIN_BYTES_PER_SEC, also while it is drained after an early refusal (src/api/upload-rate.ts: 408, closed).
 *
 * gzip: the body is decompressed as it arrives (backpressure kept), and what the limits and the spool see are the
 * decompressed bytes: a small body that expands past BULK_MAX_BYTES is refused (413) as soon as it does.
 */
import { closeAfterAnswer, drainBody } from './drain-body.ts';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy, { type Busboy } from 'busboy';
import { bodyBytes, drainedOrClosed } from './upload-body.ts';
import { PART_HEAD_CHARS, partDialect } from './upload-options.ts';
import { MULTIPART_OVERHEAD_BYTES, tooLarge, type BodyKind } from './upload-request.ts';
import type { CsvDialect } from '../bulk/csv-dialect.ts';
import type { Response } from 'express';
import { AppError, appError } from '../errors.ts';
import { Prescan, type PrescanResult } from '../bulk/prescan.ts';
import {
  createSpoolFile,
  diskFullAsAppError,
  ensureSpoolDir,
  isDiskFull,
  removeSpoolFile,
  type SpoolFile,
} from '../jobs/spool.ts';
import { sendError } from './error-envelope.ts';
import { BUSY_RETRY_AFTER_SECONDS, type SpoolingGate } from './bulk-admission.ts';
import { answerWhenTooSlow, guardBodyRate, type MinBodyRate } from './upload-rate.ts';

export interface UploadLimits {
  /** SPOOL_DIR. */
  spoolDir: string;
  /** BULK_MAX_BYTES: the most file bytes (413 beyond). */
  maxBytes: number;
  /** BULK_MAX_ROWS: the most data rows (413 beyond). */
  maxRows: number;
  /** BULK_DRAIN_MAX_BYTES: body bytes read and dropped beyond the limit so an early answer can be read. */
  drainMaxBytes: number;
  /** BULK_MAX_ROW_CHARS and BULK_MAX_CELL_CHARS: the prescan reads as the pipeline does. */
  maxRowChars?: number;
  maxCellChars?: number;
  /** UPLOAD_MAX_SPOOLING, shared by every door of the process; none: no cap. */
  spooling?: SpoolingGate;
  /** UPLOAD_MIN_BYTES_PER_SEC over UPLOAD_RATE_WINDOW_MS; none: no minimum. */
  minRate?: MinBodyRate;
}

/** The client went away during the upload: nothing can be answered. */
export class UploadAbortedError extends Error {
  constructor(cause?: unknown) {
    super('the client closed the connection during the upload', { cause });
    this.name = 'UploadAbortedError';
  }
}

/** A received, checked upload in the spool. The caller must call `remove()` on every path. */
export interface Upload {
  path: string;
  scan: PrescanResult;
  /** The dialect the file was checked in (the request's, or with the charset its multipart part declared). */
  dialect: CsvDialect | undefined;
  /** The multipart body's text fields, each name with its values in order; empty for a raw CSV body. */
  fields: ReadonlyMap<string, readonly string[]>;
  remove(): Promise<void>;
}

/** Body bytes read from each request so far (the drain bound counts from them). */
const received = new WeakMap<IncomingMessage, number>();

function count(req: IncomingMessage, bytes: number): void {
  received.set(req, (received.get(req) ?? 0) + bytes);
}

/** Guards the rate of an upload's body (src/api/upload-rate.ts) from its first read to its end. */
function guardRate(req: IncomingMessage, limits: Pick<UploadLimits, 'minRate'>): void {
  const res = (req as IncomingMessage & { res?: Response }).res; // Express links the response
  guardBodyRate(req, res, limits.minRate, () => received.get(req) ?? 0);
}

function malformed(detail: string): AppError {
  return appError('MULTIPART_MALFORMED', { detail });
}

/** Writes checked bytes to the spool; once the prescan has a problem, nothing more is written. */
class SpoolSink {
  scan: Prescan;
  /** The file's dialect; a multipart file part may declare its own charset before its first byte. */
  dialect: CsvDialect | undefined;
  private readonly file: SpoolFile;
  private readonly digest: UploadObserver | undefined;
  private readonly newScan: (dialect: CsvDialect | undefined) => Prescan;

  constructor(
    file: SpoolFile,
    newScan: (dialect: CsvDialect | undefined) => Prescan,
    dialect: CsvDialect | undefined,
    digest?: UploadObserver,
  ) {
    this.file = file;
    this.newScan = newScan;
    this.dialect = dialect;
    this.scan = newScan(dialect);
    this.digest = digest;
  }

  /** Reads the file in another charset (called before its first byte, when its multipart part declares one). */
  redeclare(dialect: CsvDialect): void {
    this.dialect = dialect;
    this.scan = this.newScan(dialect);
  }

  async write(chunk: Buffer): Promise<void> {
    this.scan.push(chunk);
    if (this.scan.failed !== undefined) return;
    this.digest?.update(chunk);
    await this.file.handle.write(chunk);
  }
}

/** Sees every byte stored in the spool, in the same pass (the job service's hash and counts). */
export interface UploadObserver {
  update(chunk: Buffer): void;
}

async function receiveRaw(req: IncomingMessage, sink: SpoolSink, gzip: boolean): Promise<void> {
  for await (const buf of bodyBytes(req, gzip, (n) => count(req, n))) {
    await sink.write(buf);
    if (sink.scan.failed !== undefined) return; // rejectUpload reads (and drops) the rest
  }
}

async function receiveMultipart(
  req: IncomingMessage,
  sink: SpoolSink,
  limits: UploadLimits,
  gzip: boolean,
  fields: Map<string, string[]>,
): Promise<void> {
  let bb: Busboy;
  try {
    bb = busboy({
      headers: req.headers,
      limits: { files: 4, fields: 16, fieldSize: 64 * 1024, parts: 24, headerPairs: 64 },
    });
  } catch (err) {
    throw malformed(err instanceof Error ? err.message : 'unreadable Content-Type'); // no or bad boundary
  }
  // The upload's first problem is what the client is answered: the prescan's (the file's own: its charset, its
  // header…) or the body's (a second file, a malformed or oversized body), whichever came first. Once reading
  // stops on it, busboy is destroyed mid-body, and what that destruction reports ("Unexpected end of form", the
  // file part cut short) is a consequence of stopping, never a problem of its own.
  let problem: AppError | undefined;
  let stopped = false;
  const fail = (err: AppError) => {
    if (stopped || sink.scan.failed !== undefined) return;
    problem ??= err;
  };
  let files = 0;
  let fileDone: Promise<void> = Promise.resolve();
  // The start of the body, where the file part's own Content-Type (and charset) is read (busboy omits it).
  let head = '';
  bb.on('file', (name, stream: Readable) => {
    files++;
    if (name !== 'file' || files > 1 || problem !== undefined) {
      stream.resume();
      // The file part before this one may still be in its check (its bytes reach the spool asynchronously, while
      // busboy reads on): a problem of that file comes first in the body, so this part is judged after it.
      const extra = appError('MULTIPART_ONE_FILE');
      void fileDone.then(() => fail(extra));
      return;
    }
    try {
      const dialect = partDialect(sink.dialect, head);
      if (dialect.charset !== (sink.dialect?.charset ?? 'utf-8')) sink.redeclare(dialect);
    } catch (err) {
      fail(err instanceof AppError ? err : malformed('unreadable part Content-Type'));
    }
    fileDone = (async () => {
      try {
        for await (const chunk of stream) {
          if (problem !== undefined || sink.scan.failed !== undefined) continue; // let busboy finish the part
          await sink.write(chunk as Buffer);
        }
      } catch (err) {
        // A part cut short (when reading stopped on a problem, the part was cut on purpose: fail ignores it).
        fail(malformed(err instanceof Error ? err.message : 'the file part is incomplete'));
      }
    })();
  });
  bb.on('field', (name: string, value: string) => fields.set(name, [...(fields.get(name) ?? []), value]));
  bb.on('filesLimit', () => fail(appError('MULTIPART_ONE_FILE')));
  bb.on('partsLimit', () => fail(malformed('too many parts')));
  bb.on('fieldsLimit', () => fail(malformed('too many fields')));
  const finished = new Promise<void>((resolve) => {
    bb.on('error', (err) => {
      fail(malformed(err instanceof Error ? err.message : 'the multipart body is malformed'));
      resolve();
    });
    bb.on('close', () => resolve());
  });
  const max = limits.maxBytes + MULTIPART_OVERHEAD_BYTES;
  let total = 0;
  for await (const buf of bodyBytes(req, gzip, (n) => count(req, n))) {
    total += buf.length;
    if (head.length < PART_HEAD_CHARS) head += buf.toString('latin1', 0, PART_HEAD_CHARS - head.length);
    if (total > max) fail(tooLarge(limits.maxBytes));
    if (problem !== undefined || sink.scan.failed !== undefined) break;
    if (!bb.write(buf)) await drainedOrClosed(bb);
  }
  if (problem === undefined && sink.scan.failed === undefined) {
    bb.end();
    await finished;
  } else {
    stopped = true; // the rest of the body is rejectUpload's to drain
    bb.destroy();
  }
  await fileDone;
  if (problem !== undefined) throw problem;
  if (files === 0 && sink.scan.failed === undefined) {
    throw appError('MULTIPART_NO_FILE');
  }
}

/**
 * Receives the body into a new spool file, checking it on the way. Resolves once the whole body is in with the
 * upload and its prescan (whose `problem` the caller answers); `observer` sees every stored byte. Rejects with an
 * AppError (malformed multipart, size, UPLOAD_MAX_SPOOLING reached) or UploadAbortedError (also when the body was
 * too slow and has been answered 408), the spool file already removed. On rejection, pass the error to
 * rejectUpload.
 */
export async function receiveUpload(
  req: IncomingMessage,
  kind: BodyKind,
  limits: UploadLimits,
  observer?: UploadObserver,
  body: { dialect?: CsvDialect; gzip?: boolean } = {},
): Promise<Upload> {
  guardRate(req, limits);
  const leave = limits.spooling?.enter(); // throws the 503 when too many uploads are spooling
  try {
    return await spoolUpload(req, kind, limits, observer, body);
  } finally {
    leave?.();
  }
}

async function spoolUpload(
  req: IncomingMessage,
  kind: BodyKind,
  limits: UploadLimits,
  observer: UploadObserver | undefined,
  body: { dialect?: CsvDialect; gzip?: boolean },
): Promise<Upload> {
  await ensureSpoolDir(limits.spoolDir);
  const file = await createSpoolFile(limits.spoolDir);
  const remove = () => removeSpoolFile(file.path);
  const newScan = (dialect: CsvDialect | undefined) =>
    new Prescan({
      maxBytes: limits.maxBytes,
      maxRows: limits.maxRows,
      maxRowChars: limits.maxRowChars,
      maxCellChars: limits.maxCellChars,
      dialect,
    });
  const sink = new SpoolSink(file, newScan, body.dialect, observer);
  const fields = new Map<string, string[]>();
  try {
    if (kind === 'csv') await receiveRaw(req, sink, body.gzip === true);
    else await receiveMultipart(req, sink, limits, body.gzip === true, fields);
    await file.handle.close();
  } catch (err) {
    await file.handle.close().catch(() => undefined);
    await remove();
    if (err instanceof AppError) throw err;
    if (isDiskFull(err)) throw diskFullAsAppError(err); // the spool's disk, not the client: 507
    if (req.destroyed || (err as { code?: unknown }).code === 'ECONNRESET') throw new UploadAbortedError(err);
    throw err;
  }
  const result = sink.scan.end();
  if (result.problem !== undefined) {
    await remove();
    throw result.problem;
  }
  return { path: file.path, scan: result, remove, dialect: sink.dialect, fields };
}

/**
 * Answers `err` (any thrown value) for an upload request so the client can read it: reads and drops what is left
 * of the body, up to `drainMaxBytes` beyond the limit, then sends the envelope; when the body could not be read
 * to its end the connection is closed after the answer. For UploadAbortedError it only cleans up.
 */
export async function rejectUpload(
  req: IncomingMessage,
  res: Response,
  err: unknown,
  limits: Pick<UploadLimits, 'maxBytes' | 'drainMaxBytes' | 'minRate'>,
): Promise<void> {
  if (err instanceof UploadAbortedError) {
    res.destroy(); // the client is gone: nothing to answer
    return;
  }
  if (res.headersSent || res.destroyed) {
    sendError(res, err); // destroys a started response: the client sees an incomplete transfer
    return;
  }
  if (err instanceof AppError && err.entry === 'UPLOADS_BUSY') {
    res.setHeader('Retry-After', String(BUSY_RETRY_AFTER_SECONDS));
  }
  // A body drained too slowly is cut off with this answer rather than the 408.
  guardRate(req, limits);
  answerWhenTooSlow(req, err);
  const bound = limits.maxBytes + MULTIPART_OVERHEAD_BYTES + limits.drainMaxBytes;
  const complete = await drainBody(req, bound, received.get(req) ?? 0, (bytes) => count(req, bytes));
  if (req.destroyed && !req.readableEnded) {
    res.destroy();
    return;
  }
  if (!complete) closeAfterAnswer(req, res);
  sendError(res, err);
}
