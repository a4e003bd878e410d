/**
 * What the service runs on, built once from the Config: the bulk runners, the readiness checks and the routers
 * of the modules beyond the core API. server.ts builds the app from it:
 *
 *   const runtime = await createRuntime(config, logger);
 *   const app = createApp({ config, logger, runners: runtime.runners, readiness: runtime.readiness },
 *                         { routers: runtime.routers });
 *   ... on shutdown: await runtime.close();
 *
 * Runners: `small` is inline (files up to BULK_SYNC_MAX_ROWS rows), `large` the piscina pool with BULK_THREADS
 * threads (src/bulk/runners/pool-thread.ts).
 *
 * The jobs and queue share (createQueueParts below, called once by createRuntime):
 *  - with REDIS_URL: the large runner becomes the queue runner (falling back to the local pool per
 *    BULK_QUEUE_FALLBACK), a `redis` readiness check (reachable, version, maxmemory-policy noeviction, logged at
 *    start-up too; /readyz shows only its state, never an address), async jobs in Redis, bull-board at
 *    /admin/queues when ADMIN_TOKEN is set (read-only unless ADMIN_READ_ONLY=false; off, and logged so, without);
 *  - without: the large runner stays the pool and async jobs use the local store (SQLite and files in JOBS_DIR:
 *    they survive a restart);
 *  - always: the /v1/jobs router and its OpenAPI paths, GET /metrics, and runners instrumented for metrics
 *    (chunk durations, rows and students processed);
 *  - with WEBHOOK_SECRET: the signed webhooks (src/webhooks/), their outbox in Redis or in JOBS_DIR, told of every
 *    job's end (onJobEnded), their `callback` shown on the job, and closed after the jobs service drained.
 *
 * Redis: with REDIS_URL the process's connections come from src/redis.ts (redisFromConfig), made here once and
 * handed to the queue runner, the job store, the token store and the rate counters; closed last. The Redis side
 * (redis.ts, queue-runner.ts, redis-job-store.ts and through them bullmq and ioredis) is imported only when
 * REDIS_URL is set, so a service without Redis does not load those libraries.
 */
