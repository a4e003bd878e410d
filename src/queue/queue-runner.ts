/**
 * The queue runner: the third implementation of ChunkRunner. Each chunk becomes one BullMQ job on queue `calc`
 * (keys `${BULLMQ_PREFIX}:calc:*`) whose data is the chunk's compact payload string and its HMAC
 * (chunk-signing.ts); a worker process (workers/queue.worker.ts) verifies and runs it and leaves the output bytes
 * in a short-lived Redis key, with their HMAC in the job's return value; this process learns
 * of the completion through ONE shared QueueEvents stream reader and hands the output back to the pipeline,
 * whose reorder buffer writes chunks in index order. The pipeline bounds how many chunks are in flight.
 *
 * Correctness first: when Redis is unreachable, a chunk cannot be queued, is too large for the queue, fails on
 * the workers, times out (QUEUE_CHUNK_TIMEOUT_MS) or loses its connection while waiting, the chunk runs on the
 * local pool instead (BULK_QUEUE_FALLBACK=local, the default) or rejects (=fail), which the pipeline turns into
 * error rows for that chunk's students. Either way the output never silently loses a row.
 *
 * Integrity: an output is used only when its HMAC matches (the job id, the digest of the payload this process
 * sent, the counts and the bytes); otherwise the chunk is recomputed locally (fallback reason `integrity`), so
 * a payload or output changed in Redis never reaches a client. Chunk job ids are `<random run id>.c<index>`.
 */
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ChunkOutput, ChunkRunner, ChunkTask } from '../bulk/runner.ts';
import { isCheckSummary } from '../bulk/shadow-summary.ts';
import type { Config } from '../config.ts';
import { metrics } from '../metrics.ts';
import { redactUrl } from '../redact.ts';
import { ChunkSigner, payloadDigest } from './chunk-signing.ts';
import type { ChunkCounts } from './chunk-signing.ts';
import { blockingOptions, checkRedisServer, createRedis, producerOptions, waitReady } from './connection.ts';
import type { RedisCheck } from './connection.ts';
import {
  CHUNK_ATTEMPTS,
  CHUNK_BACKOFF_MS,
  CHUNK_JOB_NAME,
  KEEP_FAILED,
  MAX_PAYLOAD_BYTES,
  QUEUE_NAME,
  chunkJobId,
  chunkResultKey,
  newRunId,
} from './settings.ts';

/** A chunk task, optionally tagged with the random id of the bulk run it belongs to (its job ids' prefix). */
export interface QueueChunkTask extends ChunkTask {
  runId?: string;
}

/**
 * What the worker returns through the `completed` event: the counts and the output's HMAC; the output bytes
 * themselves travel in a Redis key.
 */
export interface ChunkJobReturn extends ChunkCounts {
  mac: string;
}

export type FallbackReason =
  | 'redis_unreachable'
  | 'payload_too_large'
  | 'enqueue_failed'
  | 'job_failed'
  | 'timeout'
  | 'connection_lost'
  | 'result_missing'
  | 'integrity';

export interface QueueRunner extends ChunkRunner {
  readonly kind: 'queue';
  run(task: QueueChunkTask): Promise<ChunkOutput>;
  /**
   * A runner for one bulk run (a bulk request or an async job): its chunk job ids share a fresh random run id.
   * The argument is not used in the ids (they must not lead to a request or a job): it is only the interface's.
   */
  forRequest(requestId: string): ChunkRunner;
  /** Redis reachable, recent enough, noeviction. */
  check(): Promise<RedisCheck>;
  /** Chunk jobs by state, for the queue-depth gauge. Rejects when Redis is unreachable. */
  counts(): Promise<Record<string, number>>;
  /** The producer-side BullMQ queue (bull-board reads it). */
  readonly queue: Queue;
  /** The producer's connection (fail-fast); the Redis job store shares it. */
  readonly redis: Redis;
}

export interface QueueRunnerOptions {
  config: Config;
  logger: Logger;
  /** The local pool: runs chunks the queue cannot take when BULK_QUEUE_FALLBACK=local. Not closed by us. */
  fallback: ChunkRunner;
  /** Defaults to config.REDIS_URL. */
  redisUrl?: string;
  /** How long queue.add may take before the chunk counts as not queued. */
  enqueueTimeoutMs?: number;
}

