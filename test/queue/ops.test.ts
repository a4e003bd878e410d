/**
 * GET /metrics and /admin/queues without the rest of the service: the Prometheus text format, the chunk
 * instrumentation, bull-board only when a queue exists, and the admin token check.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorMiddleware } from '../../src/api/error-envelope.ts';
import { adminAuth, opsRouter } from '../../src/api/ops-route.ts';
import { adminQueuesHandler } from '../../src/api/admin-queues.ts';
import { httpMetricsMiddleware } from '../../src/metrics.ts';
import { instrumentRunner } from '../../src/bulk/runners/instrumented.ts';
import { QUEUE_NAME } from '../../src/queue/settings.ts';
import { deleteKeys, findRedis, uniquePrefix } from '../support/redis.ts';
import type { TestRedis } from '../support/redis.ts';
import { reversingRunner } from './helpers.ts';

let redis: TestRedis;
const prefix = uniquePrefix('ops');
let queue: Queue;

async function serve(router: express.Router): Promise<{ base: string; close(): Promise<void> }> {
  const app = express();
  app.use(httpMetricsMiddleware());
  app.use(router);
  app.get('/v1/things/:id', (_req, res) => {
    res.json({ ok: true });
  });
  app.use(errorMiddleware);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

beforeAll(async () => {
  redis = await findRedis();
  queue = new Queue(QUEUE_NAME, { connection: { url: redis.url }, prefix });
});

afterAll(async () => {
  await queue.close();
  await deleteKeys(redis.url, prefix);
  await redis.stop();
});

describe('ops endpoints', () => {
  it('/metrics: Prometheus text with request latency by route pattern and chunk metrics', async () => {
    const s = await serve(opsRouter());
    try {
      const runner = instrumentRunner(reversingRunner('inline'));
      await runner.run({ index: 0, payload: 'a\nb\nc' });
      await fetch(`${s.base}/v1/things/123`);
      const res = await fetch(`${s.base}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      expect(text).toMatch(
        /^sor_http_request_duration_seconds_count\{method="GET",route="\/v1\/things\/:id",status_code="200"\} 1$/m,
      );
      expect(text).not.toMatch(/route="\/v1\/things\/123"/);
      expect(text).toMatch(/^sor_bulk_chunk_duration_seconds_count\{runner="inline",outcome="ok"\} 1$/m);
      expect(text).toMatch(/^sor_bulk_rows_processed_total 3$/m);
      expect(text).toMatch(/^sor_process_resident_memory_bytes \d+/m);
      // Without a queue there is no bull-board.
      expect((await fetch(`${s.base}/admin/queues`)).status).toBe(404);
    } finally {
      await s.close();
    }
  });

  it('/admin/queues is off without ADMIN_TOKEN, closed without the token, read-only by default', async () => {
    const off = await serve(opsRouter({ adminQueues: adminQueuesHandler(queue, { readOnly: true }) }));
    try {
      expect((await fetch(`${off.base}/admin/queues`)).status).toBe(404);
      expect((await fetch(`${off.base}/admin/queues/api/queues`)).status).toBe(404);
    } finally {
      await off.close();
    }
    const closed = await serve(
      opsRouter({ adminQueues: adminQueuesHandler(queue, { readOnly: true }), adminToken: 't0ken' }),
    );
    try {
      const denied = await fetch(`${closed.base}/admin/queues`);
      expect(denied.status).toBe(401);
      expect(denied.headers.get('www-authenticate')).toMatch(/^Basic/);
      expect(((await denied.json()) as { code: string }).code).toBe('unauthenticated');
      const wrong = await fetch(`${closed.base}/admin/queues`, {
        headers: { Authorization: `Basic ${Buffer.from('x:nope').toString('base64')}` },
      });
      expect(wrong.status).toBe(401);
      expect(((await wrong.json()) as { code: string }).code).toBe('invalid_token');
      const auth = { Authorization: 'Bearer t0ken' };
      expect((await fetch(`${closed.base}/admin/queues`, { headers: auth })).status).toBe(200);
      // Read-only: a pause (PUT) is refused before bull-board sees it, and the queue keeps running.
      const pause = await fetch(`${closed.base}/admin/queues/api/queues/${QUEUE_NAME}/pause`, {
        method: 'PUT',
        headers: auth,
      });
      expect(pause.status).toBe(405);
      expect(((await pause.json()) as { code: string }).code).toBe('method_not_allowed');
      expect(await queue.isPaused()).toBe(false);
      // The unauthenticated PUT is a 401, not a 405: nothing about the dashboard without the token.
      expect((await fetch(`${closed.base}/admin/queues/api/queues/pause`, { method: 'PUT' })).status).toBe(401);
    } finally {
      await closed.close();
    }
  });

  it('with ADMIN_READ_ONLY=false the dashboard may change the queue; bull-board itself is read-only otherwise', async () => {
    // bull-board's own readOnlyMode (the second line of defence behind the method guard) refuses a change.
    const boardOnly = await serve(
      opsRouter({
        adminQueues: adminQueuesHandler(queue, { readOnly: true }),
        adminToken: 't0ken',
        adminReadOnly: false,
      }),
    );
    const auth = { Authorization: 'Bearer t0ken' };
    try {
      const res = await fetch(`${boardOnly.base}/admin/queues/api/queues/${QUEUE_NAME}/pause`, {
        method: 'PUT',
        headers: auth,
      });
      expect(res.status).toBe(405);
      expect(await queue.isPaused()).toBe(false);
    } finally {
      await boardOnly.close();
    }
    const writable = await serve(
      opsRouter({
        adminQueues: adminQueuesHandler(queue, { readOnly: false }),
        adminToken: 't0ken',
        adminReadOnly: false,
      }),
    );
    try {
      const res = await fetch(`${writable.base}/admin/queues/api/queues/${QUEUE_NAME}/pause`, {
        method: 'PUT',
        headers: auth,
      });
      expect(res.status).toBe(200);
      expect(await queue.isPaused()).toBe(true);
    } finally {
      await queue.resume();
      await writable.close();
    }
  });

  it('adminAuth compares tokens of different lengths safely', async () => {
    const app = express();
    app.use(adminAuth('short'));
    app.get('/', (_req, res) => {
      res.send('in');
    });
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      expect((await fetch(base, { headers: { Authorization: 'Bearer a-much-longer-token' } })).status).toBe(401);
      expect((await fetch(base, { headers: { Authorization: 'Bearer short' } })).status).toBe(200);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
