/**
 * Deleting one run's keys from a Redis that may be shared (the tests' and the benchmarks'): SCAN for the run's
 * prefix and UNLINK what it finds, never FLUSHALL/FLUSHDB.
 */
import { Redis } from 'ioredis';

/** Deletes every key under `${prefix}:` (only ours); the number deleted. */
export async function deleteKeys(url: string, prefix: string): Promise<number> {
  const client = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  client.on('error', () => undefined);
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await client.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
  return deleted;
}