/** How long the first chunk of a fresh process waits for the initial Redis connection. */
const FIRST_CONNECT_WAIT_MS = 3000;

class ChunkWaitError extends Error {
  readonly reason: FallbackReason;
  constructor(reason: FallbackReason, message: string) {
    super(message);
    this.name = 'ChunkWaitError';
    this.reason = reason;
  }
}

interface Waiter {
  resolve(value: ChunkJobReturn): void;
  reject(err: ChunkWaitError): void;
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}

function isChunkJobReturn(v: unknown): v is ChunkJobReturn {
  if (v === null || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  return (
    Number.isSafeInteger(o.rows) &&
    Number.isSafeInteger(o.errorRows) &&
    Number.isSafeInteger(o.students) &&
    (o.checks === undefined || isCheckSummary(o.checks)) &&
    typeof o.mac === 'string'
  );
}

export function createQueueRunner(options: QueueRunnerOptions): QueueRunner {
  const { config, fallback } = options;
  const maybeUrl = options.redisUrl ?? config.REDIS_URL;
  if (!maybeUrl) throw new Error('createQueueRunner needs REDIS_URL');
  const url: string = maybeUrl;
  const logger = options.logger.child({ component: 'queue-runner' });
  const prefix = config.BULLMQ_PREFIX;
  const enqueueTimeoutMs = options.enqueueTimeoutMs ?? 5000;
  if (!config.QUEUE_SIGNING_KEY) throw new Error('createQueueRunner needs QUEUE_SIGNING_KEY');
  const signer = new ChunkSigner(config.QUEUE_SIGNING_KEY);

  const producer = createRedis(url, producerOptions({ connectionName: 'sor-api-producer' }));
  let wasReady = false;
  producer.on('ready', () => {
    wasReady = true;
    logger.info({ redis: redactUrl(url) }, 'queue: connected to Redis');
  });
  let connectFailed = false;
  producer.on('error', (err: Error) => {
    connectFailed = true;
    logger.debug({ err: err.message }, 'queue: Redis connection error');
  });
  producer.on('close', () => {
    connectFailed = true;
    if (closing) return;
    if (wasReady) {
      wasReady = false;
      logger.warn({ redis: redactUrl(url) }, 'queue: lost the Redis connection; new chunks run on the local pool');
    }
    // Chunks waiting for a completion event may never hear of it: run them elsewhere now, not at the timeout.
    failAllWaiters('connection_lost', 'the Redis connection was lost while the chunk was queued');
  });

  const queue = new Queue(QUEUE_NAME, {
    connection: producer,
    prefix,
    defaultJobOptions: {
      attempts: CHUNK_ATTEMPTS,
      backoff: { type: 'exponential', delay: CHUNK_BACKOFF_MS },
      removeOnComplete: true,
      removeOnFail: KEEP_FAILED,
    },
  });
  queue.on('error', (err: Error) => logger.debug({ err: err.message }, 'queue: producer queue error'));

  const waiters = new Map<string, Waiter>();
  let events: QueueEvents | undefined;
  let eventsConnection: Redis | undefined;
  let eventsStarting: Promise<QueueEvents> | undefined;
  let closing = false;

  function failAllWaiters(reason: FallbackReason, message: string): void {
    for (const [id, w] of waiters) {
      waiters.delete(id);
      w.reject(new ChunkWaitError(reason, message));
    }
  }

  /**
   * Starts the process's one QueueEvents reader. It starts reading right after the stream's current last entry
   * (not at "$" resolved later), so no completion of a job added after this point can be missed.
   */
  function ensureEvents(): Promise<QueueEvents> {
    if (events) return Promise.resolve(events);
    eventsStarting ??= (async () => {
      const streamKey = `${prefix}:${QUEUE_NAME}:events`;
      const last = (await producer.xrevrange(streamKey, '+', '-', 'COUNT', 1)) as [string, string[]][];
      const lastEventId = last[0]?.[0] ?? '0-0';
      eventsConnection = createRedis(url, blockingOptions({ connectionName: 'sor-api-events' }));
      eventsConnection.on('error', (err: Error) =>
        logger.debug({ err: err.message }, 'queue: events connection error'),
      );
      const qe = new QueueEvents(QUEUE_NAME, {
        connection: eventsConnection,
        prefix,
        lastEventId,
        autorun: true,
      });
      qe.on('error', (err: Error) => logger.debug({ err: err.message }, 'queue: events reader error'));
      qe.on('completed', ({ jobId, returnvalue }: { jobId: string; returnvalue: unknown }) => {
        const w = waiters.get(jobId);
        if (!w) return;
        waiters.delete(jobId);
        if (isChunkJobReturn(returnvalue)) w.resolve(returnvalue);
        else w.reject(new ChunkWaitError('result_missing', 'the worker returned no chunk summary'));
      });
      qe.on('failed', ({ jobId, failedReason }: { jobId: string; failedReason: string }) => {
        const w = waiters.get(jobId);
        if (!w) return;
        waiters.delete(jobId);
        w.reject(new ChunkWaitError('job_failed', `the chunk job failed on the workers: ${failedReason}`));
      });
      events = qe;
      return qe;
    })().finally(() => {
      eventsStarting = undefined;
    });
    return eventsStarting;
  }

  let lastFallbackLog = 0;
  let suppressed = 0;
  async function fallbackOrFail(task: ChunkTask, reason: FallbackReason, detail: string): Promise<ChunkOutput> {
    metrics.queueFallbacks.inc({ reason });
    const local = config.BULK_QUEUE_FALLBACK === 'local';
    const now = Date.now();
    if (now - lastFallbackLog >= 10_000) {
      logger.warn(
        { chunk: task.index, reason, fallback: config.BULK_QUEUE_FALLBACK, similarSinceLastLog: suppressed },
        local
          ? `queue: ${detail}; running the chunk on the local pool (BULK_QUEUE_FALLBACK=local)`
          : `queue: ${detail}; the chunk fails (BULK_QUEUE_FALLBACK=fail)`,
      );
      lastFallbackLog = now;
      suppressed = 0;
    } else {
      suppressed++;
    }
    if (!local) throw new Error(`chunk ${task.index} could not run on the queue: ${detail}`);
    return fallback.run({ index: task.index, payload: task.payload });
  }

  async function run(task: QueueChunkTask): Promise<ChunkOutput> {
    if (closing) throw new Error('the queue runner is closed');
    const payloadBytes = Buffer.byteLength(task.payload, 'utf8');
    if (payloadBytes > MAX_PAYLOAD_BYTES) {
      return fallbackOrFail(
        task,
        'payload_too_large',
        `chunk ${task.index} is ${payloadBytes} bytes, above the ${MAX_PAYLOAD_BYTES}-byte queue payload limit`,
      );
    }
    if (producer.status !== 'ready') {
      // Only the very first connection attempt is worth waiting for; once Redis has failed us, fail over at once.
      const firstAttempt = !connectFailed && ['wait', 'connecting', 'connect'].includes(producer.status);
      const reachable =
        firstAttempt &&
        (await waitReady(producer, FIRST_CONNECT_WAIT_MS, true).then(
          () => true,
          () => false,
        ));
      if (!reachable) return fallbackOrFail(task, 'redis_unreachable', `Redis is unreachable (${producer.status})`);
    }
    const jobId = chunkJobId(task.runId ?? newRunId(), task.index);
    try {
      await withTimeout(ensureEvents(), enqueueTimeoutMs, 'the events reader did not start in time');
    } catch (err) {
      return fallbackOrFail(task, 'enqueue_failed', `cannot listen for chunk results: ${(err as Error).message}`);
    }
    let settle!: Waiter;
    const done = new Promise<ChunkJobReturn>((resolve, reject) => {
      settle = { resolve, reject };
    });
    // The waiter may be rejected (connection lost) while queue.add is still pending: mark it handled now.
    done.catch(() => undefined);
    waiters.set(jobId, settle);
    try {
      await withTimeout(
        queue.add(CHUNK_JOB_NAME, signer.signPayload(jobId, task.payload), { jobId }),
        enqueueTimeoutMs,
        'enqueue timed out',
      );
    } catch (err) {
      waiters.delete(jobId);
      return fallbackOrFail(
        task,
        'enqueue_failed',
        `chunk ${task.index} could not be queued: ${(err as Error).message}`,
      );
    }
    let summary: ChunkJobReturn;
    let timer: NodeJS.Timeout | undefined;
    try {
      summary = await Promise.race([
        done,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new ChunkWaitError(
                  'timeout',
                  `chunk ${task.index} took longer than ${config.QUEUE_CHUNK_TIMEOUT_MS} ms`,
                ),
              ),
            config.QUEUE_CHUNK_TIMEOUT_MS,
          );
          timer.unref();
        }),
      ]);
    } catch (err) {
      waiters.delete(jobId);
      const e = err instanceof ChunkWaitError ? err : new ChunkWaitError('job_failed', String(err));
      if (e.reason === 'timeout') {
        // Best effort: a job still waiting is withdrawn; an active one finishes and its result key expires.
        queue.remove(jobId).catch(() => undefined);
      }
      return fallbackOrFail(task, e.reason, e.message);
    } finally {
      clearTimeout(timer);
    }
    // The output stays UTF-8 bytes from the worker's thread to the response: never decoded and re-encoded here.
    let bytes: Buffer | null;
    try {
      bytes = await producer.getdelBuffer(chunkResultKey(prefix, jobId));
    } catch (err) {
      return fallbackOrFail(
        task,
        'connection_lost',
        `chunk ${task.index}'s output could not be read: ${(err as Error).message}`,
      );
    }
    if (bytes === null) {
      return fallbackOrFail(task, 'result_missing', `chunk ${task.index}'s output was missing from Redis`);
    }
    if (!signer.verifyOutput(jobId, payloadDigest(task.payload), summary, bytes, summary.mac)) {
      metrics.chunkIntegrityFailures.inc({ stage: 'output' });
      return fallbackOrFail(
        task,
        'integrity',
        `chunk ${task.index}'s output failed its integrity check (changed in Redis): discarded`,
      );
    }
    return {
      index: task.index,
      text: '',
      bytes,
      rows: summary.rows,
      errorRows: summary.errorRows,
      students: summary.students,
      ...(summary.checks === undefined ? {} : { checks: summary.checks }),
    };
  }

  const runner: QueueRunner = {
    kind: 'queue',
    queue,
    redis: producer,
    run,
    forRequest(): ChunkRunner {
      const runId = newRunId();
      return {
        kind: 'queue',
        run: (task: ChunkTask) => run({ index: task.index, payload: task.payload, runId }),
        close: async () => undefined,
      };
    },
    async check(): Promise<RedisCheck> {
      if (producer.status !== 'ready') {
        try {
          await waitReady(producer, 1000, true);
        } catch (err) {
          return { ok: false, state: 'unreachable', detail: `Redis is unreachable: ${(err as Error).message}` };
        }
      }
      return checkRedisServer(producer);
    },
    async counts(): Promise<Record<string, number>> {
      if (producer.status !== 'ready') throw new Error('Redis is unreachable');
      return queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'paused', 'failed');
    },
    async close(): Promise<void> {
      if (closing) return;
      closing = true;
      failAllWaiters('connection_lost', 'the queue runner closed');
      const ev = events ?? (eventsStarting ? await eventsStarting.catch(() => undefined) : undefined);
      await ev?.close().catch(() => undefined);
      if (eventsConnection) await eventsConnection.quit().catch(() => eventsConnection?.disconnect());
      if (producer.status === 'ready') {
        await queue.close().catch(() => undefined);
        await producer.quit().catch(() => producer.disconnect());
      } else {
        // Never connected (or lost): end the connection first, so BullMQ's pending start-up settles while the
        // queue still listens for its errors, then close the queue.
        const ended = new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 1000);
          producer.once('end', () => {
            clearTimeout(t);
            setImmediate(resolve);
          });
        });
        producer.disconnect();
        await ended;
        await queue.close().catch(() => undefined);
      }
    },
  };
  return runner;
}
