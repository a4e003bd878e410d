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

export interface Runtime {
  runners: { small: ChunkRunner; large: ChunkRunner };
  readiness: ReadinessCheck[];
  /** Mounted by createApp after the core routes (extra.routers). */
  routers: Router[];
  /** Stops everything created here (threads, connections). Idempotent. */
  close(): Promise<void>;
}

export async function createRuntime(config: Config, logger: Logger): Promise<Runtime> {
  const small = createInlineRunner();
  const pool = createPoolRunner({ threads: config.BULK_THREADS });
  const large: ChunkRunner = pool;

  const readiness: ReadinessCheck[] = [
    {
      name: 'bulk-pool',
      async check() {
        await pool.ping();
        return { ok: true, detail: `${pool.threads} thread(s)` };
      },
    },
  ];

  const ctx: AppContext = { config, logger, runners: { small, large }, readiness };
  const routers: Router[] = [bulkRouter(ctx)];

  logger.info({ bulkThreads: pool.threads, largeRunner: large.kind }, 'runtime: bulk runners ready');

  let closing: Promise<void> | undefined;
  return {
    runners: ctx.runners,
    readiness,
    routers,
    close() {
      closing ??= (async () => {
        await large.close();
        await pool.close();
        await small.close();
      })();
      return closing;
    },
  };
}
