/**
 * The webhooks of a running API, from its Config (the runtime calls `createWebhooks` once): none without
 * WEBHOOK_SECRET (logged so); else the outbox in Redis (REDIS_URL) or in SQLite in JOBS_DIR, and WEBHOOK_URL
 * checked (a refused one stops start-up). The runtime starts them (`start()`) once the jobs service exists.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { JobStore } from '../jobs/job-store.ts';
import type { RedisConnections } from '../redis.ts';
import type { JobViewFn } from './event.ts';
import type { OutboxStore, OutboxTimes } from './outbox.ts';
import { webhookSettings } from './settings.ts';
import { SqliteOutbox } from './sqlite-outbox.ts';
import { Webhooks } from './webhooks.ts';

/** The outbox's file in JOBS_DIR, beside the local job store's (src/jobs/local-job-store.ts). */
export const OUTBOX_FILE = 'webhooks.sqlite';

export interface WebhooksSetup {
  config: Config;
  logger: Logger;
  redis: RedisConnections | undefined;
  /** The job store (the sweep reads the jobs of waiting entries). */
  jobs: Pick<JobStore, 'get'>;
  view: JobViewFn;
}

export async function createWebhooks(setup: WebhooksSetup): Promise<Webhooks | undefined> {
  const { config, logger, redis } = setup;
  const settings = webhookSettings(config);
  if (settings === undefined) {
    logger.info('webhooks: off (WEBHOOK_SECRET unset): a job submitted with callback_url is refused');
    return undefined;
  }
  const times: OutboxTimes = { retentionMs: settings.retentionMs, windowMs: settings.retry.windowMs };
  let store: OutboxStore;
  if (redis) {
    const { RedisOutbox } = await import('./redis-outbox.ts');
    store = new RedisOutbox(redis.shared(), redis.prefix, times);
  } else {
    store = new SqliteOutbox(join(config.JOBS_DIR, OUTBOX_FILE), times);
  }
  const webhooks = new Webhooks({ settings, store, jobs: setup.jobs, view: setup.view, logger });
  try {
    await webhooks.checkDeploymentUrl();
  } catch (err) {
    await store.close();
    throw err;
  }
  logger.info({ outbox: store.kind, allowed: settings.allow.size }, 'webhooks: on, events signed with WEBHOOK_SECRET');
  return webhooks;
}
