/**
 * Async bulk jobs: an ETL client submits a file (POST /v1/jobs), walks away, polls the status (or waits for the
 * callback) and fetches the results later. The upload is spooled and checked (memory stays flat), moved to the
 * job's files (src/jobs/job-files.ts), answered 202 at once, then run through the SAME bulk pipeline as
 * POST /v1/calculate/bulk in the background, on the large runner (the queue when REDIS_URL is set, else the local
 * pool), writing every result into the job store segment by segment (src/jobs/job-run.ts).
 *
 * Lifecycle: queued (waiting for a slot) → running → completed | failed | cancelled.
 * At most MAX_CONCURRENT_JOBS jobs run at once per API process; others wait in FIFO order.
 *
 * Durable: the process that runs a job (its instance, src/jobs/instance.ts) renews the job's lease every
 * LEASE_RENEW_MS. The job's upload stays on disk until the job ends. When the process stops (SIGKILL, a crash, or
 * SIGTERM, which hands its jobs back once the drain time is over), the job is resumed by a process that has its
 * upload: the restarted API, or another API process sharing JOBS_DIR (src/jobs/job-recovery.ts, every
 * RECOVER_EVERY_MS and at start-up). The job runs again from its upload, afresh, and gives the same bytes; a
 * process only stalled past its lease finds its run fenced when it wakes and stops (src/jobs/fencing.ts). A job
 * no process resumes within RESUME_GRACE_MS of its lease's end reads as failed (src/jobs/job-store.ts).
 *
 * The upload is read once before the job is created (sha256, size and student count in one pass, see
 * src/jobs/upload-digest.ts), then once per run by the pipeline. The results are gzip-compressed on their way to
 * the store, which reserves room for them up front (refused with job_store_full, 503, when they cannot fit) and
 * grows the reservation as they are written (the job fails with job_store_full when it cannot). A failed or
 * cancelled job's results are deleted at once, and the job is always marked (retried: deleting the results frees
 * the store first).
 * Idempotency-Key: with access control (AUTH_MODE=required) a key belongs to the token that sent it: the same key
 * with the same upload and options returns the job, with another upload or other options it is refused (422
 * idempotency_key_reused). Without access control every caller is anonymous, so a key is scoped to the upload
 * (the key plus the sha256 of the file and its options): the same key with another file makes another job, and
 * no one can squat a key for a file they do not have.
 * A job belongs to the token that submitted it (`owner`, src/jobs/ownership.ts); `cancel` stops it (its chunks
 * stop: the run's signal aborts) and removes its results; the job then reads `cancelled`. `onJobEnded` hears of
 * every job that reaches completed, failed or cancelled in this process (the webhooks, src/webhooks/).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { keyTag } from '../log-tag.ts';
import type { RunnerChoice } from '../bulk/pipeline.ts';
import { resolvePolicy } from '../domain/policy.ts';
import { RULE_SET_ID } from '../domain/rule-set.ts';
import { emptyResultStats } from '../bulk/result-stats.ts';
import type { ChunkRunner } from '../bulk/runner.ts';
import type { Config } from '../config.ts';
import { AppError, appError, entryEnvelope, errorEnvelope } from '../errors.ts';
import { metrics } from '../metrics.ts';
import { newJobId } from './job-id.ts';
import { CANCELLED, LOST, RELEASED, runJob, type ErrorMapper, type PendingJob, type RunBulkFn } from './job-run.ts';
import { reservationFor, type StoreHeadroom } from './result-quota.ts';
import { diskFullAsAppError, removeSpoolFile } from './spool.ts';
import { JobFiles, type UploadFacts } from './job-files.ts';
import { INSTANCE } from './instance.ts';
import { FIRST_ATTEMPT, attemptOf, isFenced } from './fencing.ts';
import { recoverJobs } from './job-recovery.ts';
import { JobEnding } from './job-ending.ts';
import type { JobPatch, JobRecord, JobStore, ResultFormat } from './job-store.ts';
import type { SpooledUpload } from './spooled-upload.ts';

export type { ErrorMapper, RunBulkFn } from './job-run.ts';
export type { SpooledUpload } from './spooled-upload.ts';

/** Jobs one API process runs at once; the others wait, status "queued". */
export const MAX_CONCURRENT_JOBS = 2;
export { RESULT_SEGMENT_BYTES } from './result-sink.ts';
/** The running process renews its lease this often; a lease lasts LEASE_MS. */
const LEASE_RENEW_MS = 10_000;
export const LEASE_MS = 60_000;
/** Orphaned jobs are looked for this often (and at start-up). */
export const RECOVER_EVERY_MS = 5_000;

