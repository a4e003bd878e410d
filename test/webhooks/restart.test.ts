/**
 * Deliveries survive SIGKILL of the API.
 *  - A pending delivery, without Redis (the outbox is SQLite in JOBS_DIR) and with it (under REDIS_PREFIX): the
 *    receiver (docs/webhooks.md's Node receiver) is down when the job ends, so the first attempt fails and the
 *    next is pending; the API is killed; the receiver comes up on the same port; the restarted API delivers the
 *    event, once (with Redis the job itself survives too, and shows the two attempts).
 *  - A job killed while it runs (its event never made): the restarted API's sweep finds it and sends its event,
 *    as the job store then tells it: job.failed with job_lost when the store lost the job with the process, or
 *    the job's own end when the store kept it and the job ran to its end.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { makeCsv } from '../queue/csv-gen.ts';
import { freePort } from '../support/free-port.ts';
import { killAll } from '../support/processes.ts';
import { findRedis, uniquePrefix, type TestRedis } from '../support/redis.ts';
import { removePrefix } from '../queue/helpers.ts';
import { startReceiver, type Receiver } from './receivers.ts';
import { callbackWhen, folders, removeFolders, startApi, submit, until, WEBHOOK_SECRET } from './servers.ts';

const receivers: Receiver[] = [];
let capture: Server | undefined;
let redis: TestRedis | undefined;
const prefix = uniquePrefix('webhook-restart');

afterAll(async () => {
  await killAll();
  for (const r of receivers) await r.stop();
  if (redis) {
    await removePrefix(redis.url, prefix);
    await redis.stop();
  }
  capture?.closeAllConnections();
  await new Promise<void>((resolve) => (capture ? capture.close(() => resolve()) : resolve()));
  await removeFolders();
});

describe('deliveries survive SIGKILL of the API', () => {
  it.each(['without Redis', 'with Redis'])('a pending delivery is made by the restarted API (%s)', async (how) => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    if (how === 'with Redis') redis ??= await findRedis();
    const store: Record<string, string> = how === 'with Redis' ? { REDIS_URL: redis!.url, REDIS_PREFIX: prefix } : {};
    const env = { ...(await folders()), ...store, WEBHOOK_ALLOW: url, WEBHOOK_RETRY_BASE_MS: '6000' };
    const first = await startApi(env);
    const answer = await submit(first.base, `${url}/hooks`);
    expect(answer.status).toBe(202);
    const id = answer.body.id!;
    const pending = await callbackWhen(first.base, id, (c) => c.attempts.length === 1);
    expect(pending.state).toBe('pending');
    expect(pending.attempts[0]).toMatchObject({ status: null, error: 'the connection was refused (ECONNREFUSED)' });
    expect(pending.next_attempt_at).not.toBeNull();

    first.api.proc.kill('SIGKILL');
    expect(await first.api.exited).toBe('SIGKILL');
    const receiver = await startReceiver('node', WEBHOOK_SECRET, port);
    receivers.push(receiver);
    const second = await startApi(env);

    expect(await receiver.line(id, 30_000)).toMatch(new RegExp(`^evt_[0-9a-f]{24} job\\.completed ${id}$`));
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.lines().filter((l) => l.endsWith(id))).toHaveLength(1);
    if (how === 'with Redis') {
      const delivered = await callbackWhen(second.base, id, (c) => c.state === 'delivered');
      expect(delivered.attempts.map((a) => a.status)).toEqual([null, 204]);
    }
  });

  it('a job killed while it runs still gets its event from the restarted API', async () => {
    const events: { type: string; data: { id: string; status: string; error: { code: string } | null } }[] = [];
    capture = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString('utf8')));
      req.on('end', () => {
        events.push(JSON.parse(body) as (typeof events)[number]);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => capture!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(capture.address() as AddressInfo).port}`;
    const env = { ...(await folders()), WEBHOOK_ALLOW: url, BULK_CHUNK_STUDENTS: '200' };
    const first = await startApi(env);
    const answer = await submit(first.base, `${url}/hooks`, makeCsv(60_000, 21));
    expect(answer.status).toBe(202);
    const id = answer.body.id!;
    await callbackWhen(first.base, id, (c) => c.state === 'pending' && c.next_attempt_at === null);
    first.api.proc.kill('SIGKILL');
    await first.api.exited;
    expect(events).toEqual([]);

    const second = await startApi(env);
    const event = await until(async () => events.find((e) => e.data.id === id), 60_000, 'the event of the killed job');
    if (event.type === 'job.failed') expect(event.data.error?.code).toBe('job_lost');
    else expect(event).toMatchObject({ type: 'job.completed', data: { status: 'completed' } });
    await second.api.waitFor(/"msg":"webhooks: event delivered"/);
  });
});
