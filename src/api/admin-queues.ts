/**
 * bull-board over the chunk queue, served at /admin/queues by the ops router, only when ADMIN_TOKEN is set.
 * Read-only unless ADMIN_READ_ONLY=false: bull-board's readOnlyMode hides and refuses retry, clean, pause,
 * promote, add and update-data (and ops-route.ts refuses every method but GET/HEAD before bull-board sees it).
 * Every answer of the dashboard carries DASHBOARD_SECURITY_HEADERS. Its own module so that bull-board, bullmq and
 * ioredis are loaded only when REDIS_URL is set.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import type { RequestHandler } from 'express';
import { ADMIN_QUEUES_PATH } from './ops-route.ts';

export interface AdminQueuesOptions {
  /** No changes through the dashboard (the default of ADMIN_READ_ONLY). */
  readOnly: boolean;
}

/**
 * Sent with every answer of the dashboard (its page, assets and API): no framing (clickjacking of its buttons),
 * no MIME sniffing, no Referer carrying a dashboard URL elsewhere. The policy has `frame-ancestors` alone:
 * bull-board's page brings its own scripts and styles, which a fuller policy would have to list.
 */
export const DASHBOARD_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': "frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
});

/** `handler` with DASHBOARD_SECURITY_HEADERS set before it runs. */
export function withDashboardHeaders(handler: RequestHandler): RequestHandler {
  const headers = Object.entries(DASHBOARD_SECURITY_HEADERS);
  return (req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    return handler(req, res, next);
  };
}

export function adminQueuesHandler(queue: Queue, options: AdminQueuesOptions): RequestHandler {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(ADMIN_QUEUES_PATH);
  createBullBoard({
    queues: [new BullMQAdapter(queue, { readOnlyMode: options.readOnly })],
    serverAdapter,
    options: { uiConfig: { boardTitle: options.readOnly ? 'sor chunk queue (read-only)' : 'sor chunk queue' } },
  });
  return withDashboardHeaders(serverAdapter.getRouter() as RequestHandler);
}
