/**
 * What the HTTP app is built from. server.ts (and tests) assemble an AppContext from a Config; the routes read
 * from it and never from process.env.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { ChunkRunner } from '../bulk/runner.ts';

export interface ReadinessCheck {
  name: string;
  check(): Promise<{ ok: boolean; detail?: string }>;
}

export interface AppContext {
  config: Config;
  logger: Logger;
  runners: {
    /** Files up to config.BULK_SYNC_MAX_ROWS rows: runs in the request's own thread. */
    small: ChunkRunner;
    /** Larger files: the piscina pool, or the BullMQ queue runner when REDIS_URL is set. */
    large: ChunkRunner;
  };
  /** Checks that /readyz runs (Redis version and eviction policy, pool alive, ...). */
  readiness: ReadinessCheck[];
  /** The wall clock for dates printed on documents (the worksheet); the system clock when absent. Tests fix it. */
  clock?: () => Date;
}
