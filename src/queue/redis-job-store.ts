/**
 * Async jobs in Redis (REDIS_URL set), under the BullMQ prefix:
 *   `${prefix}:job:<id>`          hash: the JobRecord fields
 *   `${prefix}:job:<id>:result`   list: the result's byte segments, in order
 *   `${prefix}:job-idem:<sha256>` string: Idempotency-Key → job id
 *   `${prefix}:jobs`              sorted set: job id → expiry (ms), for counting jobs by status
 * Every key expires JOB_TTL_SECONDS after the job finished (after creation while it has not). Uses the API's
 * fail-fast producer connection: when Redis is down, job calls fail at once with a clear error.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { JOB_STATUSES, withLease } from './job-store.ts';
import type { CreateOutcome, JobPatch, JobRecord, JobStatus, JobStore } from './job-store.ts';

/** Create-or-return-existing, atomically: the idempotency key and the job appear together or not at all. */
const CREATE_SCRIPT = `
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
if KEYS[1] ~= KEYS[2] then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return false
`;

function toHash(fields: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    out.push(k, v === null ? '' : k === 'error' ? JSON.stringify(v) : String(v));
  }
  return out;
}

function fromHash(h: Record<string, string>): JobRecord | undefined {
  if (!h.id) return undefined;
  const num = (k: string) => (h[k] === undefined || h[k] === '' ? null : Number(h[k]));
  const str = (k: string) => (h[k] === undefined || h[k] === '' ? null : (h[k] as string));
  return {
    id: h.id,
    status: h.status as JobStatus,
    format: h.format === 'ndjson' ? 'ndjson' : 'csv',
    created_at: h.created_at ?? '',
    started_at: str('started_at'),
    finished_at: str('finished_at'),
    students_done: num('students_done') ?? 0,
    students_total: num('students_total'),
    rows_done: num('rows_done') ?? 0,
    error_rows: num('error_rows') ?? 0,
    error: h.error ? (JSON.parse(h.error) as JobRecord['error']) : null,
    fingerprint: h.fingerprint ?? '',
    lease_until: num('lease_until') ?? 0,
  };
}

export class RedisJobStore implements JobStore {
  readonly kind = 'redis' as const;
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #ttlMs: number;

  constructor(redis: Redis, prefix: string, ttlSeconds: number) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#ttlMs = ttlSeconds * 1000;
  }

  #jobKey(id: string): string {
    return `${this.#prefix}:job:${id}`;
  }
  #resultKey(id: string): string {
    return `${this.#prefix}:job:${id}:result`;
  }
  #indexKey(): string {
    return `${this.#prefix}:jobs`;
  }

  async create(record: JobRecord, idempotencyKey?: string): Promise<CreateOutcome> {
    const jobKey = this.#jobKey(record.id);
    const idemKey =
      idempotencyKey === undefined
        ? jobKey // same key twice: the script then skips the idempotency part
        : `${this.#prefix}:job-idem:${createHash('sha256').update(idempotencyKey).digest('hex')}`;
    const expiry = Date.now() + this.#ttlMs;
    const fields = toHash({ ...record });
    const existing = (await this.#redis.eval(
      CREATE_SCRIPT,
      3,
      idemKey,
      jobKey,
      this.#indexKey(),
      record.id,
      String(this.#ttlMs),
      String(expiry),
      ...fields,
    )) as string | null;
    if (existing && existing !== record.id) {
      const found = await this.get(existing);
      if (found) return { record: found, created: false };
      // The key outlived its job (both expire together, so only by a hair): start afresh.
      await this.#redis.del(idemKey);
      return this.create(record, idempotencyKey);
    }
    return { record: { ...record }, created: true };
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const h = await this.#redis.hgetall(this.#jobKey(id));
    const record = fromHash(h);
    return record ? withLease(record) : undefined;
  }

  async update(id: string, patch: JobPatch): Promise<void> {
    const key = this.#jobKey(id);
    // Only touch a job that still exists: a job that expired must not come back as a partial hash.
    if ((await this.#redis.exists(key)) === 0) return;
    const multi = this.#redis.multi();
    multi.hset(key, ...toHash(patch));
    if (patch.status === 'completed' || patch.status === 'failed') {
      multi.pexpire(key, this.#ttlMs);
      multi.pexpire(this.#resultKey(id), this.#ttlMs);
      multi.zadd(this.#indexKey(), Date.now() + this.#ttlMs, id);
    }
    await multi.exec();
  }

  async appendResult(id: string, segment: Buffer): Promise<void> {
    const key = this.#resultKey(id);
    await this.#redis.multi().rpush(key, segment).pexpire(key, this.#ttlMs).exec();
  }

  async clearResult(id: string): Promise<void> {
    await this.#redis.del(this.#resultKey(id));
  }

  async *readResult(id: string): AsyncIterable<Buffer> {
    const key = this.#resultKey(id);
    const total = await this.#redis.llen(key);
    for (let i = 0; i < total; i++) {
      const [segment] = await this.#redis.lrangeBuffer(key, i, i);
      if (segment === undefined) throw new Error(`job ${id}'s result expired while it was being read`);
      yield segment;
    }
  }

  async counts(): Promise<Record<JobStatus, number>> {
    const out = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
    const index = this.#indexKey();
    await this.#redis.zremrangebyscore(index, '-inf', Date.now());
    const ids = await this.#redis.zrevrange(index, 0, 9999);
    if (ids.length === 0) return out;
    const pipe = this.#redis.pipeline();
    for (const id of ids) pipe.hmget(this.#jobKey(id), 'status', 'lease_until');
    const rows = (await pipe.exec()) ?? [];
    const now = Date.now();
    for (const [err, value] of rows) {
      if (err) continue;
      const [status, lease] = value as [string | null, string | null];
      if (!status) continue;
      const s = status as JobStatus;
      const abandoned = (s === 'queued' || s === 'running') && Number(lease ?? 0) < now;
      out[abandoned ? 'failed' : s]++;
    }
    return out;
  }

  async close(): Promise<void> {
    // The connection belongs to the queue runner, which closes it.
  }
}
