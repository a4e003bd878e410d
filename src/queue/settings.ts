/**
 * Names, limits and timings of the BullMQ chunk queue, shared by the API's queue runner (producer) and the
 * worker process (consumer). Both sides must agree on these, so they live in one place.
 */
import { type Config, loadConfig } from '../config.ts';

/** The one BullMQ queue of the service; keys are `${REDIS_PREFIX}:calc:*`. */
export const QUEUE_NAME = 'calc';

/** Name of every chunk job (bull-board shows it). */
export const CHUNK_JOB_NAME = 'chunk';

/**
 * Largest chunk payload the producer puts in Redis. A larger chunk is never enqueued: it runs on the local pool
 * (BULK_QUEUE_FALLBACK=local) or fails (=fail). 16 MiB is far above a default chunk (1000 students ≈ 150 KiB).
 */
export const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

/** Attempts per chunk job: the first run plus two retries of transient failures (a worker thread crashed). */
export const CHUNK_ATTEMPTS = 3;
/** Exponential backoff between attempts: 500 ms, then 1 s. */
export const CHUNK_BACKOFF_MS = 500;

/** Failed chunk jobs stay visible in bull-board for an hour (at most 1000 of them), then Redis drops them. */
export const KEEP_FAILED = { age: 3600, count: 1000 } as const;
/** A completed chunk job is deleted at once (its output waits in its own key; its counts went out in its event). */
export const KEEP_COMPLETED = true;
/**
 * The queue's events stream (`<prefix>:calc:events`, read by each API's QueueEvents) is trimmed to about this many
 * entries. A chunk adds about five (added, waiting, active, completed, removed), its `completed` entry carrying the
 * counts and result stats (~1 KB): about 2,000 chunks of history, a few MB, far more than an API's reader lags.
 */
export const EVENTS_MAX_LEN = 10_000;

/**
 * How long a finished chunk's output (student data) waits in Redis for the API to collect it. The API reads and
 * deletes it (GETDEL) as soon as the `completed` event arrives, within milliseconds; this only bounds what an API
 * that gave up (timeout) or died leaves behind. An output that expired before the API read it is recomputed on
 * the local pool (fallback reason `result_missing`), never lost.
 */
export const RESULT_TTL_SECONDS = 15;
/**
 * Stalled-job recovery. A worker holds a lock on each job it runs, renewed every lockDuration/2; a worker killed
 * with SIGKILL stops renewing, its lock expires after at most `lockDurationMs`, and the next stalled check of any
 * live worker (every `stalledIntervalMs`) moves the job back to waiting, where a free worker takes it at once.
 * Worst case from the kill to another worker starting the chunk: lockDurationMs + stalledIntervalMs (2 s + 1 s by
 * default), what a kill costs a file beyond its lost worker's share (bench:queue --only-kill). The lock is safe
 * this short: the event loop that renews it is blocked at most for one chunk (30-45 ms of CPU per 1,000 students
 * for a worker computing on its own thread, bench:queue 2026-11-28; nothing with a pool), some fifty times less
 * than the lock; a job whose lock lapses all the same (a process frozen for seconds) is retaken and computed
 * twice, its first completion taken.
 * The stalled check, a Redis script over the active jobs, runs once a second per worker.
 * A job that stalls more than `maxStalledCount` times (its workers keep dying) fails instead of looping.
 */
export interface WorkerTuning {
  lockDurationMs: number;
  stalledIntervalMs: number;
  maxStalledCount: number;
  /**
   * Jobs taken beyond the pool's threads (concurrency = threads + prefetch). With 0 a thread idles while its
   * finished job's output is signed and stored and the next job fetched, parsed and verified; 1 keeps one chunk
   * waiting in the pool's queue to hide that, at the cost of one more locked job per worker (a SIGKILLed worker
   * leaves two stalled jobs; SIGTERM drains two chunks). Measured 2026-11-24 on the shared 2-core machine (two
   * 1-thread workers, 30,000 students, runs alternating): with 0 the thread idled 11-19 ms (median) between
   * chunks of ~50-60 ms of CPU; with 1 it never waited for a chunk. Yet bench:queue (two 1-thread workers,
   * prefetch 0 and 1 interleaved, a 50k-student file, 5 rounds, twice) showed no throughput gain from 1 (median
   * ratio to embedded 0.85 and 0.77 against 0.90 and 1.00 with 0; load 7-10 on 2 cores): hence still 0. Again
   * on the quiet machine (`npm run bench:queue -- --students 100000 --workers 2 --prefetch 0,1`): 0.80 with 0,
   * 0.79 with 1. With payloads in their own keys and outputs SET from reused frames (cheaper per-chunk work on
   * the worker's main thread), the same command gave 0.85 / 0.87 (3 rounds) and 0.82 / 0.84 (5 rounds): 1 is
   * ahead by about the rounds' spread, not clearly enough to hold two locked jobs per worker by default.
   */
  prefetch: number;
}

/** The defaults of src/config.ts (QUEUE_LOCK_DURATION_MS, QUEUE_STALLED_INTERVAL_MS, ...): 2 s, 1 s, 2, 0. */
export const DEFAULT_WORKER_TUNING: WorkerTuning = workerTuning(loadConfig({}));

/** The worker's tuning from the service configuration (validated once, with the rest, by loadConfig). */
export function workerTuning(config: Config): WorkerTuning {
  return {
    lockDurationMs: config.QUEUE_LOCK_DURATION_MS,
    stalledIntervalMs: config.QUEUE_STALLED_INTERVAL_MS,
    maxStalledCount: config.QUEUE_MAX_STALLED_COUNT,
    prefetch: config.QUEUE_WORKER_PREFETCH,
  };
}

/** A chunk job's id, `<runId>.c<index>` (BullMQ refuses custom ids that contain ":" or are integers). */
export function chunkJobId(runId: string, index: number): string {
  return `${runId}.c${index}`;
}

/** Redis key holding a finished chunk's output text until the API collects it. */
export function chunkResultKey(prefix: string, jobId: string): string {
  return `${prefix}:${QUEUE_NAME}:result:${jobId}`;
}

/**
 * Redis key holding a queued chunk's payload bytes (their MAC is the job's data). The API writes it before adding
 * the job and deletes it once the chunk's outcome is in (completed, failed, timed out or given up); a worker only
 * reads it, so a retried or stalled job finds it again.
 */
export function chunkPayloadKey(prefix: string, jobId: string): string {
  return `${prefix}:${QUEUE_NAME}:payload:${jobId}`;
}

/**
 * How long a chunk's payload may stay in Redis: as long as the API waits for the chunk (QUEUE_CHUNK_TIMEOUT_MS)
 * plus a minute. The API deletes it as soon as the chunk's outcome is in; this TTL only bounds what an API that
 * died mid-chunk leaves behind (a worker that picks such a job up later finds no payload and fails the job).
 */
export function payloadTtlSeconds(config: Pick<Config, 'QUEUE_CHUNK_TIMEOUT_MS'>): number {
  return Math.ceil(config.QUEUE_CHUNK_TIMEOUT_MS / 1000) + 60;
}
