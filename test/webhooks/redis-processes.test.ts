/**
 * With Redis and two API processes on one REDIS_PREFIX, every delivery attempt is made by one process only:
 * eight jobs submitted to both, a receiver (docs/webhooks.md's Node receiver, behind a proxy that fails each
 * event's first two requests) gets exactly three requests per event and prints each event once; each job shows
 * its three attempts; the two logs together record 16 failed attempts and 8 deliveries.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll } from '../support/processes.ts';
import { findRedis, uniquePrefix, type TestRedis } from '../support/redis.ts';
import { removePrefix } from '../queue/helpers.ts';
import { startReceiver, type Receiver } from './receivers.ts';
import { callbackWhen, folders, removeFolders, startApi, submit, WEBHOOK_SECRET, type Api } from './servers.ts';

let redis: TestRedis;
const prefix = uniquePrefix('webhooks');
let receiver: Receiver;
let proxy: Server;
let proxyUrl: string;
/** Requests per event id. */
const requests = new Map<string, number>();
let apis: Api[] = [];

beforeAll(async () => {
  redis = await findRedis();
  receiver = await startReceiver('node', WEBHOOK_SECRET);
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const id = (JSON.parse(body.toString('utf8')) as { id: string }).id;
      const seen = (requests.get(id) ?? 0) + 1;
      requests.set(id, seen);
      if (seen <= 2) {
        res.writeHead(503).end();
        return;
      }
      fetch(`${receiver.url}/hooks`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Sor-Signature': String(req.headers['sor-signature']) },
        body,
      }).then(
        (answer) => res.writeHead(answer.status).end(),
        () => res.writeHead(502).end(),
      );
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const env = {
    REDIS_URL: redis.url,
    REDIS_PREFIX: prefix,
    WEBHOOK_ALLOW: proxyUrl,
    WEBHOOK_RETRY_BASE_MS: '300',
  };
  apis = [await startApi({ ...env, ...(await folders()) }), await startApi({ ...env, ...(await folders()) })];
});

afterAll(async () => {
  await killAll();
  await receiver?.stop();
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await removePrefix(redis.url, prefix);
  await redis?.stop();
  await removeFolders();
});

describe('two API processes on one Redis', () => {
  it('make each delivery attempt once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const answer = await submit(apis[i % 2]!.base, `${proxyUrl}/hooks`);
      expect(answer.status).toBe(202);
      ids.push(answer.body.id!);
    }
    for (const id of ids) expect(await receiver.line(id, 60_000)).toMatch(new RegExp(`job\\.completed ${id}$`));
    for (const [i, id] of ids.entries()) {
      const callback = await callbackWhen(apis[(i + 1) % 2]!.base, id, (c) => c.state === 'delivered');
      expect(callback.attempts.map((a) => a.status)).toEqual([503, 503, 204]);
    }
    await new Promise((r) => setTimeout(r, 1500)); // a duplicate attempt would have arrived by now
    expect([...requests.values()]).toEqual(Array(8).fill(3));
    for (const id of ids) expect(receiver.lines().filter((l) => l.endsWith(id))).toHaveLength(1);
    const logs = apis.map((a) => a.api.output()).join('\n');
    expect(logs.match(/"msg":"webhooks: delivery attempt failed; retrying"/g)).toHaveLength(16);
    expect(logs.match(/"msg":"webhooks: event delivered"/g)).toHaveLength(8);
  });
});
