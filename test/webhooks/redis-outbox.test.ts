/**
 * The outbox in Redis: the shared contract (several connections stand for several API processes on one Redis
 * and prefix), the keys kept under REDIS_PREFIX only, and every key of an entry expiring.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisOutbox } from '../../src/webhooks/redis-outbox.ts';
import type { OutboxStore } from '../../src/webhooks/outbox.ts';
import { deleteKeys, findRedis, uniquePrefix, type TestRedis } from '../support/redis.ts';
import { event, jobId, newEntry, outboxContract, TIMES } from './outbox-contract.ts';

let redis: TestRedis;
const clients: Redis[] = [];
const prefixes: string[] = [];
let current = '';

beforeAll(async () => {
  redis = await findRedis();
});

afterAll(async () => {
  for (const c of clients) c.disconnect();
  for (const p of prefixes) await deleteKeys(redis.url, p);
  await redis?.stop();
});

async function open(): Promise<OutboxStore> {
  const client = new Redis(redis.url);
  clients.push(client);
  return new RedisOutbox(client, current, TIMES);
}

async function fresh(): Promise<OutboxStore> {
  current = uniquePrefix('outbox');
  prefixes.push(current);
  return open();
}

outboxContract('RedisOutbox', { open, fresh });

describe('RedisOutbox', () => {
  it('keeps its keys under the prefix, each with an expiry', async () => {
    const store = await fresh();
    const [id, running] = [jobId(), jobId()];
    const now = Date.now();
    await store.add(newEntry(id, 'https://a.example/hook', now));
    await store.add(newEntry(running, 'https://a.example/hook', now));
    await store.ready(id, event(now), now);
    const client = clients[clients.length - 1]!;
    const keys = (await client.keys(`${current}:*`)).sort();
    expect(keys).toEqual(
      [
        `${current}:webhook:${id}`,
        `${current}:webhook:${running}`,
        `${current}:webhooks:due`,
        `${current}:webhooks:waiting`,
      ].sort(),
    );
    for (const key of keys) expect(await client.pttl(key), key).toBeGreaterThan(TIMES.windowMs);
  });
});
