/**
 * Async bulk jobs: an ETL client submits a file (POST /v1/jobs), walks away, polls the status and fetches the
 * result later. The service spools the upload to a temporary file (memory stays flat), answers 202 at once, then
 * runs the SAME bulk pipeline as POST /v1/calculate/bulk in the background, on the large runner (the queue when
 * REDIS_URL is set, else the local pool), writing the output into the job store segment by segment.
 *
 * Lifecycle: queued (spooled, waiting for a slot; students being counted) → running → completed | failed.
 * At most MAX_CONCURRENT_JOBS jobs run at once per API process; others wait in FIFO order.
 * The process running a job renews a lease on it; if the process dies, the job reads as failed (never "running"
 * forever) and the client resubmits. The job and its result expire JOB_TTL_SECONDS after the job finished.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { BulkProgress, BulkSummary, RunBulkOptions, RunnerChoice } from '../bulk/pipeline.ts';
import type { ChunkRunner } from '../bulk/runner.ts';
import { CsvRecordReader } from '../bulk/csv-reader.ts';
import type { CsvRecord } from '../bulk/csv-reader.ts';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { metrics } from '../metrics.ts';
import type { JobError, JobPatch, JobRecord, JobStore, ResultFormat } from './job-store.ts';

/** Jobs one API process runs at once; the others wait, status "queued". */
export const MAX_CONCURRENT_JOBS = 2;
/** Result segments are about this size (one Redis list element each). */
export const RESULT_SEGMENT_BYTES = 1024 * 1024;
/** The running process renews its lease this often; a lease lasts LEASE_MS. */
const LEASE_RENEW_MS = 10_000;
const LEASE_MS = 60_000;
/** Progress is written to the store at most this often. */
const PROGRESS_EVERY_MS = 500;

/** The bulk pipeline (src/bulk/pipeline.ts runBulk), injected so tests and the CLI can supply their own. */
export type RunBulkFn = (options: RunBulkOptions) => Promise<BulkSummary>;

export interface AsyncJobsOptions {
  config: Config;
  logger: Logger;
  store: JobStore;
  /** The runners for one job: inline for small files, the queue (bound to the job id) or the pool for large. */
  runnerFor: (jobId: string) => ChunkRunner | RunnerChoice;
  runBulk: RunBulkFn;
  /** Where uploads are spooled; default `${os.tmpdir()}/sor-jobs`. */
  spoolDir?: string;
}

export interface SpooledUpload {
  /** Path of the spooled file; the service owns it from submit() on (deletes it when done). */
  path: string;
  /** sha256 over the bytes (and format), for Idempotency-Key comparisons. */
  sha256: string;
}

/** Maps any error of a bulk run to the job's error object (the v1 envelope shape). */
export type ErrorMapper = (err: unknown) => JobError;

const defaultErrorMapper: ErrorMapper = (err) => {
  if (err instanceof AppError) {
    const out: JobError = {
      code: err.code,
      message: err.code === 'internal_error' ? 'An internal error occurred.' : err.message,
    };
    if (err.fieldErrors && err.fieldErrors.length > 0) {
      out.field_errors = err.fieldErrors.map((f) => ({ field: f.field, message: f.message }));
    }
    return out;
  }
  return { code: 'internal_error', message: 'An internal error occurred.' };
};

/** Counts students (runs of equal student_id) in a spooled CSV, for the progress total. Null if unreadable. */
export async function countStudents(path: string): Promise<number | null> {
  const reader = new CsvRecordReader();
  const records: CsvRecord[] = [];
  let idColumn = -1;
  let headerSeen = false;
  let previous: string | undefined;
  let count = 0;
  const consume = () => {
    for (const r of records) {
      if (!headerSeen) {
        headerSeen = true;
        idColumn = r.cells.findIndex((c) => c.trim().toLowerCase() === 'student_id');
        continue;
      }
      const id = idColumn >= 0 ? (r.cells[idColumn] ?? '') : '';
      if (id !== previous || r.error !== undefined) count++;
      previous = id;
    }
    records.length = 0;
  };
  try {
    for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1024 * 1024 })) {
      reader.push(chunk as string, records);
      consume();
    }
    reader.end(records);
    consume();
    return idColumn >= 0 ? count : null;
  } catch {
    return null;
  }
}

/** A Writable that groups the pipeline's output into ~1 MiB segments and appends them to the job store. */
class ResultSink extends Writable {
  readonly #store: JobStore;
  readonly #id: string;
  #parts: Buffer[] = [];
  #size = 0;

  constructor(store: JobStore, id: string) {
    super({ decodeStrings: true });
    this.#store = store;
    this.#id = id;
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.#parts.push(chunk);
    this.#size += chunk.length;
    if (this.#size < RESULT_SEGMENT_BYTES) {
      cb();
      return;
    }
    this.#flush().then(() => cb(), cb);
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.#flush().then(() => cb(), cb);
  }

