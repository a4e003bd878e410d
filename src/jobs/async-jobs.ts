/**
 * Async bulk jobs: an ETL client submits a file (POST /v1/jobs), walks away, polls the status and fetches the
 * result later. The service spools the upload to a temporary file (memory stays flat), answers 202 at once, then
 * runs the SAME bulk pipeline as POST /v1/calculate/bulk in the background, on the large runner (the queue when
 * REDIS_URL is set, else the local pool), writing the output into the job store segment by segment.
 *
 * Lifecycle: queued (spooled, waiting for a slot; students being counted) → running → completed | failed.
 * At most MAX_CONCURRENT_JOBS jobs run at once per API process; others wait in FIFO order.
 * The process running a job renews a lease on it, and touches the job's spool file as it does (the heartbeat the
 * spool sweep reads, src/jobs/spool.ts); if the process dies, the job reads as failed (never "running" forever),
 * its spool file is swept, and the client resubmits. The job and its result expire JOB_TTL_SECONDS after the job finished.
 *
 * The upload is read once before the job is created (sha256, size and student count in one pass, see
 * src/jobs/upload-digest.ts), then once by the pipeline. The result is gzip-compressed on its way to the store,
 * which reserves room for it up front (refused with job_store_full, 503, when it cannot fit) and grows the
 * reservation as it is written (the job fails with job_store_full when it cannot). A failed job's partial result
 * is deleted at once, and the job is always marked failed (retried: deleting the result frees the store first).
 * An Idempotency-Key is scoped to the upload: the key plus the sha256 of the file and format, so the same key
 * with another file makes another job (no one can squat a key for a file they do not have), and to the owner.
 * A job belongs to the token that submitted it (`owner`, src/jobs/ownership.ts); `cancel` stops it (its chunks
 * stop: the run's signal aborts) and removes its result, the job then reads failed with code job_cancelled.
 * One job's run (pipeline, result, final status) is src/jobs/job-run.ts.
 */
import { keyTag } from '../log-tag.ts';
import type { RunnerChoice } from '../bulk/pipeline.ts';
import type { CsvDialect } from '../bulk/csv-dialect.ts';
import { resolvePolicy, type PolicyChoices } from '../domain/policy.ts';
import type { ChunkRunner } from '../bulk/runner.ts';
import type { Config } from '../config.ts';
import { AppError, appError, entryEnvelope, errorEnvelope } from '../errors.ts';
import { newJobId } from './job-id.ts';
import { CANCELLED, runJob, type ErrorMapper, type PendingJob, type RunBulkFn } from './job-run.ts';
import { reservationFor } from './result-quota.ts';
import type { StoreHeadroom } from './result-quota.ts';
import { metrics } from '../metrics.ts';
import { diskFullAsAppError, removeSpoolFile, touchSpoolFile } from './spool.ts';
import type { JobError, JobPatch, JobRecord, JobStore, ResultFormat } from './job-store.ts';
import type { Logger } from 'pino';

export type { ErrorMapper, RunBulkFn } from './job-run.ts';

/** Jobs one API process runs at once; the others wait, status "queued". */
export const MAX_CONCURRENT_JOBS = 2;
export { RESULT_SEGMENT_BYTES } from './result-sink.ts';
/** The running process renews its lease this often; a lease lasts LEASE_MS. */
const LEASE_RENEW_MS = 10_000;
const LEASE_MS = 60_000;
/** Marking a job failed is retried this many times, this far apart (ms), before it is left to its lease. */
const MARK_FAILED_ATTEMPTS = 5;
const MARK_FAILED_RETRY_MS = 500;

export interface AsyncJobsOptions {
  config: Config;
  logger: Logger;
  store: JobStore;
  /** The runners for every job: inline for small files, the queue or the pool for large (each run carries its own run id). */
  runners: ChunkRunner | RunnerChoice;
  runBulk: RunBulkFn;
}

