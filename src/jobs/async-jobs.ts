/**
 * Async bulk jobs: an ETL client submits a file (POST /v1/jobs), walks away, polls the status and fetches the
 * result later. The service spools the upload to a temporary file (memory stays flat), answers 202 at once, then
 * runs the SAME bulk pipeline as POST /v1/calculate/bulk in the background, on the large runner (the queue when
 * REDIS_URL is set, else the local pool), writing the output into the job store segment by segment.
 *
 * Lifecycle: queued (spooled, waiting for a slot) → running → completed | failed | cancelled.
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
 * Idempotency-Key: with access control (AUTH_MODE=required) a key belongs to the token that sent it: the same key
 * with the same upload and options returns the job, with another upload or other options it is refused (422
 * idempotency_key_reused). Without access control every caller is anonymous, so a key is scoped to the upload
 * (the key plus the sha256 of the file and its options): the same key with another file makes another job, and
 * no one can squat a key for a file they do not have.
 * A job belongs to the token that submitted it (`owner`, src/jobs/ownership.ts); `cancel` stops it (its chunks
 * stop: the run's signal aborts) and removes its results; the job then reads `cancelled`. `onJobEnded` hears of
 * every job that reaches completed, failed or cancelled in this process (the webhooks, src/webhooks/).
 * One job's run (pipeline, results, final status) is src/jobs/job-run.ts.
 */
import { createHash } from 'node:crypto';
import { keyTag } from '../log-tag.ts';
import type { RunnerChoice } from '../bulk/pipeline.ts';
import type { CsvDialect } from '../bulk/csv-dialect.ts';
import { resolvePolicy, type PolicyChoices } from '../domain/policy.ts';
import { RULE_SET_ID } from '../domain/rule-set.ts';
import { emptyResultStats } from '../bulk/result-stats.ts';
import type { ChunkRunner } from '../bulk/runner.ts';
import type { Config } from '../config.ts';
import { AppError, appError, entryEnvelope, errorEnvelope } from '../errors.ts';
import { newJobId } from './job-id.ts';
import { CANCELLED, runJob, type ErrorMapper, type PendingJob, type RunBulkFn, type RunEnd } from './job-run.ts';
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
  /**
   * Called when a job reaches completed, failed or cancelled in this process, with its record as stored then
   * (a DELETE of a finished job, which removes its results, is a transition to cancelled too). Its failures are
   * logged, never the job's.
   */
  onJobEnded?: (record: JobRecord) => void | Promise<void>;
}

