/**
 * How a job ends as failed or cancelled, and who hears of it: the mark is retried (a store that refused a result
 * may refuse this write too for a moment), the job's partial results are deleted first (which also frees the room
 * the write needs), and `onJobEnded` (the webhooks) hears of every job that reached a final status in this
 * process, with its record as stored then. Used by AsyncJobs (src/jobs/async-jobs.ts) and its recovery.
 */
import type { Logger } from 'pino';
import { keyTag } from '../log-tag.ts';
import type { JobError, JobRecord, JobStore } from './job-store.ts';
import { isFenced } from './fencing.ts';

/** Marking a job is retried this many times, this far apart (ms), before it is left to its lease. */
const MARK_ATTEMPTS = 5;
const MARK_RETRY_MS = 500;

export class JobEnding {
  readonly #store: JobStore;
  readonly #ttlMs: number;
  readonly #logger: Logger;
  readonly #onJobEnded: ((record: JobRecord) => void | Promise<void>) | undefined;

  constructor(
    store: JobStore,
    ttlMs: number,
    logger: Logger,
    onJobEnded: ((record: JobRecord) => void | Promise<void>) | undefined,
  ) {
    this.#store = store;
    this.#ttlMs = ttlMs;
    this.#logger = logger;
    this.#onJobEnded = onJobEnded;
  }

  /**
   * Marks the job failed or cancelled, its results deleted; resolves with the record as stored, if written. With
   * `run` (the attempt of the run that ended: src/jobs/fencing.ts), 'fenced' when the job is another run's now:
   * nothing written.
   */
  async mark(
    id: string,
    status: 'failed' | 'cancelled',
    error: JobError,
    run?: number,
  ): Promise<JobRecord | undefined | 'fenced'> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#store.clearResult(id, run);
        const finished = Date.now();
        const patch = {
          status,
          finished_at: new Date(finished).toISOString(),
          expires_at: new Date(finished + this.#ttlMs).toISOString(),
          error,
        };
        await this.#store.update(id, patch, run);
        return await this.#store.get(id);
      } catch (err) {
        if (isFenced(err)) return 'fenced';
        if (attempt >= MARK_ATTEMPTS) {
          this.#logger.error(
            { job: keyTag(id), err: (err as Error).message },
            `async job: could not mark the job ${status}; it reads as failed once its lease runs out`,
          );
          return undefined;
        }
        await new Promise((resolve) => setTimeout(resolve, MARK_RETRY_MS * attempt));
      }
    }
  }

  /** Tells `onJobEnded` of a job that reached a final status here (its record read now unless given). */
  async announce(id: string, known?: JobRecord): Promise<void> {
    if (this.#onJobEnded === undefined) return;
    try {
      const record = known ?? (await this.#store.get(id));
      if (record !== undefined) await this.#onJobEnded(record);
    } catch (err) {
      this.#logger.warn({ job: keyTag(id), err: (err as Error).message }, 'async job: onJobEnded failed');
    }
  }

  /** Marks, then announces the status the job has once marked (a job cancelled meanwhile stays cancelled). */
  async end(id: string, status: 'failed' | 'cancelled', error: JobError): Promise<void> {
    const record = await this.mark(id, status, error);
    if (record !== undefined && record !== 'fenced') await this.announce(id, record);
  }
}