export interface AsyncJobsOptions {
  config: Config;
  logger: Logger;
  store: JobStore;
  /** JOBS_DIR: the uploads of unfinished jobs are kept in its `uploads` folder (src/jobs/job-files.ts). */
  jobsDir: string;
  /** The runners for every job: inline for small files, the queue or the pool for large (each run carries its own run id). */
  runners: ChunkRunner | RunnerChoice;
  runBulk: RunBulkFn;
  /**
   * Called when a job reaches completed, failed or cancelled in this process, with its record as stored then
   * (a DELETE of a finished job, which removes its results, is a transition to cancelled too). Its failures are
   * logged, never the job's.
   */
  onJobEnded?: (record: JobRecord) => void | Promise<void>;
  /** How often orphaned jobs are looked for (default RECOVER_EVERY_MS). */
  recoverEveryMs?: number;
  /** This process's instance (default INSTANCE), lease (LEASE_MS) and renewal period (LEASE_RENEW_MS): for tests. */
  instance?: string;
  leaseMs?: number;
  renewEveryMs?: number;
}

/** What a submission carries besides its upload. */
export interface SubmitOptions {
  /** Where the job's end is announced (src/webhooks/): part of the submission's options for Idempotency-Key. */
  callbackUrl?: string | null;
}

const defaultErrorMapper: ErrorMapper = (err) => {
  const mapped = diskFullAsAppError(err); // a full disk says so (insufficient_storage); the rest is internal
  return errorEnvelope(mapped instanceof AppError ? mapped : AppError.internal(mapped));
};

export class AsyncJobs {
  readonly store: JobStore;
  readonly files: JobFiles;
  readonly #config: Config;
  readonly #logger: Logger;
  readonly #runners: ChunkRunner | RunnerChoice;
  readonly #runBulk: RunBulkFn;
  readonly #mapError: ErrorMapper;
  readonly #ending: JobEnding;
  readonly #ttlMs: number;
  readonly #instance: string;
  readonly #leaseMs: number;
  readonly #waiting: PendingJob[] = [];
  readonly #running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  readonly #leaseTimer: NodeJS.Timeout;
  readonly #recoverTimer: NodeJS.Timeout;
  #recovering: Promise<void> | undefined;
  #closed = false;

  constructor(options: AsyncJobsOptions, mapError: ErrorMapper = defaultErrorMapper) {
    this.store = options.store;
    this.files = new JobFiles(join(options.jobsDir, 'uploads'));
    this.#config = options.config;
    this.#logger = options.logger.child({ component: 'async-jobs' });
    this.#runners = options.runners;
    this.#runBulk = options.runBulk;
    this.#mapError = mapError;
    this.#ttlMs = options.config.JOB_TTL_SECONDS * 1000;
    this.#instance = options.instance ?? INSTANCE;
    this.#leaseMs = options.leaseMs ?? LEASE_MS;
    this.#ending = new JobEnding(this.store, this.#ttlMs, this.#logger, options.onJobEnded);
    this.#leaseTimer = setInterval(() => void this.#renewLeases(), options.renewEveryMs ?? LEASE_RENEW_MS);
    this.#leaseTimer.unref();
    this.#recoverTimer = setInterval(() => void this.recover(), options.recoverEveryMs ?? RECOVER_EVERY_MS);
    this.#recoverTimer.unref();
    void this.recover();
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
      lease_until: now.getTime() + this.#leaseMs,
      owner,
      instance: this.#instance,
      attempt: FIRST_ATTEMPT,
      policy: resolvePolicy(upload.policy, this.#config.SOR_POLICY),
      stats: emptyResultStats(),
      all_outputs: true,
      callback_url: callbackUrl,
    };
    const facts: UploadFacts = { nonContiguous: upload.nonContiguous, dialect: upload.dialect };
    let path: string;
    try {
      path = await this.files.adopt(upload.path, record.id, facts);
    } catch (err) {
      await this.discard(upload);
      throw diskFullAsAppError(err);
    }
    await removeSpoolFile(upload.path); // moved: the spool no longer holds it
    // A token's key is the token's (reused with another upload: 422); an anonymous key is the upload's.
    const scope = owner === '' ? fingerprint : owner;
    const scopedKey = idempotencyKey === undefined ? undefined : `${idempotencyKey}\n${scope}`;
    let outcome;
    try {
      outcome = await this.store.create(record, scopedKey, reservationFor(upload.bytes));
    } catch (err) {
      await this.files.remove(record.id);
      throw err;
    }
    if (!outcome.created) {
      await this.files.remove(record.id);
      if (outcome.record.fingerprint !== fingerprint) throw appError('IDEMPOTENCY_KEY_REUSED');
      return outcome;
    }
    metrics.jobTransitions.inc({ status: 'queued' });
    this.#enqueue(record, path, facts);
    this.#logger.info({ job: keyTag(record.id), format, bytes: upload.bytes }, 'async job queued');
    return outcome;
  }

