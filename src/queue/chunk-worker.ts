/**
 * The consumer side of the chunk queue: a BullMQ Worker that pulls chunk jobs and runs each on a local runner
 * (the process's own piscina pool), with `concurrency` equal to the pool's threads. Used by
 * workers/queue.worker.ts; kept here, separate from the process entry point, so tests can run it in-process.
 *
 *  - The job's data is the HMAC of the chunk's payload (chunk-signing.ts); the payload's UTF-8 bytes are read
 *    from their own Redis key (chunkPayloadKey, written and deleted by the API) as a Buffer, never as a string.
 *    A payload whose MAC does not match (changed in Redis), or that is gone (the API gave up on the chunk), is
 *    never computed: the job fails at once and alone, and the API recomputes the chunk locally. For a pool,
 *    verified bytes are copied onto a SharedArrayBuffer that the pool's thread reads without a copy; a runner on
 *    this thread reads them as they came from Redis (both student by student, src/bulk/payload-reader.ts).
 *  - The output bytes go to a short-lived Redis key (RESULT_TTL_SECONDS; the API deletes them as it reads them)
 *    and the job returns only the counts and the output's MAC (events stay small however large the output).
 *  - Transient failures (a pool thread died, Redis blipped while storing the result) are retried with
 *    exponential backoff (settings.ts); a job whose data is not a signed payload fails at once
 *    (UnrecoverableError) and alone: other jobs keep flowing.
 *  - Stalled-job recovery: see WorkerTuning in settings.ts.
 *  - close() stops taking jobs, lets in-flight jobs finish and store their output (graceful drain).
 */
import { hostname } from 'node:os';
import { UnrecoverableError, Worker } from 'bullmq';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ChunkRunner } from '../bulk/runner.ts';
import type { Config } from '../config.ts';
import { metrics } from '../metrics.ts';
import { ChunkSigner, isChunkJobData } from './chunk-signing.ts';
import type { ChunkCounts, ChunkJobData } from './chunk-signing.ts';
import { redisFromConfig, type RedisConnections } from '../redis.ts';
import { RawSetWriter } from './raw-set.ts';
import type { ChunkJobReturn } from './chunk-completions.ts';
import { payloadText } from '../bulk/chunk-payload.ts';
import { DEFAULT_WORKER_TUNING, QUEUE_NAME, RESULT_TTL_SECONDS, chunkPayloadKey, chunkResultKey } from './settings.ts';
import type { WorkerTuning } from './settings.ts';

export interface ChunkWorkerOptions {
  config: Config;
  logger: Logger;
  /** Runs one chunk locally (the worker process's piscina pool). Not closed by the worker. */
  runner: ChunkRunner;
  /** Jobs run at once; the pool's thread count. */
  concurrency: number;
  tuning?: WorkerTuning;
  /** Worker name recorded on each job it processes (default host:pid). */
  name?: string;
  /** Milliseconds between progress log lines while jobs flow (default 10 s). */
  progressEveryMs?: number;
  /**
   * The process's Redis (src/redis.ts): the worker takes one blocking connection from it, for BullMQ and for
   * reading payloads and storing outputs. Unset: made from the config for this worker alone, closed with it.
   */
  redis?: RedisConnections;
}

export interface ChunkWorkerStats {
  chunks: number;
  students: number;
  rows: number;
  failed: number;
}

export interface ChunkWorker {
  readonly worker: Worker<ChunkJobData, ChunkJobReturn>;
  readonly stats: ChunkWorkerStats;
  /** Resolves once the worker has connected and is waiting for jobs. */
  ready(): Promise<void>;
  /** Graceful: stops fetching, waits for in-flight jobs, closes connections. `force` abandons in-flight jobs. */
  close(force?: boolean): Promise<void>;
}

/** The chunk index, read back from the job id `<request>.c<index>` (only used for log lines and task.index). */
function indexOf(jobId: string | undefined): number {
  const m = /\.c(\d+)$/.exec(jobId ?? '');
  return m ? Number.parseInt(m[1] ?? '0', 10) : 0;
}

/**
 * Errors that come from the payload itself (bad JSON, wrong shape: both SyntaxError, see chunk-payload.ts), not
 * from the machinery. Told by the error's name, which survives the worker thread's structured clone.
 */