  async #flush(): Promise<void> {
    if (this.#size === 0) return;
    const segment = Buffer.concat(this.#parts, this.#size);
    this.#parts = [];
    this.#size = 0;
    await this.#store.appendResult(this.#id, segment);
  }
}

interface Pending {
  record: JobRecord;
  path: string;
}

export class AsyncJobs {
  readonly store: JobStore;
  readonly #config: Config;
  readonly #logger: Logger;
  readonly #runnerFor: (jobId: string) => ChunkRunner | RunnerChoice;
  readonly #runBulk: RunBulkFn;
  readonly #spoolDir: string;
  readonly #mapError: ErrorMapper;
  readonly #waiting: Pending[] = [];
  readonly #running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  /** Jobs this process owns (waiting or running): their leases are renewed. */
  readonly #owned = new Set<string>();
  readonly #leaseTimer: NodeJS.Timeout;
  #closed = false;

  constructor(options: AsyncJobsOptions, mapError: ErrorMapper = defaultErrorMapper) {
    this.store = options.store;
    this.#config = options.config;
    this.#logger = options.logger.child({ component: 'async-jobs' });
    this.#runnerFor = options.runnerFor;
    this.#runBulk = options.runBulk;
    this.#spoolDir = options.spoolDir ?? join(tmpdir(), 'sor-jobs');
    this.#mapError = mapError;
    this.#leaseTimer = setInterval(() => this.#renewLeases(), LEASE_RENEW_MS);
    this.#leaseTimer.unref();
  }

  /**
   * Spools a request body to disk, enforcing BULK_MAX_BYTES (413), and hashes it. The caller hands the result
   * to submit() or deletes it with discard().
   */
  async spool(body: Readable, format: ResultFormat): Promise<SpooledUpload> {
    await mkdir(this.#spoolDir, { recursive: true });
    const path = join(this.#spoolDir, `${randomUUID()}.csv`);
    const hash = createHash('sha256').update(`${format}\n`);
    const file = createWriteStream(path);
    let bytes = 0;
    const max = this.#config.BULK_MAX_BYTES;
    try {
      for await (const chunk of body) {
        const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
        bytes += buf.length;
        if (bytes > max) {
          throw new AppError('validation_error', 413, `The file is larger than the ${max}-byte limit.`);
        }
        hash.update(buf);
        if (!file.write(buf)) await new Promise<void>((resolve) => file.once('drain', () => resolve()));
      }
      await new Promise<void>((resolve, reject) => file.end((err?: Error | null) => (err ? reject(err) : resolve())));
    } catch (err) {
      file.destroy();
      await rm(path, { force: true });
      throw err;
    }
    return { path, sha256: hash.digest('hex') };
  }

  /** Adopts an already spooled file (e.g. written by multer), hashing it. */
  async adopt(path: string, format: ResultFormat): Promise<SpooledUpload> {
    const hash = createHash('sha256').update(`${format}\n`);
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    return { path, sha256: hash.digest('hex') };
  }

  async discard(upload: SpooledUpload): Promise<void> {
    await rm(upload.path, { force: true });
  }

  /**
   * Creates the job (or returns the existing one for a repeated Idempotency-Key) and schedules it. A key reused
   * with a different file or format is refused (422).
   */
  async submit(
    upload: SpooledUpload,
    format: ResultFormat,
    idempotencyKey?: string,
  ): Promise<{ record: JobRecord; created: boolean }> {
    if (this.#closed) {
      await this.discard(upload);
      throw new AppError('internal_error', 503, 'The service is shutting down.');
    }
    const now = new Date();
    const record: JobRecord = {
      id: randomUUID(),
      status: 'queued',
      format,
      created_at: now.toISOString(),
      started_at: null,
      finished_at: null,
      students_done: 0,
      students_total: null,
      rows_done: 0,
      error_rows: 0,
      error: null,
      fingerprint: upload.sha256,
      lease_until: now.getTime() + LEASE_MS,
    };
    let outcome;
    try {
      outcome = await this.store.create(record, idempotencyKey);
    } catch (err) {
      await this.discard(upload);
      throw err;
    }
    if (!outcome.created) {
      await this.discard(upload);
      if (outcome.record.fingerprint !== upload.sha256) {
        throw new AppError(
          'validation_error',
          422,
          'This Idempotency-Key was already used for a different file or result format.',
          [{ field: 'Idempotency-Key', message: 'already used for a different submission' }],
        );
      }
      return outcome;
    }
    metrics.jobTransitions.inc({ status: 'queued' });
    this.#owned.add(record.id);
    this.#waiting.push({ record, path: upload.path });
    this.#logger.info({ jobId: record.id, format }, 'async job queued');
    void this.#count(record.id, upload.path);
    this.#pump();
    return outcome;
  }

  async #count(id: string, path: string): Promise<void> {
    const total = await countStudents(path);
    if (total === null) return;
    // The final count comes from the pipeline itself; never overwrite it with this estimate.
    const current = await this.store.get(id).catch(() => undefined);
    if (current && (current.status === 'queued' || current.status === 'running')) {
      await this.#update(id, { students_total: total });
    }
  }

  async #update(id: string, patch: JobPatch): Promise<void> {
    try {
      await this.store.update(id, patch);
    } catch (err) {
      this.#logger.warn({ jobId: id, err: (err as Error).message }, 'async job: could not update the job store');
    }
  }