export interface SpooledUpload {
  /** Path of the spooled file; the service owns it from submit() on (deletes it when done). */
  path: string;
  /** sha256 over the bytes (and format): scopes the Idempotency-Key. */
  sha256: string;
  /** Size in bytes (the result's reservation is derived from it). */
  bytes: number;
  /** Students in the file (the progress total), null when unknown. */
  students: number | null;
  /** Students whose rows are not contiguous, from the upload's prescan (the run does not read the file for them). */
  nonContiguous?: ReadonlyMap<string, number>;
  /** How the file is written (charset, delimiter, extra columns) and the output's BOM; default v1 UTF-8 CSV. */
  dialect?: CsvDialect;
  /** The file's own school-policy options (`policy.<option>` parameters), over the deployment's SOR_POLICY. */
  policy?: PolicyChoices;
}

const defaultErrorMapper: ErrorMapper = (err) => {
  const mapped = diskFullAsAppError(err); // a full disk says so (insufficient_storage); the rest is internal
  return errorEnvelope(mapped instanceof AppError ? mapped : AppError.internal(mapped));
};

export class AsyncJobs {
  readonly store: JobStore;
  readonly #config: Config;
  readonly #logger: Logger;
  readonly #runners: ChunkRunner | RunnerChoice;
  readonly #runBulk: RunBulkFn;
  readonly #mapError: ErrorMapper;
  readonly #waiting: PendingJob[] = [];
  readonly #running = new Map<string, { abort: AbortController; done: Promise<void>; path: string }>();
  /** Jobs this process owns (waiting or running): their leases are renewed. */
  readonly #owned = new Set<string>();
  readonly #leaseTimer: NodeJS.Timeout;
  #closed = false;

  constructor(options: AsyncJobsOptions, mapError: ErrorMapper = defaultErrorMapper) {
    this.store = options.store;
    this.#config = options.config;
    this.#logger = options.logger.child({ component: 'async-jobs' });
    this.#runners = options.runners;
    this.#runBulk = options.runBulk;
    this.#mapError = mapError;
    this.#leaseTimer = setInterval(() => this.#renewLeases(), LEASE_RENEW_MS);
    this.#leaseTimer.unref();
  }

  /** Room left in the job store for results (for /readyz). */
  headroom(): Promise<StoreHeadroom> {
    return this.store.headroom();
  }

  async discard(upload: SpooledUpload): Promise<void> {
    await removeSpoolFile(upload.path);
  }

