/**
 * How the API process hears that a chunk job finished: ONE QueueEvents stream reader per process, and a waiter
 * per chunk job id. The queue runner (queue-runner.ts) registers a waiter before it adds the job, so no
 * completion can be missed, and gives up on it (forget) when the job could not be added or timed out.
 */
import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { isCheckSummary } from '../bulk/shadow-summary.ts';
import { isResultStats } from '../bulk/result-stats.ts';
import type { ChunkCounts } from './chunk-signing.ts';
import { QUEUE_NAME } from './settings.ts';

/**
 * What the worker returns through the `completed` event: the counts and the output's HMAC; the output bytes
 * themselves travel in a Redis key.
 */
export interface ChunkJobReturn extends ChunkCounts {
  mac: string;
}

/** Why a chunk did not come back from the queue (the label of sor_queue_fallbacks_total). */
export type FallbackReason =
  | 'redis_unreachable'
  | 'payload_too_large'
  | 'enqueue_failed'
  | 'job_failed'
  | 'timeout'
  | 'connection_lost'
  | 'result_missing'
  | 'integrity';

export class ChunkWaitError extends Error {
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

function isChunkJobReturn(v: unknown): v is ChunkJobReturn {
  if (v === null || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  return (
    Number.isSafeInteger(o.rows) &&
    Number.isSafeInteger(o.errorRows) &&
    Number.isSafeInteger(o.students) &&
    (o.checks === undefined || isCheckSummary(o.checks)) &&
    (o.stats === undefined || isResultStats(o.stats)) &&
    (o.parts === undefined ||
      (Array.isArray(o.parts) && o.parts.length === 3 && o.parts.every((n) => Number.isSafeInteger(n) && n >= 0))) &&
    typeof o.mac === 'string'
  );
}

export interface ChunkCompletionsOptions {
  /** The producer's connection: reads the stream's last entry id before the reader starts. */
  producer: Redis;
  /** Makes the reader's own blocking connection (src/redis.ts `blocking`). */
  connect(): Redis;
  prefix: string;
  logger: Logger;
}

export class ChunkCompletions {
  readonly #opts: ChunkCompletionsOptions;
  readonly #waiters = new Map<string, Waiter>();
  #events: QueueEvents | undefined;
  #connection: Redis | undefined;
  #starting: Promise<QueueEvents> | undefined;

  constructor(opts: ChunkCompletionsOptions) {
    this.#opts = opts;
  }

  /**
   * Starts the process's one QueueEvents reader, once. It starts reading right after the stream's current last
   * entry (not at "$" resolved later), so no completion of a job added after this point can be missed.
   */
  start(): Promise<QueueEvents> {
    if (this.#events) return Promise.resolve(this.#events);
    this.#starting ??= this.#open().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #open(): Promise<QueueEvents> {
    const { producer, prefix, logger } = this.#opts;
    const streamKey = `${prefix}:${QUEUE_NAME}:events`;
    const last = (await producer.xrevrange(streamKey, '+', '-', 'COUNT', 1)) as [string, string[]][];
    const lastEventId = last[0]?.[0] ?? '0-0';
    this.#connection = this.#opts.connect();
    this.#connection.on('error', (err: Error) => logger.debug({ err: err.message }, 'queue: events connection error'));
    const qe = new QueueEvents(QUEUE_NAME, { connection: this.#connection, prefix, lastEventId, autorun: true });
    qe.on('error', (err: Error) => logger.debug({ err: err.message }, 'queue: events reader error'));
    qe.on('completed', ({ jobId, returnvalue }: { jobId: string; returnvalue: unknown }) => {
      const w = this.#take(jobId);
      if (!w) return;
      if (isChunkJobReturn(returnvalue)) w.resolve(returnvalue);
      else w.reject(new ChunkWaitError('result_missing', 'the worker returned no chunk summary'));
    });
    qe.on('failed', ({ jobId, failedReason }: { jobId: string; failedReason: string }) => {
      this.#take(jobId)?.reject(
        new ChunkWaitError('job_failed', `the chunk job failed on the workers: ${failedReason}`),
      );
    });
    this.#events = qe;
    return qe;
  }

  #take(jobId: string): Waiter | undefined {
    const w = this.#waiters.get(jobId);
    if (w) this.#waiters.delete(jobId);
    return w;
  }

  /** Registers a waiter for the job (before it is added). The promise may reject before anyone awaits it. */
  waitFor(jobId: string): Promise<ChunkJobReturn> {
    const done = new Promise<ChunkJobReturn>((resolve, reject) => {
      this.#waiters.set(jobId, { resolve, reject });
    });
    // The waiter may be rejected (connection lost) while queue.add is still pending: mark it handled now.
    done.catch(() => undefined);
    return done;
  }

  /** Drops the waiter of a job that was not added or is no longer awaited. */
  forget(jobId: string): void {
    this.#waiters.delete(jobId);
  }

  /** Rejects every waiter now (connection lost, runner closing): their chunks run elsewhere at once. */
  failAll(reason: FallbackReason, message: string): void {
    for (const jobId of [...this.#waiters.keys()]) {
      this.#take(jobId)?.reject(new ChunkWaitError(reason, message));
    }
  }

  /** Fails every waiter and stops the reader and its connection. */
  async close(): Promise<void> {
    this.failAll('connection_lost', 'the queue runner closed');
    const ev = this.#events ?? (this.#starting ? await this.#starting.catch(() => undefined) : undefined);
    await ev?.close().catch(() => undefined);
    const conn = this.#connection;
    if (conn) await conn.quit().catch(() => conn.disconnect());
  }
}
