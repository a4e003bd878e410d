/**
 * The webhook outbox in Redis (REDIS_URL set), under REDIS_PREFIX:
 *   `${prefix}:webhook:<job id>`   hash: the entry (url, state, snapshot, event, next_attempt_at, claim, attempts)
 *   `${prefix}:webhooks:due`       sorted set: job id → epoch ms of its next attempt (pending entries only)
 *   `${prefix}:webhooks:waiting`   sorted set (all scores 0, so ordered by id = by submission): entries whose job
 *                                  has not ended, for the sweep
 *   `${prefix}:webhooks:instance:<id>`  string: a live webhooks instance (an API process), expiring unless renewed
 * Every change of an entry is one Lua script, so the state, the due set and the claim move together. A claim
 * checks that the entry is still due and moves it a lease ahead with a fresh token: among every API process on
 * the same Redis and prefix, exactly one makes each attempt. An entry expires like its job: JOB_TTL_SECONDS
 * after it was delivered or given up (after the retry window while pending); the sets' stale ids are pruned when
 * read.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { JobRecord } from '../jobs/job-store.ts';
import {
  INSTANCE_STALE_MS,
  WAITING_KEEP_MS,
  type Claim,
  type DeliveryAttempt,
  type EventType,
  type OutboxEntry,
  type NewEntry,
  type OutboxEvent,
  type OutboxStore,
  type OutboxTimes,
  type Settlement,
} from './outbox.ts';

/** KEYS: entry, waiting. ARGV: id, url, created_at, snapshot, ttl ms, instance. 1 when added, 0 when it existed. */
const ADD_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'url', ARGV[2], 'state', 'waiting', 'created_at', ARGV[3], 'snapshot', ARGV[4],
  'attempts', '[]', 'instance', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], 0, ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 1
`;

/** KEYS: entry, waiting, due. ARGV: id, event id, type, body, ended_at, due_at, ttl ms. */
const READY_SCRIPT = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 'missing' end
if state ~= 'waiting' then return 'already' end
redis.call('HSET', KEYS[1], 'state', 'pending', 'event_id', ARGV[2], 'event_type', ARGV[3], 'body', ARGV[4],
  'ended_at', ARGV[5], 'next_attempt_at', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[6], ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[7])
return 'ready'
`;

/** KEYS: entry, due. ARGV: id, now, lease until, token. The entry's fields when claimed, else nil. */
const CLAIM_SCRIPT = `
local score = redis.call('ZSCORE', KEYS[2], ARGV[1])
if (not score) or tonumber(score) > tonumber(ARGV[2]) then return nil end
if redis.call('HGET', KEYS[1], 'state') ~= 'pending' then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return nil
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[1], 'claim', ARGV[4], 'claim_until', ARGV[3], 'next_attempt_at', ARGV[3])
return redis.call('HGETALL', KEYS[1])
`;

/** KEYS: entry, due. ARGV: id, token, state, next_attempt_at ('' for none), attempts JSON, ttl ms. */
const SETTLE_SCRIPT = `
if redis.call('HGET', KEYS[1], 'claim') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[3], 'next_attempt_at', ARGV[4], 'attempts', ARGV[5], 'claim', '',
  'claim_until', '')
redis.call('PEXPIRE', KEYS[1], ARGV[6])
if ARGV[3] == 'pending' then redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1]) else redis.call('ZREM', KEYS[2], ARGV[1]) end
return 1
`;

/** KEYS: entry, due. ARGV: id, token, due_at. */
const RELEASE_SCRIPT = `
if redis.call('HGET', KEYS[1], 'claim') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'claim', '', 'claim_until', '', 'next_attempt_at', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
`;

function fromPairs(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) out[pairs[i] as string] = pairs[i + 1] as string;
  return out;
}

function entryOf(jobId: string, h: Record<string, string>, now: number): OutboxEntry | undefined {
  if (!h.state || !h.url || !h.snapshot) return undefined;
  const num = (k: string) => (h[k] === undefined || h[k] === '' ? null : Number(h[k]));
  return {
    jobId,
    url: h.url,
    state: h.state as OutboxEntry['state'],
    createdAt: num('created_at') ?? 0,
    snapshot: JSON.parse(h.snapshot) as JobRecord,
    instance: h.instance ?? '',
    event: h.event_id
      ? { id: h.event_id, type: h.event_type as EventType, body: h.body ?? '', endedAt: num('ended_at') ?? 0 }
      : null,
    nextAttemptAt: num('next_attempt_at'),
    inFlight: Boolean(h.claim) && (num('claim_until') ?? 0) > now,
    attempts: JSON.parse(h.attempts ?? '[]') as DeliveryAttempt[],
  };
}

export class RedisOutbox implements OutboxStore {
  readonly kind = 'redis' as const;
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #times: OutboxTimes;