export function isMalformed(err: unknown): boolean {
  return err instanceof Error && err.name === 'SyntaxError';
}

/** Payload buffers kept for reuse at most (one per job in flight is enough), and the largest one kept. */
const MAX_SPARE_PAYLOADS = 8;
const MAX_SPARE_PAYLOAD_BYTES = 8 * 1024 * 1024;

/**
 * SharedArrayBuffers for the payloads handed to the pool: a pool thread reads one without a copy (a Buffer from
 * Redis would be cloned into the thread), and it is lent again once its chunk has run.
 */
class SharedPayloads {
  readonly #spare: SharedArrayBuffer[] = [];

  /** A copy of `bytes` on a SharedArrayBuffer (a spare one when one is large enough). */
  copy(bytes: Buffer): Uint8Array {
    let shared: SharedArrayBuffer | undefined;
    for (let i = this.#spare.length - 1; i >= 0; i--) {
      if (this.#spare[i]!.byteLength >= bytes.length) {
        shared = this.#spare.splice(i, 1)[0];
        break;
      }
    }
    shared ??= new SharedArrayBuffer(Math.max(bytes.length, 256 * 1024));
    const view = new Uint8Array(shared, 0, bytes.length);
    view.set(bytes);
    return view;
  }

  /** Takes a payload back once its chunk has run (nothing reads it any more). */
  release(view: Uint8Array): void {
    const shared = view.buffer;
    if (!(shared instanceof SharedArrayBuffer) || shared.byteLength > MAX_SPARE_PAYLOAD_BYTES) return;
    if (this.#spare.length < MAX_SPARE_PAYLOADS) this.#spare.push(shared);
  }
}

export function startChunkWorker(options: ChunkWorkerOptions): ChunkWorker {
  const { config, runner } = options;
  const ownRedis = options.redis === undefined;
  const redis = options.redis ?? redisFromConfig(config);
  if (!redis) throw new Error('the queue worker needs REDIS_URL');
  const logger = options.logger.child({ component: 'queue-worker' });
  const tuning = options.tuning ?? DEFAULT_WORKER_TUNING;
  const prefix = redis.prefix;
  if (!config.QUEUE_SIGNING_KEY) throw new Error('the queue worker needs QUEUE_SIGNING_KEY');
  const signer = new ChunkSigner(config.QUEUE_SIGNING_KEY);
  const stats: ChunkWorkerStats = { chunks: 0, students: 0, rows: 0, failed: 0 };

  const connection: Redis = redis.blocking('sor-worker');
  connection.on('error', (err: Error) => logger.debug({ err: err.message }, 'worker: Redis connection error'));

  const payloads = new SharedPayloads();
  const results = new RawSetWriter();

  const processor = async (job: Job<ChunkJobData, ChunkJobReturn>): Promise<ChunkJobReturn> => {
    const data: unknown = job.data;
    const jobId = String(job.id);
    if (!isChunkJobData(data)) {
      throw new UnrecoverableError('malformed chunk job: its data is not a signed chunk payload');
    }
    // A failed read (Redis blipped) throws: transient, retried with backoff like any machinery failure.
    const stored = await connection.getBuffer(chunkPayloadKey(prefix, jobId));
    if (stored === null) {
      throw new UnrecoverableError(
        'chunk payload missing from Redis (its API gave up on the chunk, or the payload expired): not computed',
      );
    }
    if (!signer.verifyPayload(jobId, data.mac, stored)) {
      metrics.chunkIntegrityFailures.inc({ stage: 'payload' });
      throw new UnrecoverableError(
        'chunk payload failed its integrity check (changed in Redis, or signed with another QUEUE_SIGNING_KEY): ' +
          'not computed',
      );
    }
    const started = performance.now();
    // A pool's thread reads the payload on a SharedArrayBuffer (no copy into the thread); a runner on this thread
    // reads the bytes as they came from Redis.
    const shared = runner.kind === 'pool';
    const payloadBytes = shared ? payloads.copy(stored) : stored;
    let text: string | undefined;
    let out;
    try {
      out = await runner.run({
        index: indexOf(job.id),
        payloadBytes,
        // Decoded only for a runner that reads the string: the pool's threads and the inline runner read the bytes
        // in place (src/bulk/payload-reader.ts).
        get payload(): string {
          text ??= payloadText(payloadBytes);
          return text;
        },
      });
    } catch (err) {
      // A payload that cannot be decoded fails the same way every time: no retries, fail this job alone.
      if (isMalformed(err)) throw new UnrecoverableError(`malformed chunk payload: ${(err as Error).message}`);
      throw err;
    } finally {
      if (shared) payloads.release(payloadBytes);
    }
    // The output must be in Redis before the job completes: the completed event tells the API to read it.
    // A pool created with output 'bytes' hands over UTF-8 bytes: stored as they are, never re-encoded here.
    const body = out.bytes
      ? Buffer.from(out.bytes.buffer, out.bytes.byteOffset, out.bytes.byteLength)
      : Buffer.from(out.text, 'utf8');
    const counts: ChunkCounts = { rows: out.rows, errorRows: out.errorRows, students: out.students };
    if (out.checks !== undefined) counts.checks = out.checks;
    if (out.stats !== undefined) counts.stats = out.stats;
    if (out.parts !== undefined) counts.parts = out.parts;
    const mac = signer.signOutput(jobId, data.mac, counts, body);
    try {
      await results.set(connection, chunkResultKey(prefix, jobId), body, RESULT_TTL_SECONDS);
    } finally {
      // The command has been written (and answered, or failed): the pool may reuse the buffer for the next chunk.
      out.release?.();
    }
    metrics.chunkDuration.observe({ runner: 'queue-worker', outcome: 'ok' }, (performance.now() - started) / 1000);
    stats.chunks++;
    stats.students += out.students;
    stats.rows += out.rows;
    return { ...counts, mac };
  };

  const worker = new Worker<ChunkJobData, ChunkJobReturn>(QUEUE_NAME, processor, {
    connection,
    prefix,
    // Shown in bull-board as "processed by" and used by tests to find the job a given worker holds.
    name: options.name ?? `${hostname()}:${process.pid}`,
    concurrency: Math.max(1, options.concurrency),
    lockDuration: tuning.lockDurationMs,
    stalledInterval: tuning.stalledIntervalMs,
    maxStalledCount: tuning.maxStalledCount,
    autorun: true,
  });
  worker.on('error', (err: Error) => logger.warn({ err: err.message }, 'worker: BullMQ error'));
  worker.on('failed', (job: Job<ChunkJobData, ChunkJobReturn> | undefined, err: Error) => {
    stats.failed++;
    const attempts = job?.opts.attempts ?? 1;
    const final = !job || job.attemptsMade >= attempts || err instanceof UnrecoverableError;
    logger.warn(
      { jobId: job?.id, attemptsMade: job?.attemptsMade, attempts, err: err.message },
      final ? 'worker: chunk job failed for good' : 'worker: chunk job failed; it will be retried with backoff',
    );
  });
  worker.on('stalled', (jobId: string) => logger.warn({ jobId }, 'worker: recovered a stalled chunk job'));

  // Progress: one line per interval while work flows, so an operator sees the worker is alive and how fast.
  const every = options.progressEveryMs ?? 10_000;
  let last = { chunks: 0, students: 0, at: performance.now() };
  const progressTimer = setInterval(() => {
    if (stats.chunks === last.chunks) return;
    const now = performance.now();
    const seconds = (now - last.at) / 1000;
    logger.info(
      {
        chunks: stats.chunks - last.chunks,
        students: stats.students - last.students,
        studentsPerSecond: Math.round((stats.students - last.students) / seconds),
        totalChunks: stats.chunks,
        failedAttempts: stats.failed,
      },
      'worker: progress',
    );
    last = { chunks: stats.chunks, students: stats.students, at: now };
  }, every);
  progressTimer.unref();

  logger.info(
    { redis: redis.where, prefix, queue: QUEUE_NAME, concurrency: options.concurrency, ...tuning },
    'worker: started',
  );

  let closing: Promise<void> | undefined;
  return {
    worker,
    stats,
    ready: () => worker.waitUntilReady().then(() => undefined),
    close(force = false): Promise<void> {
      closing ??= (async () => {
        clearInterval(progressTimer);
        await worker.close(force).catch((err: Error) => logger.warn({ err: err.message }, 'worker: close failed'));
        await connection.quit().catch(() => connection.disconnect());
        if (ownRedis) await redis.close();
        logger.info({ ...stats }, 'worker: stopped');
      })();
      return closing;
    },
  };
}