  #enqueue(record: JobRecord, path: string, facts: UploadFacts): void {
    this.#waiting.push({ record, path, ...facts, policy: record.policy! });
    this.#pump();
  }

  /** True when this process waits to run the job or runs it. */
  #holds(id: string): boolean {
    return this.#running.has(id) || this.#waiting.some((p) => p.record.id === id);
  }

  /** Looks for orphaned jobs now (and at start-up, and every RECOVER_EVERY_MS): see src/jobs/job-recovery.ts. */
  recover(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#recovering ??= recoverJobs({
      store: this.store,
      files: this.files,
      logger: this.#logger,
      instance: this.#instance,
      leaseMs: this.#leaseMs,
      holds: (id) => this.#holds(id),
      resume: (record, path, facts) => {
        if (this.#closed) return false;
        this.#enqueue(record, path, facts);
        return true;
      },
      fail: (id, error) => this.#ending.end(id, 'failed', error),
    })
      .catch((err: unknown) => this.#logger.warn({ err: (err as Error).message }, 'async jobs: recovery failed'))
      .finally(() => {
        this.#recovering = undefined;
      });
    return this.#recovering;
  }

  /** Writes a run's patch (fenced by its attempt); false when fenced: the run is aborted, it lost the job. */
  async #update(id: string, patch: JobPatch, attempt: number): Promise<boolean> {
    try {
      await this.store.update(id, patch, attempt);
    } catch (err) {
      const fenced = isFenced(err);
      if (fenced) this.#running.get(id)?.abort.abort(LOST);
      else this.#logger.warn({ job: keyTag(id), err: (err as Error).message }, 'async job: job store update failed');
      return !fenced;
    }
    return true;
  }

  /** Renews the leases of the jobs here; a job another process took over (or that ended elsewhere) is let go. */
  async #renewLeases(): Promise<void> {
    const now = Date.now();
    const expiresAt = new Date(now + this.#ttlMs).toISOString();
    const ids = [...this.#waiting.map((p) => p.record.id), ...this.#running.keys()];
    for (const id of ids) {
      let mine: boolean;
      try {
        mine = await this.store.renew(id, this.#instance, now + this.#leaseMs, expiresAt);
      } catch (err) {
        this.#logger.warn({ job: keyTag(id), err: (err as Error).message }, 'async job: could not renew the lease');
        continue;
      }
      if (mine) continue;
      const waiting = this.#waiting.findIndex((p) => p.record.id === id);
      if (waiting >= 0) this.#waiting.splice(waiting, 1);
      this.#running.get(id)?.abort.abort(LOST);
    }
  }

  #pump(): void {
    while (!this.#closed && this.#running.size < MAX_CONCURRENT_JOBS && this.#waiting.length > 0) {
      const next = this.#waiting.shift() as PendingJob;
      const id = next.record.id;
      const abort = new AbortController();
      const done = this.#run(next, abort.signal)
        .then(async (end) => {
          // Ended: its upload is no longer needed. Released or taken over: it runs again, from its upload.
          if (end === 'released' || end === 'lost') return;
          await this.files.remove(id).catch(() => undefined);
          // A cancelled job is announced by cancel(), which wrote its status (here or on another process).
          if (end !== 'cancelled') await this.#ending.announce(id);
        })
        .finally(() => {
          this.#running.delete(id);
          this.#pump();
        });
      this.#running.set(id, { abort, done });
    }
  }

  #run(pending: PendingJob, signal: AbortSignal) {
    const id = pending.record.id;
    const attempt = attemptOf(pending.record);
    return runJob(
      {
        store: this.store,
        config: this.#config,
        logger: this.#logger,
        runners: this.#runners,
        runBulk: this.#runBulk,
        mapError: this.#mapError,
        leaseMs: this.#leaseMs,
        ttlMs: this.#ttlMs,
        update: (patch) => this.#update(id, patch, attempt),
        markEnded: async (status, error) => (await this.#ending.mark(id, status, error, attempt)) !== 'fenced',
        release: () => this.store.release(id, this.#instance),
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
    if (waiting >= 0) this.#waiting.splice(waiting, 1);
    const running = this.#running.get(id);
    if (running) {
      running.abort.abort(CANCELLED);
      await running.done;
    }
    // Also when the run here had just finished: the mark and the removal of the results are what DELETE promises.
    await this.#ending.end(id, 'cancelled', entryEnvelope('JOB_CANCELLED'));
    // Its upload serves no one now (a run on another process that still reads it keeps its open file).
    await this.files.remove(id).catch(() => undefined);
    this.#logger.info({ job: keyTag(id) }, 'async job cancelled');
  }

  /**
   * Graceful stop: takes no new jobs, gives running ones up to `drainMs` to finish, then stops them. Every job not
   * finished is handed back (queued, no instance): the next process that has its upload runs it again at once.
   */
  async close(drainMs = 0): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#recoverTimer);
    await this.#recovering;
    for (const p of this.#waiting.splice(0)) {
      await this.store.release(p.record.id, this.#instance).catch((err: unknown) => {
        this.#logger.warn({ job: keyTag(p.record.id), err: (err as Error).message }, 'async job: not released');
      });
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
    for (const r of this.#running.values()) r.abort.abort(RELEASED);
    await Promise.allSettled(running.map((r) => r.done));
    clearInterval(this.#leaseTimer);
  }
}