import type { RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { AppContext, ReadinessCheck } from './api/context.ts';
import type { ChunkRunner } from './bulk/runner.ts';
import { createInlineRunner } from './bulk/runners/inline.ts';
import { createPoolRunner } from './bulk/runners/pool.ts';
import { bulkRouter } from './api/bulk-route.ts';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { jobsRouter } from './api/jobs-route.ts';
import { jobsOpenApiPaths } from './api/openapi/jobs-paths.ts';
import { startAdminListener } from './api/admin-listener.ts';
import type { AdminListener } from './api/admin-listener.ts';
import { uploadLimits } from './api/bulk-route.ts';
import { adminRouter, opsRouter } from './api/ops-route.ts';
import { runBulk } from './bulk/pipeline.ts';
import { instrumentRunner } from './bulk/runners/instrumented.ts';
import { setGaugeSources } from './metrics.ts';
import { AsyncJobs } from './jobs/async-jobs.ts';
import { jobsStoreReadiness } from './jobs/store-readiness.ts';
import { LocalJobStore } from './jobs/local-job-store.ts';
import type { JobStore } from './jobs/job-store.ts';
import type { QueueRunner } from './queue/queue-runner.ts';
import type { RedisConnections } from './redis.ts';
import { createAccessControl } from './api/access-control.ts';
import { jobsAccessRouter, withJobsAccessPaths } from './api/jobs-access.ts';
import { jobView, type JobExtrasSource } from './api/job-view.ts';
import { createWebhooks } from './webhooks/setup.ts';

export interface Runtime {
  runners: { small: ChunkRunner; large: ChunkRunner };
  readiness: ReadinessCheck[];
  /** Mounted by createApp after the core routes (extra.routers). */
  routers: Router[];
  /** OpenAPI paths of those routers (the async /v1/jobs API). */
  openApiPaths: ZodOpenApiPathsObject;
  /** Access control and rate limits (src/api/access-control.ts), mounted by createApp before every route. */
  guards: RequestHandler[];
  /** Stops everything created here (threads, connections). Idempotent. */
  close(): Promise<void>;
}

export async function createRuntime(config: Config, logger: Logger): Promise<Runtime> {
  const small = createInlineRunner();
  // Outputs come back as transferred UTF-8 buffers: the request's thread writes them without copying or encoding.
  const pool = createPoolRunner({
    threads: config.BULK_THREADS,
    output: 'bytes',
    onThreadError: (err: unknown) => logger.warn({ err }, 'bulk: a calculation thread died; piscina replaces it'),
  });
  // Jobs and queue (createQueueParts below): with REDIS_URL, `large` is the BullMQ queue runner (the pool is its
  // fallback) and a Redis readiness check is added; always the /v1/jobs, /metrics (and /admin/queues) routers.
  // The process's Redis, or none: the one decision, made here for every part below.
  const redis = config.REDIS_URL ? (await import('./redis.ts')).redisFromConfig(config) : undefined;
  const queueParts = await createQueueParts(config, logger, { small, pool }, redis);
  const large: ChunkRunner = queueParts.large;

  const readiness: ReadinessCheck[] = [
    {
      name: 'bulk-pool',
      async check() {
        await pool.ping();
        return { ok: true, detail: `${pool.threads} thread(s)` };
      },
    },
    ...queueParts.readiness,
  ];

  const ctx: AppContext = { config, logger, runners: { small: queueParts.small, large }, readiness };
  const routers: Router[] = [bulkRouter(ctx), ...queueParts.routers];
  // POST /mcp (MCP_HTTP=on): the MCP SDK is loaded only then. The app puts the /v1 guards in front of it.
  if (config.MCP_HTTP) routers.push((await import('./mcp/http.ts')).mcpRouter(ctx));
  const access = createAccessControl(config, logger, redis);

  logger.info({ bulkThreads: pool.threads, largeRunner: large.kind }, 'runtime: bulk runners ready');

  let closing: Promise<void> | undefined;
  return {
    runners: ctx.runners,
    readiness,
    routers,
    openApiPaths: queueParts.openApiPaths,
    guards: access.guards,
    close() {
      closing ??= (async () => {
        await access.close();
        await queueParts.close();
        await large.close();
        await pool.close();
        await small.close();
        await redis?.close();
      })();
      return closing;
    },
  };
}

/** Below this many characters the admin token is accepted, with a warning (compose and k8s generate 64). */
const MIN_ADMIN_TOKEN_LENGTH = 24;

/**
 * How long running async jobs get to finish when the API shuts down (at most SHUTDOWN_GRACE_MS) before they are
 * handed back, to run again from their uploads when the service is back.
 */
const JOBS_DRAIN_MS = 10_000;

interface QueueParts {
  small: ChunkRunner;
  large: ChunkRunner;
  readiness: ReadinessCheck[];
  routers: Router[];
  openApiPaths: ZodOpenApiPathsObject;
  /** The queue runner when REDIS_URL is set. */
  queue?: QueueRunner;
  /** The dashboard's own listener, when ADMIN_PORT is set (with REDIS_URL and ADMIN_TOKEN). */
  adminListener?: AdminListener;
  jobs: AsyncJobs;
  /** Drains async jobs, closes the queue runner and its connections (not the pool: the runtime owns it). */
  close(): Promise<void>;
}

async function createQueueParts(
  config: Config,
  logger: Logger,
  local: { small: ChunkRunner; pool: ChunkRunner },
  redis: RedisConnections | undefined,
): Promise<QueueParts> {
  const small = instrumentRunner(local.small);
  let queue: QueueRunner | undefined;
  let store: JobStore;
  const readiness: ReadinessCheck[] = [];

  if (redis) {
    const [{ createQueueRunner }, { RedisJobStore }, { redisMemoryReadiness }] = await Promise.all([
      import('./queue/queue-runner.ts'),
      import('./jobs/redis-job-store.ts'),
      import('./queue/redis-memory.ts'),
    ]);
    queue = createQueueRunner({ config, logger, fallback: local.pool, redis });
    const q = queue;
    const check = await q.check();
    const where = { redis: redis.where, prefix: redis.prefix };
    if (check.ok) {
      logger.info(
        { ...where, detail: redis.redact(check.detail) },
        'queue: bulk chunks go through Redis (BullMQ queue calc)',
      );
    } else {
      logger.error(
        { ...where, fallback: config.BULK_QUEUE_FALLBACK },
        `queue: Redis is not usable: ${redis.redact(check.detail)}. /readyz reports not ready; bulk chunks run on the local ` +
          `pool while it lasts (BULK_QUEUE_FALLBACK=${config.BULK_QUEUE_FALLBACK}).`,
      );
    }
    readiness.push({
      name: 'redis',
      // A state only (ready, unreachable, version_too_old, evicting): anonymous probes learn no address or user.
      async check() {
        const c = await q.check();
        return { ok: c.ok, detail: c.state };
      },
    });
    // Before a full Redis refuses every write (src/queue/redis-memory.ts).
    readiness.push(redisMemoryReadiness(redis.shared(), config.REDIS_MEMORY_READY_PCT));
    store = new RedisJobStore(redis.shared(), redis.prefix, config.JOB_TTL_SECONDS, config.JOBS_MAX_REDIS_BYTES);
  } else {
    store = new LocalJobStore({
      dir: config.JOBS_DIR,
      ttlSeconds: config.JOB_TTL_SECONDS,
      maxBytes: config.JOBS_MAX_DISK_BYTES,
      onError: (err: unknown) => logger.warn({ err }, 'jobs: the sweep of the job store failed'),
    });
    logger.info(
      { jobsDir: config.JOBS_DIR },
      'queue: REDIS_URL not set: bulk runs on the local pool; async jobs are kept in JOBS_DIR (SQLite and gzip ' +
        'files): they survive a restart',
    );
  }

  const large = instrumentRunner(queue ?? local.pool);
  setGaugeSources({
    queueDepth: queue ? () => (queue as QueueRunner).counts() : undefined,
    jobsByStatus: () => store.counts(),
  });

  // Signed webhooks when WEBHOOK_SECRET is set (src/webhooks/): told of every job's end, shown on the job.
  const webhooks = await createWebhooks({ config, logger, redis, jobs: store, view: (record) => jobView(record) });
  const extras: JobExtrasSource | undefined =
    webhooks && (async (job) => ({ callback: await webhooks.callbackView(job) }));

  const jobs = new AsyncJobs({
    config,
    logger,
    store,
    jobsDir: config.JOBS_DIR,
    runners: { small, large },
    runBulk,
    onJobEnded: webhooks && ((record) => webhooks.jobEnded(record)),
  });
  webhooks?.start(); // after the jobs service: its first sweep sees the jobs as that service has them

  readiness.push(jobsStoreReadiness(jobs));

  const dashboard =
    queue && config.ADMIN_TOKEN
      ? (await import('./api/admin-queues.ts')).adminQueuesHandler(queue.queue, { readOnly: config.ADMIN_READ_ONLY })
      : undefined;
  const routers = [
    jobsAccessRouter(jobs, { authRequired: config.AUTH_MODE === 'required', extras }),
    jobsRouter(jobs, { maxBytes: config.BULK_MAX_BYTES, limits: uploadLimits(config), extras, webhooks }),
    opsRouter({
      // On the API's port unless ADMIN_PORT gives the dashboard a listener of its own (below).
      adminQueues: config.ADMIN_PORT === undefined ? dashboard : undefined,
      adminToken: config.ADMIN_TOKEN,
      adminReadOnly: config.ADMIN_READ_ONLY,
    }),
  ];
  let adminListener: AdminListener | undefined;
  if (dashboard && config.ADMIN_TOKEN && config.ADMIN_PORT !== undefined) {
    adminListener = await startAdminListener(
      adminRouter(dashboard, config.ADMIN_TOKEN, config.ADMIN_READ_ONLY),
      config.HOST,
      config.ADMIN_PORT,
    );
  }
  if (queue && config.ADMIN_TOKEN && config.ADMIN_TOKEN.length < MIN_ADMIN_TOKEN_LENGTH) {
    logger.warn(
      { length: config.ADMIN_TOKEN.length },
      `admin: ADMIN_TOKEN is shorter than ${MIN_ADMIN_TOKEN_LENGTH} characters: guessable; use openssl rand -hex 32`,
    );
  }
  if (queue && config.ADMIN_TOKEN) {
    logger.info(
      { path: '/admin/queues', port: adminListener?.port ?? config.PORT, readOnly: config.ADMIN_READ_ONLY },
      config.ADMIN_READ_ONLY
        ? 'admin: queue dashboard on, behind ADMIN_TOKEN, read-only (ADMIN_READ_ONLY=false allows changes)'
        : 'admin: queue dashboard on, behind ADMIN_TOKEN, and it can change jobs (ADMIN_READ_ONLY=false)',
    );
  } else if (queue) {
    logger.info({ path: '/admin/queues' }, 'admin: queue dashboard off (set ADMIN_TOKEN to turn it on)');
  }

  const openApiPaths = withJobsAccessPaths(
    jobsOpenApiPaths({ ttlSeconds: config.JOB_TTL_SECONDS, maxBytes: config.BULK_MAX_BYTES, store: store.kind }),
  );

  let closing: Promise<void> | undefined;
  return {
    small,
    large,
    readiness,
    routers,
    openApiPaths,
    queue,
    adminListener,
    jobs,
    close() {
      closing ??= (async () => {
        await adminListener?.close();
        await jobs.close(Math.min(JOBS_DRAIN_MS, config.SHUTDOWN_GRACE_MS));
        await webhooks?.close();
        await webhooks?.store.close();
        await store.close();
        await queue?.close();
        setGaugeSources({ queueDepth: undefined, jobsByStatus: undefined });
      })();
      return closing;
    },
  };
}
