/**
 * The queue module's share of the runtime (src/runtime.ts calls createQueueParts once at start-up):
 *  - with REDIS_URL: the large runner becomes the queue runner (falling back to the local pool per
 *    BULK_QUEUE_FALLBACK), a `redis` readiness check (reachable, version, maxmemory-policy noeviction, logged at
 *    start-up too), async jobs in Redis, bull-board at /admin/queues;
 *  - without: the large runner stays the pool and async jobs use the in-process store (lost on restart);
 *  - always: the /v1/jobs router and its OpenAPI paths, GET /metrics, and runners instrumented for metrics
 *    (chunk durations, rows and students processed).
 *
 * The Redis side (queue-runner.ts, redis-job-store.ts, connection.ts and through them bullmq and ioredis) is
 * imported only when REDIS_URL is set, so a service without Redis does not load those libraries.
 */
import type { Router } from 'express';
import type { Logger } from 'pino';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { ReadinessCheck } from '../api/context.ts';
import { jobsOpenApiPaths, jobsRouter } from '../api/jobs-route.ts';
import { uploadLimits } from '../api/bulk-route.ts';
import { opsRouter } from '../api/ops-route.ts';
import { runBulkPrescanned } from '../bulk/run-prescanned.ts';
import type { ChunkOutput, ChunkRunner, ChunkTask } from '../bulk/runner.ts';
import type { Config } from '../config.ts';
import { metrics, setGaugeSources } from '../metrics.ts';
import { AsyncJobs } from './async-jobs.ts';
import { MemoryJobStore } from './job-store.ts';
import type { JobStore } from './job-store.ts';
import type { QueueRunner } from './queue-runner.ts';

/** How long running async jobs get to finish when the API shuts down before they are failed. */
export const JOBS_DRAIN_MS = 10_000;

/**
 * Wraps a runner so every chunk it runs is counted: sor_bulk_chunk_duration_seconds{runner,outcome},
 * sor_bulk_rows_processed_total, sor_bulk_row_errors_total, sor_bulk_students_processed_total.
 */
export function instrumentRunner(inner: ChunkRunner): ChunkRunner {
  const wrapped: ChunkRunner = {
    kind: inner.kind,
    async run(task: ChunkTask): Promise<ChunkOutput> {
      const end = metrics.chunkDuration.startTimer({ runner: inner.kind });
      try {
        const out = await inner.run(task);
        end({ outcome: 'ok' });
        metrics.rowsProcessed.inc(out.rows);
        metrics.rowErrors.inc(out.errorRows);
        metrics.studentsProcessed.inc(out.students);
        return out;
      } catch (err) {
        end({ outcome: 'failed' });
        throw err;
      }
    },
    close: () => inner.close(),
  };
  if (inner.forRequest) {
    const bind = inner.forRequest.bind(inner);
    wrapped.forRequest = (requestId: string) => instrumentRunner(bind(requestId));
  }
  return wrapped;
}

export interface QueueParts {
  small: ChunkRunner;
  large: ChunkRunner;
  readiness: ReadinessCheck[];
  routers: Router[];
  openApiPaths: ZodOpenApiPathsObject;
  /** The queue runner when REDIS_URL is set. */
  queue?: QueueRunner;
  jobs: AsyncJobs;
  /** Drains async jobs, closes the queue runner and its connections (not the pool: the runtime owns it). */
  close(): Promise<void>;
}

export async function createQueueParts(
  config: Config,
  logger: Logger,
  local: { small: ChunkRunner; pool: ChunkRunner },
): Promise<QueueParts> {
  const small = instrumentRunner(local.small);
  let queue: QueueRunner | undefined;
  let store: JobStore;
  const readiness: ReadinessCheck[] = [];

  if (config.REDIS_URL) {
    const [{ createQueueRunner }, { RedisJobStore }, { redactUrl }] = await Promise.all([
      import('./queue-runner.ts'),
      import('./redis-job-store.ts'),
      import('./connection.ts'),
    ]);
    queue = createQueueRunner({ config, logger, fallback: local.pool });
    const q = queue;
    const check = await q.check();
    const where = { redis: redactUrl(config.REDIS_URL), prefix: config.BULLMQ_PREFIX };
    if (check.ok) {
      logger.info({ ...where, detail: check.detail }, 'queue: bulk chunks go through Redis (BullMQ queue calc)');
    } else {
      logger.error(
        { ...where, fallback: config.BULK_QUEUE_FALLBACK },
        `queue: Redis is not usable: ${check.detail}. /readyz reports not ready; bulk chunks run on the local ` +
          `pool while it lasts (BULK_QUEUE_FALLBACK=${config.BULK_QUEUE_FALLBACK}).`,
      );
    }
    readiness.push({
      name: 'redis',
      async check() {
        const c = await q.check();
        return { ok: c.ok, detail: c.detail };
      },
    });
    store = new RedisJobStore(q.redis, config.BULLMQ_PREFIX, config.JOB_TTL_SECONDS);
  } else {
    store = new MemoryJobStore(config.JOB_TTL_SECONDS);
    logger.info(
      'queue: REDIS_URL not set: bulk runs on the local pool; async jobs are kept in memory (lost on restart)',
    );
  }

  const large = instrumentRunner(queue ?? local.pool);
  setGaugeSources({
    queueDepth: queue ? () => (queue as QueueRunner).counts() : undefined,
    jobsByStatus: () => store.counts(),
  });

  const jobs = new AsyncJobs({
    config,
    logger,
    store,
    runnerFor: (jobId) => ({ small, large: large.forRequest?.(jobId) ?? large }),
    runBulk: runBulkPrescanned,
  });

  const routers = [
    jobsRouter(jobs, { maxBytes: config.BULK_MAX_BYTES, limits: uploadLimits(config) }),
    opsRouter({
      adminQueues: queue ? (await import('../api/admin-queues.ts')).adminQueuesHandler(queue.queue) : undefined,
      adminToken: config.ADMIN_TOKEN,
    }),
  ];
  const openApiPaths = jobsOpenApiPaths({
    ttlSeconds: config.JOB_TTL_SECONDS,
    maxBytes: config.BULK_MAX_BYTES,
    store: store.kind,
  });

  let closing: Promise<void> | undefined;
  return {
    small,
    large,
    readiness,
    routers,
    openApiPaths,
    queue,
    jobs,
    close() {
      closing ??= (async () => {
        await jobs.close(JOBS_DRAIN_MS);
        await store.close();
        await queue?.close();
        setGaugeSources({ queueDepth: undefined, jobsByStatus: undefined });
      })();
      return closing;
    },
  };
}
