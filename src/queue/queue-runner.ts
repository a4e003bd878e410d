/**
 * The queue runner: the third implementation of ChunkRunner. Each chunk becomes one BullMQ job on queue `calc`
 * (keys `${REDIS_PREFIX}:calc:*`) whose data is only the HMAC of the chunk's payload (chunk-signing.ts); the
 * payload's UTF-8 bytes go, as they are, to their own short-lived Redis key (chunkPayloadKey), deleted by this
 * process once the chunk's outcome is in. A worker process (workers/queue.worker.ts) verifies and runs it and
 * leaves the output bytes in a short-lived Redis key, with their HMAC in the job's return value; this process
 * learns of the completion through ONE shared QueueEvents stream reader (chunk-completions.ts) and hands the
 * output back to the pipeline, whose reorder buffer writes chunks in index order. The pipeline bounds how many
 * chunks are in flight.
 *
 * Correctness first: when Redis is unreachable, a chunk cannot be queued, is too large for the queue, fails on
 * the workers, times out (QUEUE_CHUNK_TIMEOUT_MS) or loses its connection while waiting, the chunk runs on the
 * local pool instead (BULK_QUEUE_FALLBACK=local, the default) or rejects (=fail), which the pipeline turns into
 * error rows for that chunk's students. Either way the output never silently loses a row.
 *
 * Integrity: an output is used only when its HMAC matches (the job id, the MAC of the payload this process
 * sent, the counts and the bytes); otherwise the chunk is recomputed locally (fallback reason `integrity`), so
 * a payload or output changed in Redis never reaches a client. Chunk job ids are `<random run id>.c<index>`.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ChunkOutput, ChunkRunner, ChunkTask } from '../bulk/runner.ts';
import type { Config } from '../config.ts';
import { metrics } from '../metrics.ts';
import { ChunkSigner } from './chunk-signing.ts';
import { redisFromConfig, waitReady, type RedisCheck, type RedisConnections } from '../redis.ts';
import {
  CHUNK_ATTEMPTS,
  CHUNK_BACKOFF_MS,
  CHUNK_JOB_NAME,
  EVENTS_MAX_LEN,
  KEEP_COMPLETED,
  KEEP_FAILED,
  MAX_PAYLOAD_BYTES,
  QUEUE_NAME,
  chunkJobId,
  chunkPayloadKey,
  chunkResultKey,
  payloadTtlSeconds,
} from './settings.ts';
import { newRunId } from '../bulk/run-id.ts';
import { RawSetWriter } from './raw-set.ts';

import { ChunkCompletions, ChunkWaitError, type ChunkJobReturn, type FallbackReason } from './chunk-completions.ts';

export interface QueueRunner extends ChunkRunner {
  readonly kind: 'queue';
  run(task: ChunkTask): Promise<ChunkOutput>;
  /** Redis reachable, recent enough, noeviction. */
  check(): Promise<RedisCheck>;
  /** Chunk jobs by state, for the queue-depth gauge. Rejects when Redis is unreachable. */
  counts(): Promise<Record<string, number>>;
  /** The producer-side BullMQ queue (bull-board reads it). */
  readonly queue: Queue;
}

export interface QueueRunnerOptions {
  config: Config;
  logger: Logger;
  /** The local pool: runs chunks the queue cannot take when BULK_QUEUE_FALLBACK=local. Not closed by us. */
  fallback: ChunkRunner;
  /**
   * The process's Redis (src/redis.ts): the runner adds jobs on its shared connection and reads completions on
   * a blocking one of its own. Unset: made from the config for this runner alone, and closed with it.
   */
  redis?: RedisConnections;
  /** How long queue.add may take before the chunk counts as not queued. */
  enqueueTimeoutMs?: number;
}

/** How long the first chunk of a fresh process waits for the initial Redis connection. */
const FIRST_CONNECT_WAIT_MS = 3000;

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

