/**
 * bull-board over the chunk queue, served at /admin/queues by the ops router (behind ADMIN_TOKEN when set).
 * Its own module so that bull-board, bullmq and ioredis are loaded only when REDIS_URL is set.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import type { RequestHandler } from 'express';
import { ADMIN_QUEUES_PATH } from './ops-route.ts';

export function adminQueuesHandler(queue: Queue): RequestHandler {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(ADMIN_QUEUES_PATH);
  createBullBoard({
    queues: [new BullMQAdapter(queue, { readOnlyMode: false })],
    serverAdapter,
    options: { uiConfig: { boardTitle: 'sor chunk queue' } },
  });
  return serverAdapter.getRouter() as RequestHandler;
}