  constructor(redis: Redis, prefix: string, times: OutboxTimes) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#times = times;
  }

  #entryKey(jobId: string): string {
    return `${this.#prefix}:webhook:${jobId}`;
  }
  #dueKey(): string {
    return `${this.#prefix}:webhooks:due`;
  }
  #waitingKey(): string {
    return `${this.#prefix}:webhooks:waiting`;
  }
  /** How long a pending entry of a job that ended at `endedAt` is kept, from now. */
  #pendingTtl(endedAt: number, now: number): number {
    return Math.max(1000, endedAt + this.#times.windowMs + this.#times.retentionMs - now);
  }

  async add(entry: NewEntry): Promise<boolean> {
    const added = await this.#redis.eval(
      ADD_SCRIPT,
      2,
      this.#entryKey(entry.jobId),
      this.#waitingKey(),
      entry.jobId,
      entry.url,
      String(entry.createdAt),
      JSON.stringify(entry.snapshot),
      String(WAITING_KEEP_MS),
      entry.instance,
    );
    return Number(added) === 1;
  }

  async get(jobId: string): Promise<OutboxEntry | undefined> {
    return entryOf(jobId, await this.#redis.hgetall(this.#entryKey(jobId)), Date.now());
  }

  async getMany(jobIds: readonly string[]): Promise<Map<string, OutboxEntry>> {
    const out = new Map<string, OutboxEntry>();
    if (jobIds.length === 0) return out;
    const pipe = this.#redis.pipeline();
    for (const id of jobIds) pipe.hgetall(this.#entryKey(id));
    const rows = (await pipe.exec()) ?? [];
    const now = Date.now();
    jobIds.forEach((id, i) => {
      const [err, hash] = rows[i] ?? [null, {}];
      const entry = err ? undefined : entryOf(id, hash as Record<string, string>, now);
      if (entry) out.set(id, entry);
    });
    return out;
  }

  async ready(jobId: string, event: OutboxEvent, dueAt: number): Promise<'ready' | 'already' | 'missing'> {
    const outcome = await this.#redis.eval(
      READY_SCRIPT,
      3,
      this.#entryKey(jobId),
      this.#waitingKey(),
      this.#dueKey(),
      jobId,
      event.id,
      event.type,
      event.body,
      String(event.endedAt),
      String(dueAt),
      String(this.#pendingTtl(event.endedAt, Date.now())),
    );
    return outcome as 'ready' | 'already' | 'missing';
  }

  async claimDue(now: number, leaseMs: number, limit: number): Promise<Claim[]> {
    const ids = await this.#redis.zrangebyscore(this.#dueKey(), '-inf', now, 'LIMIT', 0, limit);
    const claims: Claim[] = [];
    for (const id of ids) {
      const token = randomBytes(12).toString('hex');
      const fields = (await this.#redis.eval(
        CLAIM_SCRIPT,
        2,
        this.#entryKey(id),
        this.#dueKey(),
        id,
        String(now),
        String(now + leaseMs),
        token,
      )) as string[] | null;
      const entry = fields ? entryOf(id, fromPairs(fields), now) : undefined;
      if (entry?.event) claims.push({ entry: entry as Claim['entry'], token });
    }
    return claims;
  }

  async settle(claim: Claim, attempt: DeliveryAttempt, next: Settlement, now: number): Promise<boolean> {
    const ttl = next.state === 'pending' ? this.#pendingTtl(claim.entry.event.endedAt, now) : this.#times.retentionMs;
    const done = await this.#redis.eval(
      SETTLE_SCRIPT,
      2,
      this.#entryKey(claim.entry.jobId),
      this.#dueKey(),
      claim.entry.jobId,
      claim.token,
      next.state,
      next.nextAttemptAt === null ? '' : String(next.nextAttemptAt),
      // Only the claim's holder writes attempts, so the list read with the claim is current.
      JSON.stringify([...claim.entry.attempts, attempt]),
      String(ttl),
    );
    return Number(done) === 1;
  }

  async release(claim: Claim, dueAt: number): Promise<void> {
    await this.#redis.eval(
      RELEASE_SCRIPT,
      2,
      this.#entryKey(claim.entry.jobId),
      this.#dueKey(),
      claim.entry.jobId,
      claim.token,
      String(dueAt),
    );
  }

  async waiting(after: string | undefined, limit: number): Promise<OutboxEntry[]> {
    const key = this.#waitingKey();
    const ids = await this.#redis.zrangebylex(key, after === undefined ? '-' : `(${after}`, '+', 'LIMIT', 0, limit);
    const found = await this.getMany(ids);
    const stale = ids.filter((id) => found.get(id)?.state !== 'waiting');
    if (stale.length > 0) await this.#redis.zrem(key, ...stale);
    return ids.flatMap((id) => {
      const entry = found.get(id);
      return entry?.state === 'waiting' ? [entry] : [];
    });
  }

  #instanceKey(instance: string): string {
    return `${this.#prefix}:webhooks:instance:${instance}`;
  }

  async beat(instance: string): Promise<void> {
    await this.#redis.set(this.#instanceKey(instance), '1', 'PX', INSTANCE_STALE_MS);
  }

  async alive(instance: string): Promise<boolean> {
    return (await this.#redis.exists(this.#instanceKey(instance))) === 1;
  }

  async forget(instance: string): Promise<void> {
    await this.#redis.del(this.#instanceKey(instance));
  }

  async close(): Promise<void> {
    // The connection belongs to the runtime (src/redis.ts), which closes it.
  }
}