export function createQueueRunner(options: QueueRunnerOptions): QueueRunner {
  const { config, fallback } = options;
  const ownRedis = options.redis === undefined;
  const maybeRedis = options.redis ?? redisFromConfig(config);
  if (!maybeRedis) throw new Error('createQueueRunner needs REDIS_URL');
  const redis: RedisConnections = maybeRedis;
  const logger = options.logger.child({ component: 'queue-runner' });
  const prefix = redis.prefix;
  const enqueueTimeoutMs = options.enqueueTimeoutMs ?? 5000;
  if (!config.QUEUE_SIGNING_KEY) throw new Error('createQueueRunner needs QUEUE_SIGNING_KEY');
  const signer = new ChunkSigner(config.QUEUE_SIGNING_KEY);
  const payloadTtl = payloadTtlSeconds(config);
  /** Payload SETs written from frames this runner reuses, not a new buffer per chunk (raw-set.ts). */
  const payloadWriter = new RawSetWriter();

  const producer: Redis = redis.shared();
  let wasReady = false;
  producer.on('ready', () => {
    wasReady = true;
    logger.info({ redis: redis.where }, 'queue: connected to Redis');
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
      logger.warn({ redis: redis.where }, 'queue: lost the Redis connection; new chunks run on the local pool');
    }
    // Chunks waiting for a completion event may never hear of it: run them elsewhere now, not at the timeout.
    completions.failAll('connection_lost', 'the Redis connection was lost while the chunk was queued');
  });

  const queue = new Queue(QUEUE_NAME, {
    connection: producer,
    prefix,
    defaultJobOptions: {
      attempts: CHUNK_ATTEMPTS,
      backoff: { type: 'exponential', delay: CHUNK_BACKOFF_MS },
      removeOnComplete: KEEP_COMPLETED,
      removeOnFail: KEEP_FAILED,
    },
    streams: { events: { maxLen: EVENTS_MAX_LEN } },
  });
  queue.on('error', (err: Error) => logger.debug({ err: err.message }, 'queue: producer queue error'));

  const completions = new ChunkCompletions({
    producer,
    connect: () => redis.blocking('sor-api-events'),
    prefix,
    logger,
  });
  let closing = false;

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
    return fallback.run(task);
  }

  async function run(task: ChunkTask): Promise<ChunkOutput> {
    if (closing) throw new Error('the queue runner is closed');
    // The pipeline's payload bytes (on its recycled SharedArrayBuffer) go to Redis as they are: never decoded to
    // a string, JSON-encoded or re-encoded here. They stay valid until this call settles, and the SET below has
    // copied them into its frame before then.
    const given = task.payloadBytes;
    const payload =
      given === undefined
        ? Buffer.from(task.payload, 'utf8')
        : Buffer.from(given.buffer, given.byteOffset, given.byteLength);
    if (payload.length > MAX_PAYLOAD_BYTES) {
      return fallbackOrFail(
        task,
        'payload_too_large',
        `chunk ${task.index} is ${payload.length} bytes, above the ${MAX_PAYLOAD_BYTES}-byte queue payload limit`,
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
      await withTimeout(completions.start(), enqueueTimeoutMs, 'the events reader did not start in time');
    } catch (err) {
      return fallbackOrFail(task, 'enqueue_failed', `cannot listen for chunk results: ${(err as Error).message}`);
    }
    const payloadKey = chunkPayloadKey(prefix, jobId);
    const data = signer.signPayload(jobId, payload);
    try {
      await withTimeout(
        payloadWriter.set(producer, payloadKey, payload, payloadTtl),
        enqueueTimeoutMs,
        'enqueue timed out',
      );
    } catch (err) {
      dropPayload(payloadKey);
      return fallbackOrFail(
        task,
        'enqueue_failed',
        `chunk ${task.index}'s payload could not be stored: ${(err as Error).message}`,
      );
    }
    const payloadState = { deleted: false };
    try {
      return await runQueued(task, jobId, data.mac, payloadKey, payloadState);
    } finally {
      // The chunk's outcome is in (or it ran elsewhere): nobody needs its payload in Redis any more. When the
      // output was collected, the DEL already went out with its GETDEL.
      if (!payloadState.deleted) dropPayload(payloadKey);
    }
  }

  /** Best effort: deletes a chunk's payload key (its TTL removes it anyway if Redis is unreachable now). */
  function dropPayload(payloadKey: string): void {
    if (producer.status === 'ready') producer.del(payloadKey).catch(() => undefined);
  }

  /** Adds the job of a chunk whose payload is stored, waits for its outcome and collects its output. */
  async function runQueued(
    task: ChunkTask,
    jobId: string,
    payloadMac: string,
    payloadKey: string,
    payloadState: { deleted: boolean },
  ): Promise<ChunkOutput> {
    const done = completions.waitFor(jobId);
    try {
      await withTimeout(
        queue.add(CHUNK_JOB_NAME, { mac: payloadMac }, { jobId }),
        enqueueTimeoutMs,
        'enqueue timed out',
      );
    } catch (err) {
      completions.forget(jobId);
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
      completions.forget(jobId);
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
    // The payload key goes in the same write: the chunk is done with it.
    let bytes: Buffer | null;
    try {
      payloadState.deleted = true;
      const [read] = await Promise.all([
        producer.getdelBuffer(chunkResultKey(prefix, jobId)),
        producer.del(payloadKey).catch(() => 0), // its TTL removes it otherwise
      ]);
      bytes = read;
    } catch (err) {
      dropPayload(payloadKey);
      return fallbackOrFail(
        task,
        'connection_lost',
        `chunk ${task.index}'s output could not be read: ${(err as Error).message}`,
      );
    }
    if (bytes === null) {
      return fallbackOrFail(task, 'result_missing', `chunk ${task.index}'s output was missing from Redis`);
    }
    if (!signer.verifyOutput(jobId, payloadMac, summary, bytes, summary.mac)) {
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
      ...(summary.stats === undefined ? {} : { stats: summary.stats }),
      ...(summary.parts === undefined ? {} : { parts: summary.parts }),
    };
  }

  const runner: QueueRunner = {
    kind: 'queue',
    queue,
    run,
    check: () => redis.check(),
    async counts(): Promise<Record<string, number>> {
      if (producer.status !== 'ready') throw new Error('Redis is unreachable');
      return queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'paused', 'failed');
    },
    async close(): Promise<void> {
      if (closing) return;
      closing = true;
      await completions.close();
      if (producer.status === 'ready') {
        // The queue leaves the shared connection open: its owner (or ownRedis below) ends it.
        await queue.close().catch(() => undefined);
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
      if (ownRedis) await redis.close();
    },
  };
  return runner;
}