  /**
   * Creates the job (or returns the existing one for a repeated Idempotency-Key with the same file and format)
   * and schedules it. The key is scoped to the upload's hash: the same key with another file is another job.
   * Throws job_store_full (503) when the store has no room for the result.
   */
  async submit(
    upload: SpooledUpload,
    format: ResultFormat,
    idempotencyKey?: string,
    owner = '',
  ): Promise<{ record: JobRecord; created: boolean }> {
    if (this.#closed) {
      await this.discard(upload);
      throw appError('SHUTTING_DOWN');
    }
    const now = new Date();
    const record: JobRecord = {
      id: newJobId(now.getTime()),
      status: 'queued',
      format,
      created_at: now.toISOString(),
      started_at: null,
      finished_at: null,
      students_done: 0,
      students_total: upload.students,
      rows_done: 0,
      error_rows: 0,
      error: null,
      fingerprint: upload.sha256,
      lease_until: now.getTime() + LEASE_MS,
      owner,
      policy: resolvePolicy(upload.policy, this.#config.SOR_POLICY),
    };
    const scope = owner === '' ? upload.sha256 : `${upload.sha256}\n${owner}`;
    const scopedKey = idempotencyKey === undefined ? undefined : `${idempotencyKey}\n${scope}`;
    let outcome;
    try {
      outcome = await this.store.create(record, scopedKey, reservationFor(upload.bytes));
    } catch (err) {
      await this.discard(upload);
      throw err;
    }
    if (!outcome.created) {
      await this.discard(upload);
      return outcome;
    }
    metrics.jobTransitions.inc({ status: 'queued' });
    this.#owned.add(record.id);
    this.#waiting.push({
      record,
      path: upload.path,
      nonContiguous: upload.nonContiguous,
      dialect: upload.dialect,
      policy: record.policy!,
    });
    this.#logger.info({ job: keyTag(record.id), format, bytes: upload.bytes }, 'async job queued');
    this.#pump();
    return outcome;
  }

  async #update(id: string, patch: JobPatch): Promise<void> {
    try {
      await this.store.update(id, patch);
    } catch (err) {
      this.#logger.warn({ job: keyTag(id), err: (err as Error).message }, 'async job: could not update the job store');
    }
  }

  /**
   * Marks a job failed, retrying: a store that refused the result may refuse this write too for a moment. Its
   * partial result is deleted first (which also frees the room the write needs).
   */
  async #markFailed(id: string, error: JobError): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.store.clearResult(id);
        await this.store.update(id, { status: 'failed', finished_at: new Date().toISOString(), error });
        return;
      } catch (err) {
        if (attempt >= MARK_FAILED_ATTEMPTS) {
          this.#logger.error(
            { jobId: id, err: (err as Error).message },
            'async job: could not mark the job failed; it reads as failed once its lease runs out',
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, MARK_FAILED_RETRY_MS * attempt));
      }
    }
  }

  #renewLeases(): void {
    const lease_until = Date.now() + LEASE_MS;
    for (const id of this.#owned) void this.#update(id, { lease_until });
    for (const { path } of [...this.#waiting, ...this.#running.values()]) void touchSpoolFile(path);
  }

  #pump(): void {
    while (!this.#closed && this.#running.size < MAX_CONCURRENT_JOBS && this.#waiting.length > 0) {
      const next = this.#waiting.shift() as PendingJob;
      const abort = new AbortController();
      const done = this.#run(next, abort.signal).finally(() => {
        this.#running.delete(next.record.id);
        this.#owned.delete(next.record.id);
        this.#pump();
      });
      this.#running.set(next.record.id, { abort, done, path: next.path });
    }
  }

  #run(pending: PendingJob, signal: AbortSignal): Promise<void> {
    const id = pending.record.id;
    return runJob(
      {
        store: this.store,
        config: this.#config,
        logger: this.#logger,
        runners: this.#runners,
        runBulk: this.#runBulk,
        mapError: this.#mapError,
        leaseMs: LEASE_MS,
        update: (patch) => this.#update(id, patch),
        markFailed: (error) => this.#markFailed(id, error),
        cancelledElsewhere: () => this.#cancelledElsewhere(id),
        cancel: () => this.#running.get(id)?.abort.abort(CANCELLED),
      },
      pending,
      signal,
    );
  }

  /** True when the job was cancelled by a DELETE another API process answered. */
  async #cancelledElsewhere(id: string): Promise<boolean> {
    try {
      return (await this.store.get(id))?.error?.code === 'job_cancelled';
    } catch {
      return false;
    }
  }

  /**
   * Cancels a job (DELETE /v1/jobs/{id}; the caller checked that it owns it): a waiting job never starts, a
   * running one is aborted here (its remaining chunks are not run), and one running on another API process stops
   * at its next progress write, when it reads the mark. The job reads failed (job_cancelled), its result removed.
   */
  async cancel(id: string): Promise<void> {
    const waiting = this.#waiting.findIndex((p) => p.record.id === id);
    if (waiting >= 0) {
      const [p] = this.#waiting.splice(waiting, 1);
      this.#owned.delete(id);
      if (p) await removeSpoolFile(p.path).catch(() => undefined);
    }
    const running = this.#running.get(id);
    if (running) {
      running.abort.abort(CANCELLED);
      await running.done;
    }
    // Also when the run here had just finished: the mark and the removal of the result are what DELETE promises.
    await this.#markFailed(id, entryEnvelope('JOB_CANCELLED'));
    this.#logger.info({ job: keyTag(id) }, 'async job cancelled');
  }

  /**
   * Graceful stop: takes no new jobs, fails the waiting ones, gives running ones up to `drainMs` to finish, then
   * aborts them (they end as failed, with a message telling the client to resubmit).
   */
  async close(drainMs = 0): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const p of this.#waiting.splice(0)) {
      await this.#markFailed(p.record.id, entryEnvelope('JOB_SHUTDOWN_BEFORE_START'));
      await removeSpoolFile(p.path).catch(() => undefined);
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
