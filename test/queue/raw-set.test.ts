/**
 * RawSetWriter (the worker's SET of chunk outputs from reused frames) against a real Redis: what Redis stores is
 * exactly the bytes given, with the TTL given, whatever the order of sizes (frames are reused and grown), with
 * SETs in flight at once, and with keys and values that are not ASCII.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawSetWriter } from '../../src/queue/raw-set.ts';
import { findRedis, uniquePrefix } from '../support/redis.ts';
import type { TestRedis } from '../support/redis.ts';
import { removePrefix } from './helpers.ts';

let redis: TestRedis;
let client: Redis;
const prefix = uniquePrefix('rawset');

beforeAll(async () => {
  redis = await findRedis();
  client = new Redis(redis.url);
});

afterAll(async () => {
  client.disconnect();
  await removePrefix(redis.url, prefix);
  await redis.stop();
});

describe('RawSetWriter', () => {
  it('stores exactly the given bytes with the given TTL, frames reused across sizes and SETs in flight', async () => {
    const writer = new RawSetWriter();
    const sizes = [1_700_003, 10, 0, 2_500_000, 1_699_999, 3, 200_000, 1_700_003];
    const values = sizes.map((n) => randomBytes(n));
    // One after another (each reuses or grows the frame of the one before)...
    for (const [i, value] of values.entries()) {
      await writer.set(client, `${prefix}:seq:${i}`, value, 30);
    }
    // ...and all at once.
    await Promise.all(values.map((value, i) => writer.set(client, `${prefix}:par:${i}`, value, 30)));
    // (Buffer.equals: a deep toEqual over megabytes is far too slow.)
    for (const [i, value] of values.entries()) {
      expect((await client.getBuffer(`${prefix}:seq:${i}`))?.equals(value), `sequential ${i}`).toBe(true);
      expect((await client.getBuffer(`${prefix}:par:${i}`))?.equals(value), `parallel ${i}`).toBe(true);
    }
    const ttl = await client.ttl(`${prefix}:seq:0`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30);
    // A key of multi-byte characters, and a view into a larger buffer (only the view is stored).
    const backing = Buffer.from('xx€ chunk üyy', 'utf8');
    const view = backing.subarray(2, backing.length - 2);
    await writer.set(client, `${prefix}:clé €`, view, 5);
    expect(await client.getBuffer(`${prefix}:clé €`)).toEqual(Buffer.from('€ chunk ü', 'utf8'));
    expect(await client.ttl(`${prefix}:clé €`)).toBeLessThanOrEqual(5);
    // The connection is still in step: an ordinary command after them gets its own answer.
    expect(await client.ping()).toBe('PONG');
  });

  it('rejects like ioredis when the connection cannot take commands', async () => {
    const offline = new Redis(redis.url, { lazyConnect: true, enableOfflineQueue: false });
    offline.on('error', () => undefined);
    try {
      await expect(new RawSetWriter().set(offline, `${prefix}:never`, Buffer.from('x'), 5)).rejects.toThrow();
      expect(await client.exists(`${prefix}:never`)).toBe(0);
    } finally {
      offline.disconnect();
      await new Promise((r) => setTimeout(r, 10));
    }
  });
});