/** What a submission carries besides its upload. */
export interface SubmitOptions {
  /** Where the job's end is announced (src/webhooks/): part of the submission's options for Idempotency-Key. */
  callbackUrl?: string | null;
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
  /** Data rows in the file (its prescan), null when unknown. */
  rows?: number | null;
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
  readonly #onJobEnded: AsyncJobsOptions['onJobEnded'];
  readonly #ttlMs: number;
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
    this.#onJobEnded = options.onJobEnded;
    this.#ttlMs = options.config.JOB_TTL_SECONDS * 1000;
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
   * Creates the job (or returns the existing one for a repeated Idempotency-Key, see the top of this file) and
   * schedules it. Throws idempotency_key_reused (422) for a token's key reused with another upload or other
   * options, job_store_full (503) when the store has no room for the results.
   */
  async submit(
    upload: SpooledUpload,
    format: ResultFormat,
    idempotencyKey?: string,
    owner = '',
    options: SubmitOptions = {},
  ): Promise<{ record: JobRecord; created: boolean }> {
    if (this.#closed) {
      await this.discard(upload);
      throw appError('SHUTTING_DOWN');
    }
    const callbackUrl = options.callbackUrl ?? null;
    // The upload's hash covers the file, the format and the reading options; the callback is an option too.
    const fingerprint =
      callbackUrl === null
        ? upload.sha256
        : createHash('sha256').update(`${upload.sha256}\n${callbackUrl}`).digest('hex');
    const now = new Date();
    const record: JobRecord = {
      id: newJobId(now.getTime()),
      status: 'queued',
      format,
      created_at: now.toISOString(),
      started_at: null,
      finished_at: null,
      expires_at: new Date(now.getTime() + this.#ttlMs).toISOString(),
      rule_set: RULE_SET_ID,
      students_done: 0,
      students_total: upload.students,
      rows_done: 0,
      rows_total: upload.rows ?? null,
      error_rows: 0,
      error: null,
      fingerprint,
      lease_until: now.getTime() + LEASE_MS,
      owner,
      policy: resolvePolicy(upload.policy, this.#config.SOR_POLICY),
      stats: emptyResultStats(),
      all_outputs: true,
      callback_url: callbackUrl,
    };
    // A token's key is the token's (reused with another upload: 422); an anonymous key is the upload's.
    const scopedKey =
      idempotencyKey === undefined ? undefined : `${idempotencyKey}\n${owner === '' ? fingerprint : owner}`;
    let outcome;
    try {
      outcome = await this.store.create(record, scopedKey, reservationFor(upload.bytes));
    } catch (err) {
      await this.discard(upload);
      throw err;
    }
    if (!outcome.created) {
      await this.discard(upload);
      if (outcome.record.fingerprint !== fingerprint) throw appError('IDEMPOTENCY_KEY_REUSED');
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
   * Marks a job failed or cancelled, retrying: a store that refused the result may refuse this write too for a
   * moment. Its partial results are deleted first (which also frees the room the write needs). Resolves with the
   * record as stored then, if the write went through.
   */
  async #markEnded(id: string, status: 'failed' | 'cancelled', error: JobError): Promise<JobRecord | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.store.clearResult(id);
        const finished = Date.now();
        await this.store.update(id, {
          status,
          finished_at: new Date(finished).toISOString(),
          expires_at: new Date(finished + this.#ttlMs).toISOString(),
          error,
        });
        return await this.store.get(id);
      } catch (err) {
        if (attempt >= MARK_FAILED_ATTEMPTS) {
          this.#logger.error(
            { jobId: id, err: (err as Error).message },
            `async job: could not mark the job ${status}; it reads as failed once its lease runs out`,
          );
          return undefined;
        }
        await new Promise((resolve) => setTimeout(resolve, MARK_FAILED_RETRY_MS * attempt));
      }
    }
  }

  /** Tells `onJobEnded` of a job that reached a final status here. */
  async #ended(id: string, known?: JobRecord): Promise<void> {
    if (this.#onJobEnded === undefined) return;
    try {
      const record = known ?? (await this.store.get(id));
      if (record !== undefined) await this.#onJobEnded(record);
    } catch (err) {
      this.#logger.warn({ job: keyTag(id), err: (err as Error).message }, 'async job: onJobEnded failed');
    }
  }

  #renewLeases(): void {
    const now = Date.now();
    const lease_until = now + LEASE_MS;
    const expires_at = new Date(now + this.#ttlMs).toISOString();
    for (const id of this.#owned) void this.#update(id, { lease_until, expires_at });
    for (const { path } of [...this.#waiting, ...this.#running.values()]) void touchSpoolFile(path);
  }

  #pump(): void {
    while (!this.#closed && this.#running.size < MAX_CONCURRENT_JOBS && this.#waiting.length > 0) {
      const next = this.#waiting.shift() as PendingJob;
      const abort = new AbortController();
      // A cancelled job is announced by cancel(), which wrote its status (here or on another process).
      const done = this.#run(next, abort.signal)
        .then((end) => (end === 'cancelled' ? undefined : this.#ended(next.record.id)))
        .finally(async () => {
          await removeSpoolFile(next.path).catch(() => undefined);
          this.#running.delete(next.record.id);
          this.#owned.delete(next.record.id);
          this.#pump();
        });
      this.#running.set(next.record.id, { abort, done, path: next.path });
    }
  }

  #run(pending: PendingJob, signal: AbortSignal): Promise<RunEnd> {
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
        ttlMs: this.#ttlMs,
        update: (patch) => this.#update(id, patch),
        markEnded: async (status, error) => {
          await this.#markEnded(id, status, error);
        },
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
      return (await this.store.get(id))?.status === 'cancelled';
    } catch {
      return false;
    }
  }

  /**
   * Cancels a job (DELETE /v1/jobs/{id}; the caller checked that it owns it): a waiting job never starts, a
   * running one is aborted here (its remaining chunks are not run), and one running on another API process stops
   * at its next progress write, when it reads the mark. The job reads cancelled, its results removed.
   */
  async cancel(id: string): Promise<void> {
    if ((await this.store.get(id))?.status === 'cancelled') return; // already: nothing to stop, nothing to announce
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
    // Also when the run here had just finished: the mark and the removal of the results are what DELETE promises.
    const record = await this.#markEnded(id, 'cancelled', entryEnvelope('JOB_CANCELLED'));
    this.#logger.info({ job: keyTag(id) }, 'async job cancelled');
    if (record !== undefined) await this.#ended(id, record);
  }

  /**
   * Graceful stop: takes no new jobs, fails the waiting ones, gives running ones up to `drainMs` to finish, then
   * aborts them (they end as failed, with a message telling the client to resubmit).
   */
  async close(drainMs = 0): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const p of this.#waiting.splice(0)) {
      const record = await this.#markEnded(p.record.id, 'failed', entryEnvelope('JOB_SHUTDOWN_BEFORE_START'));
      if (record !== undefined) await this.#ended(p.record.id, record);
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
