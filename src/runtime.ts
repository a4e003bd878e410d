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
 * threads (workers/calc.worker.ts).
 */
import type { Router } from 'express';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { AppContext, ReadinessCheck } from './api/context.ts';
import type { ChunkRunner } from './bulk/runner.ts';
import { createInlineRunner } from './bulk/runners/inline.ts';
import { createPoolRunner } from './bulk/runners/pool.ts';
import { bulkRouter } from './api/bulk-route.ts';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { createQueueParts } from './queue/runtime-parts.ts';

export interface Runtime {
  runners: { small: ChunkRunner; large: ChunkRunner };
  readiness: ReadinessCheck[];
  /** Mounted by createApp after the core routes (extra.routers). */
  routers: Router[];
  /** OpenAPI paths of those routers (the async /v1/jobs API). */
  openApiPaths: ZodOpenApiPathsObject;
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
  // Queue module (src/queue/runtime-parts.ts): with REDIS_URL, `large` is the BullMQ queue runner (the pool is its
  // fallback) and a Redis readiness check is added; always the /v1/jobs, /metrics (and /admin/queues) routers.
  const queueParts = await createQueueParts(config, logger, { small, pool });
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

  logger.info({ bulkThreads: pool.threads, largeRunner: large.kind }, 'runtime: bulk runners ready');

  let closing: Promise<void> | undefined;
  return {
    runners: ctx.runners,
    readiness,
    routers,
    openApiPaths: queueParts.openApiPaths,
    close() {
      closing ??= (async () => {
        await queueParts.close();
        await large.close();
        await pool.close();
        await small.close();
      })();
      return closing;
    },
  };
}