  #renewLeases(): void {
    const lease_until = Date.now() + LEASE_MS;
    for (const id of this.#owned) void this.#update(id, { lease_until });
  }

  #pump(): void {
    while (!this.#closed && this.#running.size < MAX_CONCURRENT_JOBS && this.#waiting.length > 0) {
      const next = this.#waiting.shift() as Pending;
      const abort = new AbortController();
      const done = this.#run(next, abort.signal).finally(() => {
        this.#running.delete(next.record.id);
        this.#owned.delete(next.record.id);
        this.#pump();
      });
      this.#running.set(next.record.id, { abort, done });
    }
  }

  async #run({ record, path }: Pending, signal: AbortSignal): Promise<void> {
    const id = record.id;
    const log = this.#logger.child({ jobId: id });
    await this.#update(id, {
      status: 'running',
      started_at: new Date().toISOString(),
      lease_until: Date.now() + LEASE_MS,
    });
    metrics.jobTransitions.inc({ status: 'running' });
    log.info('async job running');
    let students = 0;
    let rows = 0;
    let errorRows = 0;
    let lastWrite = 0;
    const onProgress = (p: BulkProgress) => {
      students = p.students;
      rows = p.rows;
      errorRows = p.errorRows;
      const now = Date.now();
      if (now - lastWrite >= PROGRESS_EVERY_MS) {
        lastWrite = now;
        void this.#update(id, { students_done: students, rows_done: rows, error_rows: errorRows });
      }
    };
    const sink = new ResultSink(this.store, id);
    try {
      const summary = await this.#runBulk({
        input: createReadStream(path, { highWaterMark: 256 * 1024 }),
        output: sink,
        format: record.format,
        runner: this.#runnerFor(id),
        config: this.#config,
        limits: { maxBytes: this.#config.BULK_MAX_BYTES, maxRows: this.#config.BULK_MAX_ROWS },
        onProgress,
        signal,
      });
      students = summary.students;
      rows = summary.rows;
      errorRows = summary.errorRows;
      if (!sink.writableFinished) {
        await new Promise<void>((resolve, reject) => {
          if (sink.writableEnded) sink.once('finish', resolve);
          else sink.end(resolve);
          sink.once('error', reject);
        });
      }
      await this.store.update(id, {
        status: 'completed',
        finished_at: new Date().toISOString(),
        students_done: students,
        students_total: students,
        rows_done: rows,
        error_rows: errorRows,
      });
      metrics.jobTransitions.inc({ status: 'completed' });
      log.info({ students, rows, errorRows }, 'async job completed');
    } catch (err) {
      sink.destroy();
      const error = signal.aborted
        ? { code: 'internal_error', message: 'The service shut down before the job finished. Submit the file again.' }
        : this.#mapError(err);
      log.warn({ err: (err as Error)?.message, code: error.code }, 'async job failed');
      await this.store.clearResult(id).catch(() => undefined);
      await this.#update(id, { status: 'failed', finished_at: new Date().toISOString(), error });
      metrics.jobTransitions.inc({ status: 'failed' });
    } finally {
      await rm(path, { force: true }).catch(() => undefined);
    }
  }

  /**
   * Graceful stop: takes no new jobs, fails the waiting ones, gives running ones up to `drainMs` to finish, then
   * aborts them (they end as failed, with a message telling the client to resubmit).
   */
  async close(drainMs = 0): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const p of this.#waiting.splice(0)) {
      await this.#update(p.record.id, {
        status: 'failed',
        finished_at: new Date().toISOString(),
        error: {
          code: 'internal_error',
          message: 'The service shut down before the job started. Submit the file again.',
        },
      });
      await rm(p.path, { force: true }).catch(() => undefined);
    }
    const running = [...this.#running.values()];
    if (drainMs > 0 && running.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(running.map((r) => r.done)),
        new Promise((resolve) => {
          timer = setTimeout(resolve, drainMs);
        }),
      ]);
      clearTimeout(timer);
    }
    for (const r of this.#running.values()) r.abort.abort();
    await Promise.allSettled(running.map((r) => r.done));
    clearInterval(this.#leaseTimer);
  }
}
