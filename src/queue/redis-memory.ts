/**
 * Readiness before Redis is full. With maxmemory-policy noeviction (the only policy the service accepts) a Redis at
 * its maxmemory refuses every write: chunks can no longer be queued (they run on the API's own pool, slower), job
 * records, results and webhook deliveries can no longer be stored. So /readyz fails before that: from the moment
 * Redis's used memory reaches REDIS_MEMORY_READY_PCT of its maxmemory (the `redis-memory` check), and passes again
 * once results expire or are downloaded and memory falls back below it. Read with INFO memory (allowed on managed
 * Redis, unlike CONFIG GET). A Redis without maxmemory has no such bound (the machine's memory is its limit:
 * docs/operations.md says to set one): the check passes and says so.
 */
import type { Redis } from 'ioredis';

export interface MemoryReading {
  ok: boolean;
  /** A state, never an address: `ok: 41% of maxmemory`, `memory_high: 93% of maxmemory (not ready from 90%)`. */
  detail: string;
}

function field(info: string, name: string): number {
  return Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
}

/** Reads INFO memory's used_memory against maxmemory: not ok from `readyPct` percent of it. */
export function memoryReading(info: string, readyPct: number): MemoryReading {
  const max = field(info, 'maxmemory');
  if (max <= 0) return { ok: true, detail: 'no maxmemory set' };
  const pct = Math.floor((field(info, 'used_memory') / max) * 100);
  return pct >= readyPct
    ? { ok: false, detail: `memory_high: ${pct}% of maxmemory (not ready from ${readyPct}%)` }
    : { ok: true, detail: `${pct}% of maxmemory (not ready from ${readyPct}%)` };
}

/** The `redis-memory` readiness check over the process's shared Redis connection. */
export function redisMemoryReadiness(
  client: Redis,
  readyPct: number,
): { name: 'redis-memory'; check(): Promise<MemoryReading> } {
  return {
    name: 'redis-memory',
    async check() {
      return memoryReading(await client.info('memory'), readyPct);
    },
  };
}
